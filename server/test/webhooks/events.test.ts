import { pino } from "pino";
import { afterEach, describe, expect, test } from "vitest";
import { verifyWebhook } from "../../../client/src/index.js";
import { DeliveryWorker } from "../../src/webhooks/worker.js";
import type { components as operator } from "../../../generated/admin-api.js";
import type { components, paths } from "../../../generated/api.js";
import { bodyOf, byId, chargeBody, expectStatus, operatorApi, publicApi, testAdminToken } from "../harness.js";
import { startReceiver } from "../support/receiver.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// GET /api/v1/events and the webhook events of refunds and disputes: what a partner lists is what
// its endpoint received, envelope for envelope.

/** Every kind an endpoint can select (the operator document's list). */
const allKinds: operator["schemas"]["CreateWebhookEndpointRequest"]["events"] = [
  "transaction.paid",
  "withdrawal.created",
  "withdrawal.paid",
  "withdrawal.partially_paid",
  "withdrawal.failed",
  "refund.created",
  "refund.completed",
  "refund.failed",
  "dispute.opened",
  "dispute.closed",
];

function eventSuite(store: StoreUnderTest) {
  const server = serverOn(store, { allowLocalWebhooks: true });
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  type EventQuery = NonNullable<paths["/api/v1/events"]["get"]["parameters"]["query"]>;
  type Event = components["schemas"]["Event"];
  const api = (key: string) => publicApi(server.baseUrl, { key });
  const admin = () => operatorApi(server.baseUrl, { token: testAdminToken });
  const createEndpoint = (accountId: string, body: operator["schemas"]["CreateWebhookEndpointRequest"]) =>
    bodyOf(admin().POST("/admin/v1/accounts/{id}/webhook-endpoints", { ...byId(accountId), body }), 201);
  const withdraw = (key: string, body: components["schemas"]["CreateWithdrawalRequest"]) =>
    bodyOf(api(key).POST("/api/v1/withdrawals", { body }), 201);
  const refund = (key: string, id: string, body: components["schemas"]["CreateRefundRequest"]) =>
    bodyOf(api(key).POST("/api/v1/transactions/{id}/refunds", { ...byId(id), body }), 201);
  const newCharge = (key: string, amountCents = 8990) =>
    bodyOf(api(key).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents }) }), 201);

  async function paidCharge(key: string, amountCents = 8990) {
    const created = await newCharge(key, amountCents);
    expect((await api(key).POST("/api/v1/sandbox/transactions/{id}/pay", byId(created.id))).status).toBe(200);
    return created.id;
  }

  /** Every event of the key's mode, newest first, following the cursor. */
  async function allEvents(key: string, query: EventQuery = {}) {
    const out: Event[] = [];
    let startingAfter: string | undefined;
    for (;;) {
      const page = await api(key).GET("/api/v1/events", {
        params: { query: { limit: 3, ...query, ...(startingAfter ? { startingAfter } : {}) } },
      });
      expectStatus(page, 200);
      out.push(...page.body.data);
      if (!page.body.hasMore) return out;
      startingAfter = page.body.data.at(-1)?.id;
    }
  }

  describe("the whole test-mode story, with only a test key", () => {
    test("when a partner pays, releases, withdraws, refunds, fails on purpose, loses a MED and expires a charge, then every event is listed and delivered to its endpoint", async () => {
      const hook = await startReceiver();
      closers.push(hook.close);
      const { account, testKey } = await server.newAccount();
      const endpoint = await createEndpoint(account.id, { url: hook.url, mode: "test", events: allKinds });

      const sale = await paidCharge(testKey, 50_080);
      const other = await paidCharge(testKey, 20_080);
      const released = await bodyOf(api(testKey).POST("/api/v1/sandbox/balance/release"), 200);
      expect(released.availableCents).toBe(70_000);
      const withdrawal = await withdraw(testKey, { amountCents: 10_000, pixKey: "52998224725", pixKeyType: "CPF" });
      const saleRefund = await refund(testKey, sale, { amountCents: 2990 });
      const failedRefund = await refund(testKey, sale, { amountCents: 1000, reason: "sandbox:falha" });
      const failedWithdrawal = await withdraw(testKey, {
        amountCents: 5000,
        pixKey: "falha@sandbox.pix",
        pixKeyType: "EMAIL",
      });
      const partial = await withdraw(testKey, {
        amountCents: 5000,
        pixKey: "parcial@sandbox.pix",
        pixKeyType: "EMAIL",
      });
      const dispute = await bodyOf(
        api(testKey).POST("/api/v1/sandbox/transactions/{id}/dispute", { ...byId(other), body: {} }),
        201,
      );
      const lost = await bodyOf(
        api(testKey).POST("/api/v1/sandbox/disputes/{id}/resolve", {
          ...byId(dispute.dispute?.id as string),
          body: { outcome: "LOST" },
        }),
        200,
      );
      const waiting = await newCharge(testKey);
      const expired = await bodyOf(
        api(testKey).POST("/api/v1/sandbox/transactions/{id}/expire", byId(waiting.id)),
        200,
      );

      expect([withdrawal.status, saleRefund.status, failedRefund.status]).toEqual(["PAID", "COMPLETED", "FAILED"]);
      expect([failedWithdrawal.status, partial.status]).toEqual(["FAILED", "PARTIALLY_PAID"]);
      expect([lost.dispute?.status, expired.status]).toEqual(["LOST", "EXPIRED"]);
      const saleRead = await bodyOf(api(testKey).GET("/api/v1/transactions/{id}", byId(sale)), 200);
      expect(saleRead.refundedAmountCents).toBe(2990);

      const listed = await allEvents(testKey);
      expect(new Set(listed.map((e) => e.type))).toEqual(new Set(allKinds));
      expect(listed).toHaveLength(14);
      const byType = (type: string) => listed.filter((e) => e.type === type).map((e) => e.data.object.id);
      expect(byType("refund.completed")).toEqual([saleRefund.id]);
      expect(byType("refund.failed")).toEqual([failedRefund.id]);
      expect(byType("withdrawal.failed")).toEqual([failedWithdrawal.id]);
      expect(byType("withdrawal.partially_paid")).toEqual([partial.id]);
      expect(byType("dispute.closed")).toEqual([other]);

      const worker = new DeliveryWorker({
        store: server.store,
        clock: server.clock,
        logger: pino({ level: "silent" }),
        allowLoopbackForTest: true,
      });
      while ((await worker.runOnce()) > 0);
      const delivered = hook.received.map((r) =>
        verifyWebhook(r.body, r.headers as Record<string, string>, endpoint.secret),
      );
      const sortById = (events: { id: string }[]) => [...events].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(sortById(delivered)).toEqual(sortById(listed));
    });
  });

  describe("GET /api/v1/events", () => {
    test("when events exist, then they list newest first and the cursor neither skips nor repeats", async () => {
      const { testKey } = await server.newAccount();
      for (let i = 0; i < 4; i++) await paidCharge(testKey);

      const listed = await allEvents(testKey);

      expect(listed).toHaveLength(4);
      expect(new Set(listed.map((e) => e.id)).size).toBe(4);
      const times = listed.map((e) => `${e.createdAt}|${e.id}`);
      expect(times).toEqual([...times].sort().reverse());
      expect(listed[0]).toMatchObject({ type: "transaction.paid", livemode: false, apiVersion: "1.0.0" });
    });

    test("when filtered by type and by creation time, then only the matching events come", async () => {
      const { testKey } = await server.newAccount({ releasePeriodDays: 0 });
      await paidCharge(testKey);
      const createdFrom = server.clock.advance(60).toISOString();
      await paidCharge(testKey);
      await withdraw(testKey, { amountCents: 1000, pixKey: "52998224725", pixKeyType: "CPF" });
      const createdTo = server.clock.advance(60).toISOString();
      await paidCharge(testKey);

      const paid = await allEvents(testKey, { type: "transaction.paid" });
      const window = await allEvents(testKey, { createdFrom, createdTo });
      const both = await allEvents(testKey, { type: "withdrawal.paid", createdFrom, createdTo });

      expect(paid.map((e) => e.type)).toEqual(["transaction.paid", "transaction.paid", "transaction.paid"]);
      expect(window.map((e) => e.type)).toEqual(["withdrawal.paid", "withdrawal.created", "transaction.paid"]);
      expect(both).toHaveLength(1);
    });

    test("when the other mode or another account has events, then they are not listed", async () => {
      const mine = await server.newAccount();
      const theirs = await server.newAccount();
      await paidCharge(theirs.testKey);
      const live = await newCharge(mine.liveKey as string);
      expectStatus(await admin().POST("/admin/v1/simulator/transactions/{id}/pay", byId(live.id)), 200);

      expect(await allEvents(mine.testKey)).toEqual([]);
      expect((await allEvents(mine.liveKey as string)).map((e) => e.livemode)).toEqual([true]);
    });

    test("when the operator's simulator opens and closes a production MED, then dispute.opened and dispute.closed are live events", async () => {
      const { liveKey } = await server.newAccount();
      const key = liveKey as string;
      const ids: string[] = [];
      for (const amountCents of [20_080, 8990]) {
        const created = await newCharge(key, amountCents);
        expectStatus(await admin().POST("/admin/v1/simulator/transactions/{id}/pay", byId(created.id)), 200);
        ids.push(created.id);
      }
      server.clock.advance(86_400);
      const opened = await admin().POST("/admin/v1/simulator/transactions/{id}/disputes", {
        ...byId(ids[1] as string),
        body: { amountCents: 1000 },
      });
      expectStatus(opened, 201);
      const closed = await admin().POST("/admin/v1/simulator/disputes/{id}/close", {
        ...byId(opened.body.dispute?.id as string),
        body: { outcome: "WON" },
      });
      expectStatus(closed, 200);

      const [last, first] = (await bodyOf(api(key).GET("/api/v1/events", { params: { query: { limit: 2 } } }), 200))
        .data;

      expect(first).toMatchObject({ type: "dispute.opened", livemode: true, data: { object: opened.body } });
      expect(last).toMatchObject({ type: "dispute.closed", livemode: true, data: { object: closed.body } });
    });

    test.each([
      // A type the document does not have: cast, the one value the typed client could not name.
      { name: "an unknown type", query: { type: "transaction.refunded" as EventQuery["type"] }, field: "type" },
      {
        name: "a createdFrom with an offset",
        query: { createdFrom: "2026-10-04T12:00:00-03:00" },
        field: "createdFrom",
      },
      { name: "limit 0", query: { limit: 0 }, field: "limit" },
      { name: "an unknown cursor", query: { startingAfter: "evt_nope" }, field: "startingAfter" },
    ])("when the query has $name, then 400 VALIDATION_ERROR on it", async ({ query, field }) => {
      const { testKey } = await server.newAccount();
      const res = await api(testKey).GET("/api/v1/events", { params: { query } });
      expectStatus(res, 400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(JSON.stringify(res.body.errors)).toContain(field);
    });
  });

  describe("GET /api/v1/events/{id}", () => {
    test("when the event is of the key's mode, then it reads exactly as listed; otherwise 404", async () => {
      const { testKey, liveKey } = await server.newAccount();
      const stranger = await server.newAccount();
      await paidCharge(testKey);
      const [listed] = await allEvents(testKey);
      const id = listed?.id as string;
      const read = (key: string, eventId: string) => api(key).GET("/api/v1/events/{id}", byId(eventId));

      const one = await read(testKey, id);

      expectStatus(one, 200);
      expect(one.body).toEqual(listed);
      expect((await read(liveKey as string, id)).status).toBe(404);
      expect((await read(stranger.testKey, id)).status).toBe(404);
      const missing = await read(testKey, "evt_nope");
      expectStatus(missing, 404);
      expect(missing.body.code).toBe("NOT_FOUND");
    });

    test("when a key lacks transactions:read, then 403 API_KEY_PERMISSION", async () => {
      const { addKey } = await server.newAccount();
      const key = await addKey({ permissions: ["charges:write"] });
      const res = await api(key.secret).GET("/api/v1/events");
      expectStatus(res, 403);
      expect(res.body.code).toBe("API_KEY_PERMISSION");
    });
  });

  describe("webhook endpoints select the new kinds", () => {
    test("when an endpoint selects only refund.failed, then it receives only that event, with the whole refund", async () => {
      const hook = await startReceiver();
      closers.push(hook.close);
      const { account, testKey } = await server.newAccount({ releasePeriodDays: 0 });
      const endpoint = await createEndpoint(account.id, { url: hook.url, mode: "test", events: ["refund.failed"] });
      await paidCharge(testKey, 20_000);
      const id = await paidCharge(testKey);
      await refund(testKey, id, { amountCents: 100 });
      const failed = await refund(testKey, id, { reason: "sandbox:falha" });

      const worker = new DeliveryWorker({
        store: server.store,
        clock: server.clock,
        logger: pino({ level: "silent" }),
        allowLoopbackForTest: true,
      });
      while ((await worker.runOnce()) > 0);

      expect(hook.received).toHaveLength(1);
      const event = verifyWebhook(
        hook.received[0]?.body ?? "",
        hook.received[0]?.headers as Record<string, string>,
        endpoint.secret,
      );
      expect(event.type).toBe("refund.failed");
      expect(event.data.object).toEqual(failed);
    });
  });
}

for (const store of eachStore("events")) {
  store.describe(`events on the ${store.name} store`, () => {
    eventSuite(store);
  });
}
