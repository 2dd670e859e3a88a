import { describe, expect, test } from "vitest";
import { brasiliaDate } from "../../src/domain/payments/index.js";
import { byId, expectStatus, operatorApi, publicApi, testAdminToken } from "../harness.js";
import { dateAfter, recurrenceBody } from "../support/recurrences.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// Recurrences (Pix Automático) in production, on both stores: the operator's settlement simulator
// plays the payer and their bank through the same use cases as the sandbox, and the background
// pass writes expiries and sends automatic cycle charges, in either mode.

function productionSuite(store: StoreUnderTest) {
  const server = serverOn(store);
  const api = (key: string) => publicApi(server.baseUrl, { key });
  const admin = () => operatorApi(server.baseUrl, { token: testAdminToken });
  const today = () => brasiliaDate(server.clock.now());

  async function create(key: string, overrides: Parameters<typeof recurrenceBody>[0] = {}) {
    const made = await api(key).POST("/api/v1/recurrences", {
      body: recurrenceBody({ firstDate: dateAfter(today(), 5), ...overrides }),
    });
    expectStatus(made, 201);
    return made.body;
  }
  const eventTypes = async (key: string) => {
    const res = await api(key).GET("/api/v1/events", { params: { query: { limit: 100 } } });
    expectStatus(res, 200);
    return res.body.data.map((e) => e.type);
  };

  describe("the settlement simulator", () => {
    test("when the operator approves a production recurrence and plays its cycle's attempts, then the charge retries and is paid into the production balance", async () => {
      const { liveKey } = await server.newAccount({ verified: true });
      const key = liveKey as string;
      const r = await create(key, { retryPolicy: "RETRY_3_IN_7_DAYS" });
      expect(r.livemode).toBe(true);

      const approved = await admin().POST("/admin/v1/simulator/recurrences/{id}/approve", { ...byId(r.id), body: {} });
      expectStatus(approved, 200);
      expect(approved.body.status).toBe("APPROVED");
      const charge = await api(key).POST("/api/v1/recurrences/{id}/charges", {
        ...byId(r.id),
        body: { dueDate: r.firstDate },
      });
      expectStatus(charge, 201);
      const settle = (body: { outcome: "PAID" } | { outcome: "FAILED"; reasonCode: "AM04" }) =>
        admin().POST("/admin/v1/simulator/transactions/{id}/settle-attempt", { ...byId(charge.body.id), body });
      const failed = await settle({ outcome: "FAILED", reasonCode: "AM04" });
      const paid = await settle({ outcome: "PAID" });

      expectStatus(failed, 200);
      expect(failed.body.attempts?.map((a) => a.status)).toEqual(["FAILED", "SCHEDULED"]);
      expectStatus(paid, 200);
      expect(paid.body).toMatchObject({ status: "PAID", livemode: true });
      const balance = await api(key).GET("/api/v1/balance");
      expectStatus(balance, 200);
      expect(balance.body.pendingCents).toBe(4910);
      expect((await api(key).GET("/api/v1/recurrences/{id}", byId(r.id))).body).toMatchObject({ simulatedDate: null });
      expect((await eventTypes(key)).slice(0, 3)).toEqual([
        "transaction.paid",
        "recurring_charge.retrying",
        "recurring_charge.created",
      ]);
    });

    test("when a production journey 3 charge is paid through the simulator, then its recurrence is approved", async () => {
      const { liveKey } = await server.newAccount({ verified: true });
      const r = await create(liveKey as string, { journey: "JOURNEY_3", initialPayment: { amountCents: 4990 } });

      const paid = await admin().POST(
        "/admin/v1/simulator/transactions/{id}/pay",
        byId(r.initialTransactionId as string),
      );
      const refused = await admin().POST("/admin/v1/simulator/recurrences/{id}/approve", { ...byId(r.id), body: {} });

      expectStatus(paid, 200);
      const read = await api(liveKey as string).GET("/api/v1/recurrences/{id}", byId(r.id));
      expectStatus(read, 200);
      expect(read.body.status).toBe("APPROVED");
      expectStatus(refused, 400);
    });

    test.each([
      {
        name: "the payer's bank rejects",
        action: "reject" as const,
        body: { code: "AP14" as const },
        status: "REJECTED",
      },
      {
        name: "this service cancels",
        action: "cancel" as const,
        body: { requestedBy: "RECEIVER_PSP" as const },
        status: "CANCELLED",
      },
    ])(
      "when $name a production recurrence, then it is $status with the BCB's code",
      async ({ action, body, status }) => {
        const { liveKey } = await server.newAccount({ verified: true });
        const r = await create(liveKey as string);

        const res =
          action === "reject"
            ? await admin().POST("/admin/v1/simulator/recurrences/{id}/reject", { ...byId(r.id), body })
            : await admin().POST("/admin/v1/simulator/recurrences/{id}/cancel", { ...byId(r.id), body });

        expectStatus(res, 200);
        expect(res.body.status).toBe(status);
        if (action === "reject") expect(res.body.rejection).toMatchObject({ code: "AP14" });
        else expect(res.body.cancellation).toMatchObject({ requestedBy: "RECEIVER_PSP", code: "FRUD" });
      },
    );

    test("when the simulator is asked to move a test recurrence, then 400: test ones have the sandbox routes", async () => {
      const { testKey } = await server.newAccount();
      const r = await create(testKey);
      const res = await admin().POST("/admin/v1/simulator/recurrences/{id}/approve", { ...byId(r.id), body: {} });
      expectStatus(res, 400);
      expect(res.body.message).toBe("Recorrências de teste são movidas pelas rotas de sandbox da API pública.");
    });
  });

  describe("the background pass", () => {
    test("when a recurrence's expiry passes unapproved, then the pass writes EXPIRED once, with its immediate charge, and recurrence.expired once", async () => {
      const { testKey } = await server.newAccount();
      const expiresAt = new Date(server.clock.now().getTime() + 60_000).toISOString();
      const r = await create(testKey, { expiresAt, journey: "JOURNEY_3", initialPayment: { amountCents: 4990 } });
      expect(await server.domain.recurrenceDuties.expireDue()).toBe(0);

      server.clock.advance(61);
      const first = await server.domain.recurrenceDuties.expireDue();
      const second = await server.domain.recurrenceDuties.expireDue();

      expect(first).toBeGreaterThanOrEqual(1);
      expect(second).toBe(0);
      const read = await api(testKey).GET("/api/v1/recurrences/{id}", byId(r.id));
      expectStatus(read, 200);
      expect(read.body).toMatchObject({ status: "EXPIRED", expiresAt });
      expect(read.body.history.map((h) => h.status)).toEqual(["CREATED", "EXPIRED"]);
      const charge = await api(testKey).GET("/api/v1/transactions/{id}", byId(r.initialTransactionId as string));
      expectStatus(charge, 200);
      expect(charge.body.status).toBe("EXPIRED");
      expect((await eventTypes(testKey)).filter((t) => t === "recurrence.expired")).toHaveLength(1);
    });

    test("when an automatic recurrence's next cycle window opens, then the pass sends its charge once, and not before", async () => {
      const { liveKey } = await server.newAccount({ verified: true });
      const key = liveKey as string;
      const r = await create(key, { firstDate: dateAfter(today(), 20), automaticCharges: true });
      expectStatus(
        await admin().POST("/admin/v1/simulator/recurrences/{id}/approve", { ...byId(r.id), body: {} }),
        200,
      );
      const charges = async () => {
        const res = await api(key).GET("/api/v1/transactions", { params: { query: { recurrenceId: r.id } } });
        expectStatus(res, 200);
        return res.body.data;
      };

      await server.domain.recurrenceDuties.sendAutomaticCharges();
      expect(await charges()).toEqual([]);
      server.clock.advance(10 * 86_400);
      await server.domain.recurrenceDuties.sendAutomaticCharges();
      await server.domain.recurrenceDuties.sendAutomaticCharges();

      const sent = await charges();
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({
        dueDate: r.firstDate,
        amountCents: 4990,
        livemode: true,
        status: "WAITING_PAYMENT",
      });
      expect((await eventTypes(key)).filter((t) => t === "recurring_charge.created")).toHaveLength(1);
    });
  });
}

for (const store of eachStore("recurrence_production")) {
  store.describe(`recurrences in production on the ${store.name} store`, () => productionSuite(store));
}
