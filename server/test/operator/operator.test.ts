import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { allPermissions } from "../../src/domain/accounts/index.js";
import {
  byId,
  chargeBody,
  type ErrorBody,
  expectStatus,
  operatorApi,
  publicApi,
  rawCall,
  startTestServer,
  type TestServer,
  testAdminToken,
} from "../harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const admin = () => operatorApi(server.baseUrl, { token: testAdminToken });
const api = (key: string) => publicApi(server.baseUrl, { key });

async function balanceOf(key: string) {
  const res = await api(key).GET("/api/v1/balance");
  expectStatus(res, 200);
  return res.body;
}

async function newCharge(key: string, amountCents = 8990) {
  const charge = await api(key).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents }) });
  expectStatus(charge, 201);
  return charge.body;
}

async function newKey(accountId: string, body: { name: string; mode: "test" | "production" }) {
  const key = await admin().POST("/admin/v1/accounts/{id}/api-keys", { ...byId(accountId), body });
  expectStatus(key, 201);
  return key.body;
}

async function eventTypes(accountId: string, livemode: boolean) {
  return (await server.store.read.events.list({ accountId, livemode })).map((e) => e.type).sort();
}

describe("operator API security", () => {
  test("when the token is missing or wrong, then 401 UNAUTHORIZED in the error shape", async () => {
    const none = await operatorApi(server.baseUrl).GET("/admin/v1/accounts");
    const wrong = await operatorApi(server.baseUrl, { token: "adm_wrong" }).GET("/admin/v1/accounts");
    expect(none.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ ok: false, code: "UNAUTHORIZED", path: "/admin/v1/accounts" });
  });

  test("when the server has no ADMIN_TOKEN, then every operator route answers 404", async () => {
    const off = await startTestServer({ adminToken: "" });
    try {
      // The operator API is not served: answers outside its document, untyped.
      const res = await rawCall<ErrorBody>(off.baseUrl, "GET", "/admin/v1/accounts", { admin: testAdminToken });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    } finally {
      await off.close();
    }
  });

  test("when a body breaks the admin spec, then 400 VALIDATION_ERROR names the field and nothing is created", async () => {
    const count = async () => {
      const accounts = await admin().GET("/admin/v1/accounts", { params: { query: { limit: 100 } } });
      expectStatus(accounts, 200);
      return accounts.body.data.length;
    };
    const before = await count();
    // A body the document refuses: untyped.
    const res = await rawCall<ErrorBody>(server.baseUrl, "POST", "/admin/v1/accounts", {
      admin: testAdminToken,
      body: { name: "X", ownerEmail: "not-an-email", surprise: 1 },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors?.map((e) => e.path).sort()).toEqual(["name", "ownerEmail", "surprise"]);
    expect(await count()).toBe(before);
  });

  test("when the public API key is used on the operator API, then 401", async () => {
    const { testKey } = await server.newAccount();
    const res = await operatorApi(server.baseUrl, { headers: { "x-api-key": testKey } }).GET("/admin/v1/accounts");
    expect(res.status).toBe(401);
  });
});

