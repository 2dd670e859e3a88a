import { describe, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import { bodyOf, byId, chargeBody, type ErrorBody, expectStatus, publicApi, rawCall } from "../harness.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// The sandbox plays every outcome with test keys: expiry, disputes (MED), the end of the release
// period, and failed or partial withdrawals through magic Pix keys. Runs on both stores.

function sandboxSuite(store: StoreUnderTest) {
  const server = serverOn(store);

  type Event = components["schemas"]["Event"];
  const api = (key: string) => publicApi(server.baseUrl, { key });
  const balance = (key: string) => bodyOf(api(key).GET("/api/v1/balance"), 200);
  const readCharge = (key: string, id: string) => bodyOf(api(key).GET("/api/v1/transactions/{id}", byId(id)), 200);
  const release = (key: string) => api(key).POST("/api/v1/sandbox/balance/release");
  const expire = (key: string, id: string, idempotencyKey?: string) =>
    api(key).POST("/api/v1/sandbox/transactions/{id}/expire", {
      params: {
        path: { id },
        ...(idempotencyKey === undefined ? {} : { header: { "idempotency-key": idempotencyKey } }),
      },
    });
  const pay = (key: string, id: string) => api(key).POST("/api/v1/sandbox/transactions/{id}/pay", byId(id));
  const dispute = (key: string, id: string, body: components["schemas"]["SimulateDisputeRequest"] = {}) =>
    api(key).POST("/api/v1/sandbox/transactions/{id}/dispute", { ...byId(id), body });
  const resolve = (key: string, disputeId: string, outcome: "WON" | "LOST") =>
    api(key).POST("/api/v1/sandbox/disputes/{id}/resolve", { ...byId(disputeId), body: { outcome } });
  /** The key's events, newest first; with `type`, only those (the events of that type, by the document's union). */
  async function events<T extends Event["type"]>(key: string, type?: T): Promise<Extract<Event, { type: T }>[]> {
    const page = await bodyOf(
      api(key).GET("/api/v1/events", { params: { query: { limit: 100, ...(type ? { type } : {}) } } }),
      200,
    );
    if (type) for (const event of page.data) expect(event.type).toBe(type);
    return page.data as Extract<Event, { type: T }>[];
  }

  async function waitingCharge(key: string, amountCents = 8990) {
    return bodyOf(api(key).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents }) }), 201);
  }
  async function paidCharge(key: string, amountCents = 8990) {
    const { id } = await waitingCharge(key, amountCents);
    expect((await pay(key, id)).status).toBe(200);
    return id;
  }
  async function fundedAccount(netCents = 100_000) {
    const ctx = await server.newAccount();
    await paidCharge(ctx.testKey, netCents + 80);
    expect((await release(ctx.testKey)).status).toBe(200);
    return ctx;
  }

  describe("production keys", () => {
    test.each([
      { name: "expire", send: (key: string, id: string) => expire(key, id) },
      { name: "dispute", send: (key: string, id: string) => dispute(key, id) },
      { name: "resolve", send: (key: string) => resolve(key, "dsp_any", "WON") },
      { name: "release", send: (key: string) => release(key) },
    ])("when $name is called with a production key, then 403 TEST_MODE_ONLY", async ({ send }) => {
      const { liveKey } = await server.newAccount();
      const { id } = await waitingCharge(liveKey as string);

      const res = await send(liveKey as string, id);

      expectStatus(res, 403);
      expect(res.body.code).toBe("TEST_MODE_ONLY");
      expect((await readCharge(liveKey as string, id)).status).toBe("WAITING_PAYMENT");
    });
  });

  describe("POST /api/v1/sandbox/transactions/{id}/expire", () => {
    test("when a waiting test charge is expired, then it reads EXPIRED now and can no longer be paid", async () => {
      const { testKey } = await server.newAccount();
      const { id } = await waitingCharge(testKey);

      const res = await expire(testKey, id);
      const paying = await pay(testKey, id);
      const listed = await bodyOf(
        api(testKey).GET("/api/v1/transactions", { params: { query: { status: "EXPIRED" } } }),
        200,
      );

      expectStatus(res, 200);
      expect(res.body).toMatchObject({ id, status: "EXPIRED", expiresAt: server.clock.now().toISOString() });
      expectStatus(paying, 400);
      expect(paying.body.code).toBe("REQUEST_ERROR");
      expect(listed.data.map((t) => t.id)).toContain(id);
    });

    test("when the charge is paid, cancelled or already expired, then 400 REQUEST_ERROR; unknown, then 404", async () => {
      const { testKey } = await server.newAccount();
      const paid = await paidCharge(testKey);
      const cancelled = await waitingCharge(testKey);
      expectStatus(await api(testKey).POST("/api/v1/transactions/{id}/cancel", byId(cancelled.id)), 200);
      const expired = await waitingCharge(testKey);
      expectStatus(await expire(testKey, expired.id), 200);

      for (const id of [paid, cancelled.id, expired.id]) {
        const res = await expire(testKey, id);
        expectStatus(res, 400);
        expect(res.body.code).toBe("REQUEST_ERROR");
      }
      expect((await expire(testKey, "txn_nope")).status).toBe(404);
      expect((await readCharge(testKey, paid)).status).toBe("PAID");
    });

    test("when expire is repeated with its idempotency-key, then the first answer is replayed", async () => {
      const { testKey } = await server.newAccount();
      const { id } = await waitingCharge(testKey);
      const first = await expire(testKey, id, "expira-1");
      const again = await expire(testKey, id, "expira-1");

      expect(first.status).toBe(200);
      expectStatus(again, 200);
      expect(again.body).toEqual(first.body);
    });
  });

  describe("disputes (MED)", () => {
    test("when a paid test charge is disputed, then the amount moves to blocked and dispute.opened carries the charge", async () => {
      const { testKey } = await fundedAccount();
      const id = await paidCharge(testKey);
      expectStatus(await release(testKey), 200);
      const before = await balance(testKey);

      const res = await dispute(testKey, id, { amountCents: 5000 });
      const after = await balance(testKey);
      const [opened] = await events(testKey, "dispute.opened");

      expectStatus(res, 201);
      expect(res.body.dispute).toMatchObject({ status: "OPEN", amountCents: 5000 });
      expect(res.body.dispute?.id).toMatch(/^dsp_/);
      expect(after.availableCents).toBe(before.availableCents - 5000);
      expect(after.blockedCents).toBe(before.blockedCents + 5000);
      expect(opened?.data.object).toEqual(res.body);
    });

    test("when the dispute is LOST, then the blocked amount leaves and dispute.closed says LOST", async () => {
      const { testKey } = await fundedAccount();
      const id = await paidCharge(testKey);
      const opened = await bodyOf(dispute(testKey, id), 201);
      const before = await balance(testKey);

      const res = await resolve(testKey, opened.dispute?.id as string, "LOST");
      const [closed] = await events(testKey, "dispute.closed");

      expectStatus(res, 200);
      expect(res.body.dispute).toMatchObject({ status: "LOST", amountCents: 8990 });
      expect(await balance(testKey)).toMatchObject({
        availableCents: before.availableCents,
        blockedCents: before.blockedCents - 8990,
      });
      expect(closed?.data.object.dispute?.status).toBe("LOST");
      expect(closed?.data.object.id).toBe(id);
    });

    test("when the dispute is WON, then the amount returns to available", async () => {
      const { testKey } = await fundedAccount();
      const id = await paidCharge(testKey);
      const before = await balance(testKey);
      const opened = await bodyOf(dispute(testKey, id, { amountCents: 3000 }), 201);
      const disputeId = opened.dispute?.id as string;

      const res = await resolve(testKey, disputeId, "WON");
      const again = await resolve(testKey, disputeId, "LOST");

      expectStatus(res, 200);
      expect(res.body.dispute?.status).toBe("WON");
      expect(await balance(testKey)).toEqual(before);
      expectStatus(again, 400);
      expect(again.body.code).toBe("REQUEST_ERROR");
    });

    test("when a charge is not paid, already disputed, or asked more than it holds after refunds, then 400 REQUEST_ERROR", async () => {
      const { testKey } = await fundedAccount();
      const waiting = await waitingCharge(testKey);
      const paid = await paidCharge(testKey);
      const refunded = await paidCharge(testKey);
      expectStatus(
        await api(testKey).POST("/api/v1/transactions/{id}/refunds", {
          ...byId(refunded),
          body: { amountCents: 2000 },
        }),
        201,
      );
      expectStatus(await dispute(testKey, paid, { amountCents: 100 }), 201);

      const notPaid = await dispute(testKey, waiting.id);
      const twice = await dispute(testKey, paid);
      const tooMuch = await dispute(testKey, refunded, { amountCents: 6991 });
      const rest = await dispute(testKey, refunded);

      for (const res of [notPaid, twice, tooMuch]) {
        expectStatus(res, 400);
        expect(res.body.code).toBe("REQUEST_ERROR");
      }
      expectStatus(rest, 201);
      expect(rest.body.dispute?.amountCents).toBe(6990);
    });

    test("when the dispute belongs to another account or is unknown, then 404 and it stays OPEN", async () => {
      const owner = await fundedAccount();
      const stranger = await server.newAccount();
      const id = await paidCharge(owner.testKey);
      const opened = await bodyOf(dispute(owner.testKey, id, { amountCents: 100 }), 201);

      const res = await resolve(stranger.testKey, opened.dispute?.id as string, "WON");
      const unknown = await resolve(owner.testKey, "dsp_nope", "WON");

      expect(res.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect((await readCharge(owner.testKey, id)).dispute?.status).toBe("OPEN");
    });

    test("when the outcome is not WON or LOST, then 400 VALIDATION_ERROR", async () => {
      const { testKey } = await server.newAccount();
      // An outcome the document refuses: sent untyped.
      const res = await rawCall<ErrorBody>(server.baseUrl, "POST", "/api/v1/sandbox/disputes/dsp_any/resolve", {
        key: testKey,
        body: { outcome: "DRAW" },
      });
      expectStatus(res, 400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    });
  });

  describe("POST /api/v1/sandbox/balance/release", () => {
    test("when pending money is released, then it is available now and withdrawable on day one", async () => {
      const { testKey } = await server.newAccount();
      await paidCharge(testKey);

      const released = await release(testKey);
      const withdrawal = await api(testKey).POST("/api/v1/withdrawals", {
        body: { amountCents: 8910, pixKey: "52998224725", pixKeyType: "CPF" },
      });

      expectStatus(released, 200);
      expect(released.body).toMatchObject({ availableCents: 8910, pendingCents: 0, livemode: false });
      expectStatus(withdrawal, 201);
      expect(withdrawal.body.status).toBe("PAID");
      expect(await balance(testKey)).toMatchObject({ availableCents: 0, pendingCents: 0 });
    });

    test("when the original release instant later passes, then nothing is counted twice", async () => {
      const { testKey } = await server.newAccount();
      await paidCharge(testKey);
      expectStatus(await release(testKey), 200);
      await paidCharge(testKey, 1080);

      server.clock.advance(2 * 86_400);

      expect(await balance(testKey)).toMatchObject({ availableCents: 8910 + 1000, pendingCents: 0 });
    });

    test("when nothing is pending, then release changes nothing", async () => {
      const { testKey } = await fundedAccount(5000);
      const before = await balance(testKey);

      const res = await release(testKey);

      expectStatus(res, 200);
      expect(res.body).toEqual(before);
    });
  });

  describe("magic Pix keys for test withdrawals", () => {
    const withdraw = (
      key: string,
      amountCents: number,
      pixKey: string,
      pixKeyType: components["schemas"]["PixKeyType"] = "EMAIL",
    ) => api(key).POST("/api/v1/withdrawals", { body: { amountCents, pixKey, pixKeyType } });

    test("when a test withdrawal goes to falha@sandbox.pix, then it ends FAILED with all of it back", async () => {
      const { testKey } = await fundedAccount(10_000);
      const before = await balance(testKey);

      const res = await withdraw(testKey, 5000, "falha@sandbox.pix");

      expectStatus(res, 201);
      expect(res.body).toMatchObject({ status: "FAILED", paidAmountCents: 0, returnedAmountCents: 5000 });
      expect(res.body.failureReason).toEqual(expect.any(String));
      expect(res.body.transfers.every((t) => t.status === "FAILED")).toBe(true);
      expect(await balance(testKey)).toEqual(before);
      expect((await events(testKey)).slice(0, 2).map((e) => e.type)).toEqual([
        "withdrawal.failed",
        "withdrawal.created",
      ]);
    });

    test("when a test withdrawal goes to parcial@sandbox.pix, then half of the net is paid (rounded down) and the rest is back", async () => {
      const { testKey } = await fundedAccount(10_000);
      const before = await balance(testKey);

      const res = await withdraw(testKey, 1001, "PARCIAL@sandbox.pix");

      expectStatus(res, 201);
      expect(res.body).toMatchObject({
        status: "PARTIALLY_PAID",
        netAmountCents: 921,
        paidAmountCents: 460,
        returnedAmountCents: 461,
      });
      expect(res.body.transfers.map((t) => [t.status, t.amountCents])).toEqual([
        ["PAID", 460],
        ["FAILED", 461],
      ]);
      expect((await balance(testKey)).availableCents).toBe(before.availableCents - 1001 + 461);
      expect((await events(testKey)).slice(0, 2).map((e) => e.type)).toEqual([
        "withdrawal.partially_paid",
        "withdrawal.created",
      ]);
    });

    test("when a test withdrawal goes to any other key, then it is PAID at once", async () => {
      const { testKey } = await fundedAccount(10_000);
      const res = await withdraw(testKey, 1000, "falha@sandbox.pix.example.com");
      const [paid] = await events(testKey, "withdrawal.paid");
      const [created] = await events(testKey, "withdrawal.created");
      const [newest, next] = (await events(testKey)).slice(0, 2);

      expectStatus(res, 201);
      expect(res.body.status).toBe("PAID");
      expect([newest?.type, next?.type]).toEqual(["withdrawal.paid", "withdrawal.created"]);
      expect([newest, next]).toEqual([paid, created]);
      expect(created?.data.object.transfers).toMatchObject([{ status: "PENDING", endToEndId: null }]);
      expect(paid?.data.object).toEqual(res.body);
      expect(paid?.data.object.transfers[0]?.id).toBe(created?.data.object.transfers[0]?.id);
    });

    test("when a failed sandbox withdrawal is made under a daily limit, then it does not count against the limit", async () => {
      const { addKey } = await fundedAccount(10_000);
      const limited = await addKey({
        permissions: ["withdrawals:write", "balance:read"],
        dailyWithdrawLimitCents: 3000,
      });

      const failed = await withdraw(limited.secret, 3000, "falha@sandbox.pix");
      const paid = await withdraw(limited.secret, 3000, "52998224725", "CPF");

      expectStatus(failed, 201);
      expect(failed.body.status).toBe("FAILED");
      expectStatus(paid, 201);
      expect(paid.body.status).toBe("PAID");
    });
  });
}

for (const store of eachStore("sandbox")) {
  store.describe(`sandbox on the ${store.name} store`, () => {
    sandboxSuite(store);
  });
}
