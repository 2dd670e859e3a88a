import { pino } from "pino";
import { afterEach, describe, expect, test } from "vitest";
import { verifyWebhook } from "../../client/src/index.js";
import { DeliveryWorker } from "../src/webhooks/worker.js";
import { call, chargeBody, testAdminToken } from "./harness.js";
import { startReceiver } from "./support/receiver.js";
import { eachStore, serverOn, type StoreUnderTest } from "./support/stores.js";

// GET /api/v1/events and the webhook events of refunds and disputes: what a partner lists is what
// its endpoint received, envelope for envelope.

const allKinds = [
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

  const get = (key: string, path: string) => call(server.baseUrl, "GET", path, { key });
  const post = (key: string, path: string, body?: unknown) => call(server.baseUrl, "POST", path, { key, body });
  const admin = (method: string, path: string, body?: unknown) =>
    call(server.baseUrl, method, `/admin/v1${path}`, { admin: testAdminToken, body });

  async function paidCharge(key: string, amountCents = 8990) {
    const created = await post(key, "/api/v1/charges/pix", chargeBody({ amountCents }));
    expect(created.status).toBe(201);
    expect((await post(key, `/api/v1/sandbox/transactions/${created.body.id}/pay`)).status).toBe(200);
    return created.body.id as string;
  }

  /** Every event of the key's mode, newest first, following the cursor. */
  async function allEvents(key: string, query = "") {
    const out: any[] = [];
    let after = "";
    for (;;) {
      const page = await get(key, `/api/v1/events?limit=3${query}${after}`);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      out.push(...page.body.data);
      if (!page.body.hasMore) return out;
      after = `&startingAfter=${page.body.data.at(-1).id}`;
    }
  }

  describe("the whole test-mode story, with only a test key", () => {
    test("when a partner pays, releases, withdraws, refunds, fails on purpose, loses a MED and expires a charge, then every event is listed and delivered to its endpoint", async () => {
      const hook = await startReceiver();
      closers.push(hook.close);
      const { account, testKey } = await server.newAccount();
      const endpoint = await admin("POST", `/accounts/${account.id}/webhook-endpoints`, {
        url: hook.url,
        mode: "test",
        events: allKinds,
      });
      expect(endpoint.status).toBe(201);

      const sale = await paidCharge(testKey, 50_080);
      const other = await paidCharge(testKey, 20_080);
      expect((await post(testKey, "/api/v1/sandbox/balance/release")).body.availableCents).toBe(70_000);
      const withdrawal = await post(testKey, "/api/v1/withdrawals", {
        amountCents: 10_000,
        pixKey: "52998224725",
        pixKeyType: "CPF",
      });
      const refund = await post(testKey, `/api/v1/transactions/${sale}/refunds`, { amountCents: 2990 });
      const failedRefund = await post(testKey, `/api/v1/transactions/${sale}/refunds`, {
        amountCents: 1000,
        reason: "sandbox:falha",
      });
      const failedWithdrawal = await post(testKey, "/api/v1/withdrawals", {
        amountCents: 5000,
        pixKey: "falha@sandbox.pix",
        pixKeyType: "EMAIL",
      });
      const partial = await post(testKey, "/api/v1/withdrawals", {
        amountCents: 5000,
        pixKey: "parcial@sandbox.pix",
        pixKeyType: "EMAIL",
      });
      const dispute = await post(testKey, `/api/v1/sandbox/transactions/${other}/dispute`, {});
      const lost = await post(testKey, `/api/v1/sandbox/disputes/${dispute.body.dispute.id}/resolve`, {
        outcome: "LOST",
      });
      const waiting = await post(testKey, "/api/v1/charges/pix", chargeBody());
      const expired = await post(testKey, `/api/v1/sandbox/transactions/${waiting.body.id}/expire`);

      expect([withdrawal.body.status, refund.body.status, failedRefund.body.status]).toEqual([
        "PAID",
        "COMPLETED",
        "FAILED",
      ]);
      expect([failedWithdrawal.body.status, partial.body.status]).toEqual(["FAILED", "PARTIALLY_PAID"]);
      expect([lost.body.dispute.status, expired.body.status]).toEqual(["LOST", "EXPIRED"]);
      expect((await get(testKey, `/api/v1/transactions/${sale}`)).body.refundedAmountCents).toBe(2990);

      const listed = await allEvents(testKey);
      expect(new Set(listed.map((e) => e.type))).toEqual(new Set(allKinds));
      expect(listed).toHaveLength(14);
      const byType = (type: string) => listed.filter((e) => e.type === type).map((e) => e.data.object.id);
      expect(byType("refund.completed")).toEqual([refund.body.id]);
      expect(byType("refund.failed")).toEqual([failedRefund.body.id]);
      expect(byType("withdrawal.failed")).toEqual([failedWithdrawal.body.id]);
      expect(byType("withdrawal.partially_paid")).toEqual([partial.body.id]);
      expect(byType("dispute.closed")).toEqual([other]);

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
      const from = encodeURIComponent(server.clock.advance(60).toISOString());
      await paidCharge(testKey);
      await post(testKey, "/api/v1/withdrawals", { amountCents: 1000, pixKey: "52998224725", pixKeyType: "CPF" });
      const to = encodeURIComponent(server.clock.advance(60).toISOString());
      await paidCharge(testKey);

      const paid = await allEvents(testKey, "&type=transaction.paid");
      const window = await allEvents(testKey, `&createdFrom=${from}&createdTo=${to}`);
      const both = await allEvents(testKey, `&type=withdrawal.paid&createdFrom=${from}&createdTo=${to}`);

      expect(paid.map((e) => e.type)).toEqual(["transaction.paid", "transaction.paid", "transaction.paid"]);
      expect(window.map((e) => e.type)).toEqual(["withdrawal.paid", "withdrawal.created", "transaction.paid"]);
      expect(both).toHaveLength(1);
    });

    test("when the other mode or another account has events, then they are not listed", async () => {
      const mine = await server.newAccount();
      const theirs = await server.newAccount();
      await paidCharge(theirs.testKey);
      const live = await post(mine.liveKey as string, "/api/v1/charges/pix", chargeBody());
      await admin("POST", `/simulator/transactions/${live.body.id}/pay`);

      expect(await allEvents(mine.testKey)).toEqual([]);
      expect((await allEvents(mine.liveKey as string)).map((e) => e.livemode)).toEqual([true]);
    });

    test("when the operator's simulator opens and closes a production MED, then dispute.opened and dispute.closed are live events", async () => {
      const { liveKey } = await server.newAccount();
      const key = liveKey as string;
      const ids: string[] = [];
      for (const amountCents of [20_080, 8990]) {
        const created = await post(key, "/api/v1/charges/pix", chargeBody({ amountCents }));
        await admin("POST", `/simulator/transactions/${created.body.id}/pay`);
        ids.push(created.body.id);
      }
      server.clock.advance(86_400);
      const opened = await admin("POST", `/simulator/transactions/${ids[1]}/disputes`, { amountCents: 1000 });
      const closed = await admin("POST", `/simulator/disputes/${opened.body.dispute.id}/close`, { outcome: "WON" });

      const [last, first] = (await get(key, "/api/v1/events?limit=2")).body.data;

      expect([opened.status, closed.status]).toEqual([201, 200]);
      expect(first).toMatchObject({ type: "dispute.opened", livemode: true, data: { object: opened.body } });
      expect(last).toMatchObject({ type: "dispute.closed", livemode: true, data: { object: closed.body } });
    });

    test.each([
      { name: "an unknown type", query: "type=transaction.refunded", field: "type" },
      {
        name: "a createdFrom with an offset",
        query: `createdFrom=${encodeURIComponent("2026-10-04T12:00:00-03:00")}`,
        field: "createdFrom",
      },
      { name: "limit 0", query: "limit=0", field: "limit" },
      { name: "an unknown cursor", query: "startingAfter=evt_nope", field: "startingAfter" },
    ])("when the query has $name, then 400 VALIDATION_ERROR on it", async ({ query, field }) => {
      const { testKey } = await server.newAccount();
      const res = await get(testKey, `/api/v1/events?${query}`);
      expect(res.status).toBe(400);
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

      const one = await get(testKey, `/api/v1/events/${listed.id}`);

      expect(one.status).toBe(200);
      expect(one.body).toEqual(listed);
      expect((await get(liveKey as string, `/api/v1/events/${listed.id}`)).status).toBe(404);
      expect((await get(stranger.testKey, `/api/v1/events/${listed.id}`)).status).toBe(404);
      expect((await get(testKey, "/api/v1/events/evt_nope")).body.code).toBe("NOT_FOUND");
    });

    test("when a key lacks transactions:read, then 403 API_KEY_PERMISSION", async () => {
      const { addKey } = await server.newAccount();
      const key = await addKey({ permissions: ["charges:write"] });
      const res = await get(key.secret, "/api/v1/events");
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("API_KEY_PERMISSION");
    });
  });

  describe("webhook endpoints select the new kinds", () => {
    test("when an endpoint selects only refund.failed, then it receives only that event, with the whole refund", async () => {
      const hook = await startReceiver();
      closers.push(hook.close);
      const { account, testKey } = await server.newAccount({ releasePeriodDays: 0 });
      const endpoint = await admin("POST", `/accounts/${account.id}/webhook-endpoints`, {
        url: hook.url,
        mode: "test",
        events: ["refund.failed"],
      });
      await paidCharge(testKey, 20_000);
      const id = await paidCharge(testKey);
      await post(testKey, `/api/v1/transactions/${id}/refunds`, { amountCents: 100 });
      const failed = await post(testKey, `/api/v1/transactions/${id}/refunds`, { reason: "sandbox:falha" });

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
        endpoint.body.secret,
      );
      expect(event.type).toBe("refund.failed");
      expect(event.data.object).toEqual(failed.body);
    });
  });
}

for (const store of eachStore("events")) {
  store.describe(`events on the ${store.name} store`, () => {
    eventSuite(store);
  });
}