describe("a production day through HTTP", () => {
  test("when an account is opened, verified, paid, released, withdrawn and settled, then every figure follows", async () => {
    // Open an unverified account: production keys are refused until verification.
    const opened = await admin().POST("/admin/v1/accounts", {
      body: { name: "Mercadinho Boa Vista", ownerEmail: "dona@boavista.example", releasePeriodDays: 2 },
    });
    expectStatus(opened, 201);
    expect(opened.body).toMatchObject({ verified: false, releasePeriodDays: 2, plan: { chargeFeeCents: 80 } });
    const accountId = opened.body.id;
    const refused = await admin().POST("/admin/v1/accounts/{id}/api-keys", {
      ...byId(accountId),
      body: { name: "live", mode: "production" },
    });
    expectStatus(refused, 403);
    expect(refused.body.code).toBe("ACCOUNT_NOT_ACTIVE");

    const verified = await admin().PATCH("/admin/v1/accounts/{id}", {
      ...byId(accountId),
      body: { verified: true, plan: { chargeFeeBps: 100 } },
    });
    expect(verified.body).toMatchObject({ verified: true, plan: { chargeFeeCents: 80, chargeFeeBps: 100 } });

    // Keys: one with an IP list, one with a daily limit and withdrawals.
    const ipKey = await admin().POST("/admin/v1/accounts/{id}/api-keys", {
      ...byId(accountId),
      body: { name: "ip-limited", mode: "production", allowedIps: ["203.0.113.0/24"] },
    });
    expectStatus(ipKey, 201);
    expect(ipKey.body.secret).toMatch(/^svc_(?!test_)/);
    expect(ipKey.body.permissions).not.toContain("withdrawals:write");
    const live = await admin().POST("/admin/v1/accounts/{id}/api-keys", {
      ...byId(accountId),
      body: {
        name: "backend",
        mode: "production",
        permissions: [
          "charges:write",
          "transactions:read",
          "balance:read",
          "withdrawals:read",
          "withdrawals:write",
          "customers:read",
        ],
        dailyWithdrawLimitCents: 5000,
      },
    });
    expectStatus(live, 201);
    const liveKey = live.body.secret;
    const listed = await admin().GET("/admin/v1/accounts/{id}/api-keys", byId(accountId));
    expectStatus(listed, 200);
    expect(listed.body.data).toHaveLength(2);
    expect(JSON.stringify(listed.body)).not.toContain(liveKey);
    const fromElsewhere = await api(ipKey.body.secret).GET("/api/v1/transactions");
    expectStatus(fromElsewhere, 403);
    expect(fromElsewhere.body.code).toBe("API_KEY_IP");

    // A production charge, paid through the settlement simulator.
    const charge = await api(liveKey).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 10_000 }) });
    expectStatus(charge, 201);
    expect(charge.body).toMatchObject({ livemode: true, feeCents: 180, netAmountCents: 9820 });
    const sandbox = await api(liveKey).POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.body.id));
    expectStatus(sandbox, 403);
    expect(sandbox.body.code).toBe("TEST_MODE_ONLY");
    const paid = await admin().POST("/admin/v1/simulator/transactions/{id}/pay", byId(charge.body.id));
    expectStatus(paid, 200);
    expect(paid.body.status).toBe("PAID");
    expect(await balanceOf(liveKey)).toMatchObject({ availableCents: 0, pendingCents: 9820, blockedCents: 0 });
    expect(await eventTypes(accountId, true)).toEqual(["transaction.paid"]);

    // Release period: 2 days, through the clock routes.
    const clock = await admin().POST("/admin/v1/clock/advance", { body: { seconds: 2 * 86_400 } });
    expectStatus(clock, 200);
    expect(clock.body.now).toBe(server.clock.now().toISOString());
    expect(await balanceOf(liveKey)).toMatchObject({ availableCents: 9820, pendingCents: 0 });

    // Withdraw within the daily limit: PENDING in production, owner notified.
    const overLimit = await api(liveKey).POST("/api/v1/withdrawals", {
      body: { amountCents: 6000, pixKey: "52998224725", pixKeyType: "CPF" },
    });
    expectStatus(overLimit, 403);
    expect(overLimit.body.code).toBe("WITHDRAW_DAILY_LIMIT");
    const withdrawal = await api(liveKey).POST("/api/v1/withdrawals", {
      body: { amountCents: 5000, pixKey: "maria@example.com", pixKeyType: "EMAIL" },
    });
    expectStatus(withdrawal, 201);
    expect(withdrawal.body).toMatchObject({
      status: "PENDING",
      livemode: true,
      amountCents: 5000,
      netAmountCents: 4920,
    });
    expect(server.mail.some((m) => m.to === "dona@boavista.example" && m.text.includes("R$ 50,00"))).toBe(true);
    expect(await balanceOf(liveKey)).toMatchObject({ availableCents: 4820 });

    // Settle partly: 3000 reach the destination, 1920 return to the balance.
    const settled = await admin().POST("/admin/v1/simulator/withdrawals/{id}/settle", {
      ...byId(withdrawal.body.id),
      body: { outcome: "PARTIALLY_PAID", paidAmountCents: 3000 },
    });
    expectStatus(settled, 200);
    expect(settled.body).toMatchObject({ status: "PARTIALLY_PAID", paidAmountCents: 3000, returnedAmountCents: 1920 });
    const read = await api(liveKey).GET("/api/v1/withdrawals/{id}", byId(withdrawal.body.id));
    expectStatus(read, 200);
    expect(read.body.status).toBe("PARTIALLY_PAID");
    expect(await balanceOf(liveKey)).toMatchObject({ availableCents: 6740 });
    expect(await eventTypes(accountId, true)).toEqual([
      "transaction.paid",
      "withdrawal.created",
      "withdrawal.partially_paid",
    ]);
    const again = await admin().POST("/admin/v1/simulator/withdrawals/{id}/settle", {
      ...byId(withdrawal.body.id),
      body: { outcome: "PAID" },
    });
    expectStatus(again, 400);
    expect(again.body.code).toBe("REQUEST_ERROR");

    // The returned part no longer counts against today's limit: 1920 of 5000 free again.
    expect((await balanceOf(liveKey)).withdrawableNowCents).toBe(1920);
  });

  test.each([
    { outcome: "PAID", status: "PAID", available: 0, event: "withdrawal.paid" },
    { outcome: "FAILED", status: "FAILED", available: 1000, event: "withdrawal.failed" },
  ] as const)(
    "when a withdrawal settles $outcome, then the balance and events follow",
    async ({ outcome, status, available, event }) => {
      const { account, liveKey } = await server.newAccount({ releasePeriodDays: 0 });
      const key = liveKey as string;
      const charge = await newCharge(key, 1080);
      expectStatus(await admin().POST("/admin/v1/simulator/transactions/{id}/pay", byId(charge.id)), 200);
      const w = await api(key).POST("/api/v1/withdrawals", {
        body: { amountCents: 1000, pixKey: "+5511987654321", pixKeyType: "PHONE" },
      });
      expectStatus(w, 201);
      expect(w.body.status).toBe("PENDING");

      const res = await admin().POST("/admin/v1/simulator/withdrawals/{id}/settle", {
        ...byId(w.body.id),
        body: { outcome },
      });

      expectStatus(res, 200);
      expect(res.body.status).toBe(status);
      expect((await balanceOf(key)).availableCents).toBe(available);
      expect(await eventTypes(account.id, true)).toContain(event);
    },
  );
});

