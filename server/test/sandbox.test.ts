import { describe, expect, test } from "vitest";
import { call, chargeBody } from "./harness.js";
import { eachStore, serverOn, type StoreUnderTest } from "./support/stores.js";

// The sandbox plays every outcome with test keys: expiry, disputes (MED), the end of the release
// period, and failed or partial withdrawals through magic Pix keys. Runs on both stores.

function sandboxSuite(store: StoreUnderTest) {
  const server = serverOn(store);

  const get = (key: string, path: string) => call(server.baseUrl, "GET", path, { key });
  const post = (key: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(server.baseUrl, "POST", path, { key, body, headers });
  const balance = async (key: string) => (await get(key, "/api/v1/balance")).body;
  const events = async (key: string, type?: string) =>
    (await get(key, `/api/v1/events?limit=100${type ? `&type=${type}` : ""}`)).body.data as {
      type: string;
      data: { object: any };
    }[];

  async function waitingCharge(key: string, amountCents = 8990) {
    const created = await post(key, "/api/v1/charges/pix", chargeBody({ amountCents }));
    expect(created.status).toBe(201);
    return created.body as { id: string };
  }
  async function paidCharge(key: string, amountCents = 8990) {
    const { id } = await waitingCharge(key, amountCents);
    expect((await post(key, `/api/v1/sandbox/transactions/${id}/pay`)).status).toBe(200);
    return id;
  }
  async function fundedAccount(netCents = 100_000) {
    const ctx = await server.newAccount();
    await paidCharge(ctx.testKey, netCents + 80);
    expect((await post(ctx.testKey, "/api/v1/sandbox/balance/release")).status).toBe(200);
    return ctx;
  }

  describe("production keys", () => {
    test.each([
      { name: "expire", path: (id: string) => `/api/v1/sandbox/transactions/${id}/expire`, body: undefined },
      { name: "dispute", path: (id: string) => `/api/v1/sandbox/transactions/${id}/dispute`, body: {} },
      { name: "resolve", path: () => "/api/v1/sandbox/disputes/dsp_any/resolve", body: { outcome: "WON" } },
      { name: "release", path: () => "/api/v1/sandbox/balance/release", body: undefined },
    ])("when $name is called with a production key, then 403 TEST_MODE_ONLY", async ({ path, body }) => {
      const { liveKey } = await server.newAccount();
      const { id } = await waitingCharge(liveKey as string);

      const res = await post(liveKey as string, path(id), body);

      expect(res.status).toBe(403);
      expect(res.body.code).toBe("TEST_MODE_ONLY");
      expect((await get(liveKey as string, `/api/v1/transactions/${id}`)).body.status).toBe("WAITING_PAYMENT");
    });
  });

  describe("POST /api/v1/sandbox/transactions/{id}/expire", () => {
    test("when a waiting test charge is expired, then it reads EXPIRED now and can no longer be paid", async () => {
      const { testKey } = await server.newAccount();
      const { id } = await waitingCharge(testKey);

      const res = await post(testKey, `/api/v1/sandbox/transactions/${id}/expire`);
      const pay = await post(testKey, `/api/v1/sandbox/transactions/${id}/pay`);
      const listed = await get(testKey, "/api/v1/transactions?status=EXPIRED");

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, status: "EXPIRED", expiresAt: server.clock.now().toISOString() });
      expect(pay.status).toBe(400);
      expect(pay.body.code).toBe("REQUEST_ERROR");
      expect(listed.body.data.map((t: { id: string }) => t.id)).toContain(id);
    });

    test("when the charge is paid, cancelled or already expired, then 400 REQUEST_ERROR; unknown, then 404", async () => {
      const { testKey } = await server.newAccount();
      const paid = await paidCharge(testKey);
      const cancelled = await waitingCharge(testKey);
      await post(testKey, `/api/v1/transactions/${cancelled.id}/cancel`);
      const expired = await waitingCharge(testKey);
      await post(testKey, `/api/v1/sandbox/transactions/${expired.id}/expire`);

      for (const id of [paid, cancelled.id, expired.id]) {
        const res = await post(testKey, `/api/v1/sandbox/transactions/${id}/expire`);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe("REQUEST_ERROR");
      }
      expect((await post(testKey, "/api/v1/sandbox/transactions/txn_nope/expire")).status).toBe(404);
      expect((await get(testKey, `/api/v1/transactions/${paid}`)).body.status).toBe("PAID");
    });

    test("when expire is repeated with its idempotency-key, then the first answer is replayed", async () => {
      const { testKey } = await server.newAccount();
      const { id } = await waitingCharge(testKey);
      const headers = { "idempotency-key": "expira-1" };

      const first = await post(testKey, `/api/v1/sandbox/transactions/${id}/expire`, undefined, headers);
      const again = await post(testKey, `/api/v1/sandbox/transactions/${id}/expire`, undefined, headers);

      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
    });
  });

  describe("disputes (MED)", () => {
    test("when a paid test charge is disputed, then the amount moves to blocked and dispute.opened carries the charge", async () => {
      const { testKey } = await fundedAccount();
      const id = await paidCharge(testKey);
      await post(testKey, "/api/v1/sandbox/balance/release");
      const before = await balance(testKey);

      const res = await post(testKey, `/api/v1/sandbox/transactions/${id}/dispute`, { amountCents: 5000 });
      const after = await balance(testKey);
      const [opened] = await events(testKey, "dispute.opened");

      expect(res.status).toBe(201);
      expect(res.body.dispute).toMatchObject({ status: "OPEN", amountCents: 5000 });
      expect(res.body.dispute.id).toMatch(/^dsp_/);
      expect(after.availableCents).toBe(before.availableCents - 5000);
      expect(after.blockedCents).toBe(before.blockedCents + 5000);
      expect(opened?.data.object).toEqual(res.body);
    });

    test("when the dispute is LOST, then the blocked amount leaves and dispute.closed says LOST", async () => {
      const { testKey } = await fundedAccount();
      const id = await paidCharge(testKey);
      const opened = await post(testKey, `/api/v1/sandbox/transactions/${id}/dispute`, {});
      const before = await balance(testKey);

      const res = await post(testKey, `/api/v1/sandbox/disputes/${opened.body.dispute.id}/resolve`, {
        outcome: "LOST",
      });
      const [closed] = await events(testKey, "dispute.closed");

      expect(res.status).toBe(200);
      expect(res.body.dispute).toMatchObject({ status: "LOST", amountCents: 8990 });
      expect(await balance(testKey)).toMatchObject({
        availableCents: before.availableCents,
        blockedCents: before.blockedCents - 8990,
      });
      expect(closed?.data.object.dispute.status).toBe("LOST");
      expect(closed?.data.object.id).toBe(id);
    });

    test("when the dispute is WON, then the amount returns to available", async () => {
      const { testKey } = await fundedAccount();
      const id = await paidCharge(testKey);
      const before = await balance(testKey);
      const opened = await post(testKey, `/api/v1/sandbox/transactions/${id}/dispute`, { amountCents: 3000 });

      const res = await post(testKey, `/api/v1/sandbox/disputes/${opened.body.dispute.id}/resolve`, {
        outcome: "WON",
      });
      const again = await post(testKey, `/api/v1/sandbox/disputes/${opened.body.dispute.id}/resolve`, {
        outcome: "LOST",
      });

      expect(res.body.dispute.status).toBe("WON");
      expect(await balance(testKey)).toEqual(before);
      expect(again.status).toBe(400);
      expect(again.body.code).toBe("REQUEST_ERROR");
    });

    test("when a charge is not paid, already disputed, or asked more than it holds after refunds, then 400 REQUEST_ERROR", async () => {
      const { testKey } = await fundedAccount();
      const waiting = await waitingCharge(testKey);
      const paid = await paidCharge(testKey);
      const refunded = await paidCharge(testKey);
      await post(testKey, `/api/v1/transactions/${refunded}/refunds`, { amountCents: 2000 });
      await post(testKey, `/api/v1/sandbox/transactions/${paid}/dispute`, { amountCents: 100 });

      const notPaid = await post(testKey, `/api/v1/sandbox/transactions/${waiting.id}/dispute`, {});
      const twice = await post(testKey, `/api/v1/sandbox/transactions/${paid}/dispute`, {});
      const tooMuch = await post(testKey, `/api/v1/sandbox/transactions/${refunded}/dispute`, { amountCents: 6991 });
      const rest = await post(testKey, `/api/v1/sandbox/transactions/${refunded}/dispute`, {});

      for (const res of [notPaid, twice, tooMuch]) {
        expect(res.status).toBe(400);
        expect(res.body.code).toBe("REQUEST_ERROR");
      }
      expect(rest.status).toBe(201);
      expect(rest.body.dispute.amountCents).toBe(6990);
    });

    test("when the dispute belongs to another account or is unknown, then 404 and it stays OPEN", async () => {
      const owner = await fundedAccount();
      const stranger = await server.newAccount();
      const id = await paidCharge(owner.testKey);
      const opened = await post(owner.testKey, `/api/v1/sandbox/transactions/${id}/dispute`, { amountCents: 100 });

      const res = await post(stranger.testKey, `/api/v1/sandbox/disputes/${opened.body.dispute.id}/resolve`, {
        outcome: "WON",
      });
      const unknown = await post(owner.testKey, "/api/v1/sandbox/disputes/dsp_nope/resolve", { outcome: "WON" });

      expect(res.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect((await get(owner.testKey, `/api/v1/transactions/${id}`)).body.dispute.status).toBe("OPEN");
    });

    test("when the outcome is not WON or LOST, then 400 VALIDATION_ERROR", async () => {
      const { testKey } = await server.newAccount();
      const res = await post(testKey, "/api/v1/sandbox/disputes/dsp_any/resolve", { outcome: "DRAW" });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    });
  });

  describe("POST /api/v1/sandbox/balance/release", () => {
    test("when pending money is released, then it is available now and withdrawable on day one", async () => {
      const { testKey } = await server.newAccount();
      await paidCharge(testKey);

      const released = await post(testKey, "/api/v1/sandbox/balance/release");
      const withdrawal = await post(testKey, "/api/v1/withdrawals", {
        amountCents: 8910,
        pixKey: "52998224725",
        pixKeyType: "CPF",
      });

      expect(released.status).toBe(200);
      expect(released.body).toMatchObject({ availableCents: 8910, pendingCents: 0, livemode: false });
      expect(withdrawal.status).toBe(201);
      expect(withdrawal.body.status).toBe("PAID");
      expect(await balance(testKey)).toMatchObject({ availableCents: 0, pendingCents: 0 });
    });

    test("when the original release instant later passes, then nothing is counted twice", async () => {
      const { testKey } = await server.newAccount();
      await paidCharge(testKey);
      await post(testKey, "/api/v1/sandbox/balance/release");
      await paidCharge(testKey, 1080);

      server.clock.advance(2 * 86_400);

      expect(await balance(testKey)).toMatchObject({ availableCents: 8910 + 1000, pendingCents: 0 });
    });

    test("when nothing is pending, then release changes nothing", async () => {
      const { testKey } = await fundedAccount(5000);
      const before = await balance(testKey);

      const res = await post(testKey, "/api/v1/sandbox/balance/release");

      expect(res.status).toBe(200);
      expect(res.body).toEqual(before);
    });
  });

  describe("magic Pix keys for test withdrawals", () => {
    const withdraw = (key: string, amountCents: number, pixKey: string, pixKeyType = "EMAIL") =>
      post(key, "/api/v1/withdrawals", { amountCents, pixKey, pixKeyType });

    test("when a test withdrawal goes to falha@sandbox.pix, then it ends FAILED with all of it back", async () => {
      const { testKey } = await fundedAccount(10_000);
      const before = await balance(testKey);

      const res = await withdraw(testKey, 5000, "falha@sandbox.pix");

      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: "FAILED", paidAmountCents: 0, returnedAmountCents: 5000 });
      expect(res.body.failureReason).toEqual(expect.any(String));
      expect(res.body.transfers.every((t: { status: string }) => t.status === "FAILED")).toBe(true);
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

      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status: "PARTIALLY_PAID",
        netAmountCents: 921,
        paidAmountCents: 460,
        returnedAmountCents: 461,
      });
      expect(res.body.transfers.map((t: { status: string; amountCents: number }) => [t.status, t.amountCents])).toEqual(
        [
          ["PAID", 460],
          ["FAILED", 461],
        ],
      );
      expect((await balance(testKey)).availableCents).toBe(before.availableCents - 1001 + 461);
      expect((await events(testKey)).slice(0, 2).map((e) => e.type)).toEqual([
        "withdrawal.partially_paid",
        "withdrawal.created",
      ]);
    });

    test("when a test withdrawal goes to any other key, then it is PAID at once", async () => {
      const { testKey } = await fundedAccount(10_000);
      const res = await withdraw(testKey, 1000, "falha@sandbox.pix.example.com");
      const [paid, created] = (await events(testKey)).slice(0, 2);

      expect(res.body.status).toBe("PAID");
      expect([paid?.type, created?.type]).toEqual(["withdrawal.paid", "withdrawal.created"]);
      expect(created?.data.object.transfers).toMatchObject([{ status: "PENDING", endToEndId: null }]);
      expect(paid?.data.object).toEqual(res.body);
      expect(paid?.data.object.transfers[0].id).toBe(created?.data.object.transfers[0].id);
    });

    test("when a failed sandbox withdrawal is made under a daily limit, then it does not count against the limit", async () => {
      const { addKey } = await fundedAccount(10_000);
      const limited = await addKey({
        permissions: ["withdrawals:write", "balance:read"],
        dailyWithdrawLimitCents: 3000,
      });

      const failed = await withdraw(limited.secret, 3000, "falha@sandbox.pix");
      const paid = await withdraw(limited.secret, 3000, "52998224725", "CPF");

      expect(failed.body.status).toBe("FAILED");
      expect(paid.status).toBe(201);
      expect(paid.body.status).toBe("PAID");
    });
  });
}

for (const store of eachStore("sandbox")) {
  store.describe(`sandbox on the ${store.name} store`, () => {
    sandboxSuite(store);
  });
}
