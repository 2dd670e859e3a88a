import { afterEach, describe, expect, test } from "vitest";
import { pino } from "pino";
import { verifyWebhook } from "../../../client/src/index.js";
import type { components } from "../../../generated/api.js";
import { brasiliaDate, cycleDate } from "../../src/domain/payments/index.js";
import { DeliveryWorker } from "../../src/webhooks/worker.js";
import { byId, expectStatus, operatorApi, publicApi, testAdminToken } from "../harness.js";
import { startReceiver } from "../support/receiver.js";
import { dateAfter, recurrenceBody } from "../support/recurrences.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// The acceptance, with only a test key: a monthly recurrence by journey 3, its immediate
// charge paid (approving it), advanced to its cycles, one failed for insufficient balance and paid
// on the retry, three cycles paid, cancelled by the payer; every step in GET /api/v1/events and at
// a webhook endpoint. And the sandbox's calendar (`advance`) on its own.

type Recurrence = components["schemas"]["Recurrence"];

function journeySuite(store: StoreUnderTest) {
  const server = serverOn(store, { allowLocalWebhooks: true });
  const api = (key: string) => publicApi(server.baseUrl, { key });
  const today = () => brasiliaDate(server.clock.now());
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  const advance = (key: string, id: string) => api(key).POST("/api/v1/sandbox/recurrences/{id}/advance", byId(id));
  async function advanced(key: string, id: string): Promise<Recurrence> {
    const res = await advance(key, id);
    expectStatus(res, 200);
    return res.body;
  }
  async function chargesOf(key: string, recurrenceId: string) {
    const res = await api(key).GET("/api/v1/transactions", { params: { query: { recurrenceId } } });
    expectStatus(res, 200);
    return res.body.data;
  }
  async function settle(key: string, id: string, body: components["schemas"]["SettleRecurringAttemptRequest"]) {
    const res = await api(key).POST("/api/v1/sandbox/transactions/{id}/settle-attempt", { ...byId(id), body });
    expectStatus(res, 200);
    return res.body;
  }

  test("when a journey 3 subscription runs from creation to its third paid cycle and the payer cancels it, then every step is in the events API and at the webhook endpoint", async () => {
    const { testKey, account } = await server.newAccount();
    const hook = await startReceiver([204]);
    closers.push(hook.close);
    const endpoint = await operatorApi(server.baseUrl, { token: testAdminToken }).POST(
      "/admin/v1/accounts/{id}/webhook-endpoints",
      {
        ...byId(account.id),
        body: {
          url: hook.url,
          mode: "test",
          events: [
            "transaction.paid",
            "recurrence.created",
            "recurrence.approved",
            "recurrence.cancelled",
            "recurring_charge.created",
            "recurring_charge.retrying",
            "recurring_charge.failed",
            "recurring_charge.cancelled",
          ],
        },
      },
    );
    expectStatus(endpoint, 201);
    const firstDate = dateAfter(today(), 30);

    const created = await api(testKey).POST("/api/v1/recurrences", {
      body: recurrenceBody({
        firstDate,
        journey: "JOURNEY_3",
        initialPayment: { amountCents: 4990, description: "Primeira mensalidade" },
        retryPolicy: "RETRY_3_IN_7_DAYS",
        automaticCharges: true,
      }),
    });
    expectStatus(created, 201);
    const id = created.body.id;
    const initial = created.body.initialTransactionId as string;
    expectStatus(await api(testKey).POST("/api/v1/sandbox/transactions/{id}/pay", byId(initial)), 200);
    const approved = await api(testKey).GET("/api/v1/recurrences/{id}", byId(id));
    expectStatus(approved, 200);
    expect(approved.body.status).toBe("APPROVED");

    const cycle1 = await advanced(testKey, id);
    expect(cycle1.simulatedDate).toBe(dateAfter(firstDate, -10));
    const [charge1] = await chargesOf(testKey, id);
    expect(charge1).toMatchObject({ dueDate: firstDate, status: "WAITING_PAYMENT", amountCents: 4990 });
    const blocked = await advance(testKey, id);
    expectStatus(blocked, 400);
    expect(blocked.body.message).toContain(`/api/v1/sandbox/transactions/${charge1?.id}/settle-attempt`);
    const retrying = await settle(testKey, charge1?.id as string, { outcome: "FAILED", reasonCode: "AM04" });
    expect(retrying.attempts?.map((a) => a.status)).toEqual(["FAILED", "SCHEDULED"]);
    expect((await settle(testKey, charge1?.id as string, { outcome: "PAID" })).status).toBe("PAID");

    for (const n of [1, 2]) {
      const next = await advanced(testKey, id);
      const due = cycleDate(firstDate, "MONTHLY", n);
      const [charge] = await chargesOf(testKey, id);
      expect(charge?.dueDate).toBe(due);
      expect(next.simulatedDate).toBe(dateAfter(due, -10));
      expect((await settle(testKey, charge?.id as string, { outcome: "PAID" })).status).toBe("PAID");
    }
    const cancelled = await api(testKey).POST("/api/v1/sandbox/recurrences/{id}/cancel-by-payer", {
      ...byId(id),
      body: {},
    });
    expectStatus(cancelled, 200);

    const paidCycles = (await chargesOf(testKey, id)).filter((t) => t.dueDate !== undefined && t.status === "PAID");
    expect(paidCycles).toHaveLength(3);
    const events = await api(testKey).GET("/api/v1/events", { params: { query: { limit: 100 } } });
    expectStatus(events, 200);
    const steps = events.body.data.map((e) => e.type).reverse();
    expect(steps).toEqual([
      "recurrence.created",
      "transaction.paid",
      "recurrence.approved",
      "recurring_charge.created",
      "recurring_charge.retrying",
      "transaction.paid",
      "recurring_charge.created",
      "transaction.paid",
      "recurring_charge.created",
      "transaction.paid",
      "recurrence.cancelled",
    ]);
    const worker = new DeliveryWorker({
      store: server.store,
      clock: server.clock,
      logger: pino({ level: "silent" }),
      allowLoopbackForTest: true,
    });
    while ((await worker.runOnce()) > 0);
    const delivered = hook.received.map((r) =>
      verifyWebhook(r.body, r.headers as Record<string, string>, endpoint.body.secret),
    );
    expect(delivered.map((e) => e.id).sort()).toEqual(events.body.data.map((e) => e.id).sort());
    const lastCancel = delivered.find((e) => e.type === "recurrence.cancelled");
    expect(lastCancel?.data.object).toEqual(cancelled.body);
  });

  describe("POST /api/v1/sandbox/recurrences/{id}/advance", () => {
    test("when the merchant sends each charge, then advance stops where the next cycle's charge may be sent, and refuses while it may be sent already", async () => {
      const { testKey } = await server.newAccount();
      const firstDate = dateAfter(today(), 40);
      const made = await api(testKey).POST("/api/v1/recurrences", { body: recurrenceBody({ firstDate }) });
      expectStatus(made, 201);
      expectStatus(
        await api(testKey).POST("/api/v1/sandbox/recurrences/{id}/approve", { ...byId(made.body.id), body: {} }),
        200,
      );

      const moved = await advanced(testKey, made.body.id);
      const again = await advance(testKey, made.body.id);

      expect(moved.simulatedDate).toBe(dateAfter(firstDate, -10));
      expect(await chargesOf(testKey, made.body.id)).toEqual([]);
      expectStatus(again, 400);
      expect(again.body.message).toBe(
        `A cobrança do ciclo de ${firstDate} já pode ser enviada (até ${dateAfter(firstDate, -2)}): crie-a com ` +
          `POST /api/v1/recurrences/${made.body.id}/charges.`,
      );
      const sent = await api(testKey).POST("/api/v1/recurrences/{id}/charges", {
        ...byId(made.body.id),
        body: { dueDate: firstDate },
      });
      expectStatus(sent, 201);
    });

    test("when the recurrence has no cycle left before its last date, or is not approved, then 400", async () => {
      const { testKey } = await server.newAccount();
      const firstDate = dateAfter(today(), 3);
      const made = await api(testKey).POST("/api/v1/recurrences", {
        body: recurrenceBody({ firstDate, lastDate: firstDate, automaticCharges: true }),
      });
      expectStatus(made, 201);
      const notApproved = await advance(testKey, made.body.id);
      expectStatus(
        await api(testKey).POST("/api/v1/sandbox/recurrences/{id}/approve", { ...byId(made.body.id), body: {} }),
        200,
      );
      await advanced(testKey, made.body.id);
      const [charge] = await chargesOf(testKey, made.body.id);
      await settle(testKey, charge?.id as string, { outcome: "PAID" });

      const ended = await advance(testKey, made.body.id);

      expectStatus(notApproved, 400);
      expect(notApproved.body.message).toBe("Só recorrências aprovadas avançam de ciclo: status atual CREATED.");
      expectStatus(ended, 400);
      expect(ended.body.message).toBe(`A recorrência não tem mais ciclos até a sua data final (${firstDate}).`);
    });

    test("when a production key advances, then 403 TEST_MODE_ONLY", async () => {
      const { liveKey } = await server.newAccount({ verified: true });
      const res = await advance(liveKey as string, "rec_00000000000000000000");
      expectStatus(res, 403);
      expect(res.body.code).toBe("TEST_MODE_ONLY");
    });
  });
}

for (const store of eachStore("recurrence_journeys")) {
  store.describe(`recurrence journeys on the ${store.name} store`, () => journeySuite(store));
}