describe("keys take effect on the next request", () => {
  test("when a key is revoked, then its next request is 401", async () => {
    const { account } = await server.newAccount();
    const key = await newKey(account.id, { name: "temp", mode: "test" });
    expect((await api(key.secret).GET("/api/v1/balance")).status).toBe(200);

    const revoked = await admin().POST("/admin/v1/api-keys/{id}/revoke", byId(key.id));

    expectStatus(revoked, 200);
    expect(revoked.body.revokedAt).not.toBeNull();
    expect((await api(key.secret).GET("/api/v1/balance")).status).toBe(401);
  });

  test("when permissions and IP list change, then the next request follows them", async () => {
    const { account } = await server.newAccount();
    const key = await newKey(account.id, { name: "k", mode: "test" });
    const secret = key.secret;
    const change = async (body: { permissions?: ["transactions:read"]; allowedIps?: string[] }) =>
      expectStatus(await admin().PATCH("/admin/v1/api-keys/{id}", { ...byId(key.id), body }), 200);
    expect((await api(secret).GET("/api/v1/balance")).status).toBe(200);

    await change({ permissions: ["transactions:read"] });
    const denied = await api(secret).GET("/api/v1/balance");
    expectStatus(denied, 403);
    expect(denied.body.code).toBe("API_KEY_PERMISSION");
    expect(denied.body.message).toContain("balance:read");

    await change({ allowedIps: ["10.0.0.0/8"] });
    const outside = await api(secret).GET("/api/v1/transactions");
    expectStatus(outside, 403);
    expect(outside.body.code).toBe("API_KEY_IP");
    await change({ allowedIps: [] });
    expect((await api(secret).GET("/api/v1/transactions")).status).toBe(200);
  });

  test("when a key is created and updated with every permission, then 201 and 200 and the key holds them all", async () => {
    const { account } = await server.newAccount();
    const every = [...allPermissions];
    expect(every).toHaveLength(12);

    const created = await admin().POST("/admin/v1/accounts/{id}/api-keys", {
      ...byId(account.id),
      body: { name: "all", mode: "test", permissions: every },
    });
    expectStatus(created, 201);
    await admin().PATCH("/admin/v1/api-keys/{id}", {
      ...byId(created.body.id),
      body: { permissions: ["balance:read"] },
    });
    const updated = await admin().PATCH("/admin/v1/api-keys/{id}", {
      ...byId(created.body.id),
      body: { permissions: every },
    });

    expect(updated.status).toBe(200);
    const keys = await admin().GET("/admin/v1/accounts/{id}/api-keys", byId(account.id));
    expectStatus(keys, 200);
    expect(keys.body.data.find((k) => k.id === created.body.id)?.permissions).toEqual(every);
    const withdrawal = await api(created.body.secret).POST("/api/v1/withdrawals", {
      body: { amountCents: 600, pixKey: "maria.santos@example.com.br", pixKeyType: "EMAIL" },
    });
    expect(withdrawal.body).not.toMatchObject({ code: "API_KEY_PERMISSION" });
  });

  test("when an IP rule is malformed, then 400 names the item and the key is unchanged", async () => {
    const { account } = await server.newAccount();
    const key = await newKey(account.id, { name: "k", mode: "test" });
    const res = await admin().PATCH("/admin/v1/api-keys/{id}", {
      ...byId(key.id),
      body: { allowedIps: ["127.0.0.1", "300.1.1.1"] },
    });
    expectStatus(res, 400);
    expect(res.body.errors?.[0]?.path).toBe("allowedIps.1");
    const keys = await admin().GET("/admin/v1/accounts/{id}/api-keys", byId(account.id));
    expectStatus(keys, 200);
    expect(keys.body.data.find((k) => k.id === key.id)?.allowedIps).toEqual([]);
  });
});
