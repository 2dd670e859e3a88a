import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { allPermissions } from "../src/domain/accounts.js";
import { call, chargeBody, startTestServer, type TestServer, testAdminToken } from "./harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const admin = (method: string, path: string, body?: unknown) =>
  call(server.baseUrl, method, `/admin/v1${path}`, { admin: testAdminToken, body });
const api = (key: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  call(server.baseUrl, method, `/api/v1${path}`, { key, body, ...(headers ? { headers } : {}) });

async function balanceOf(key: string) {
  const res = await api(key, "GET", "/balance");
  expect(res.status).toBe(200);
  return res.body as { availableCents: number; pendingCents: number; blockedCents: number };
}

async function eventTypes(accountId: string, livemode: boolean) {
  return (await server.store.read.events.list({ accountId, livemode })).map((e) => e.type).sort();
}

describe("operator API security", () => {
  test("when the token is missing or wrong, then 401 UNAUTHORIZED in the error shape", async () => {
    const none = await call(server.baseUrl, "GET", "/admin/v1/accounts");
    const wrong = await call(server.baseUrl, "GET", "/admin/v1/accounts", { admin: "adm_wrong" });
    expect(none.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ ok: false, code: "UNAUTHORIZED", path: "/admin/v1/accounts" });
  });

  test("when the server has no ADMIN_TOKEN, then every operator route answers 404", async () => {
    const off = await startTestServer({ adminToken: "" });
    try {
      const res = await call(off.baseUrl, "GET", "/admin/v1/accounts", { admin: testAdminToken });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("NOT_FOUND");
    } finally {
      await off.close();
    }
  });

  test("when a body breaks the admin spec, then 400 VALIDATION_ERROR names the field and nothing is created", async () => {
    const before = (await admin("GET", "/accounts?limit=100")).body.data.length;
    const res = await admin("POST", "/accounts", { name: "X", ownerEmail: "not-an-email", surprise: 1 });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["name", "ownerEmail", "surprise"]);
    expect((await admin("GET", "/accounts?limit=100")).body.data.length).toBe(before);
  });

  test("when the public API key is used on the operator API, then 401", async () => {
    const { testKey } = await server.newAccount();
    const res = await call(server.baseUrl, "GET", "/admin/v1/accounts", { key: testKey });
    expect(res.status).toBe(401);
  });
});

describe("a production day through HTTP", () => {
  test("when an account is opened, verified, paid, released, withdrawn and settled, then every figure follows", async () => {
    // Open an unverified account: production keys are refused until verification.
    const opened = await admin("POST", "/accounts", {
      name: "Mercadinho Boa Vista",
      ownerEmail: "dona@boavista.example",
      releasePeriodDays: 2,
    });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ verified: false, releasePeriodDays: 2, plan: { chargeFeeCents: 80 } });
    const accountId = opened.body.id as string;
    const refused = await admin("POST", `/accounts/${accountId}/api-keys`, { name: "live", mode: "production" });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("ACCOUNT_NOT_ACTIVE");

    const verified = await admin("PATCH", `/accounts/${accountId}`, { verified: true, plan: { chargeFeeBps: 100 } });
    expect(verified.body).toMatchObject({ verified: true, plan: { chargeFeeCents: 80, chargeFeeBps: 100 } });

    // Keys: one with an IP list, one with a daily limit and withdrawals.
    const ipKey = await admin("POST", `/accounts/${accountId}/api-keys`, {
      name: "ip-limited",
      mode: "production",
      allowedIps: ["203.0.113.0/24"],
    });
    expect(ipKey.status).toBe(201);
    expect(ipKey.body.secret).toMatch(/^svc_(?!test_)/);
    expect(ipKey.body.permissions).not.toContain("withdrawals:write");
    const live = await admin("POST", `/accounts/${accountId}/api-keys`, {
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
    });
    const liveKey = live.body.secret as string;
    const listed = await admin("GET", `/accounts/${accountId}/api-keys`);
    expect(listed.body.data).toHaveLength(2);
    expect(JSON.stringify(listed.body)).not.toContain(liveKey);
    expect((await api(ipKey.body.secret, "GET", "/transactions")).body.code).toBe("API_KEY_IP");

    // A production charge, paid through the settlement simulator.
    const charge = await api(liveKey, "POST", "/charges/pix", chargeBody({ amountCents: 10_000 }));
    expect(charge.status).toBe(201);
    expect(charge.body).toMatchObject({ livemode: true, feeCents: 180, netAmountCents: 9820 });
    const sandbox = await api(liveKey, "POST", `/sandbox/transactions/${charge.body.id}/pay`);
    expect(sandbox.body.code).toBe("TEST_MODE_ONLY");
    const paid = await admin("POST", `/simulator/transactions/${charge.body.id}/pay`);
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe("PAID");
    expect(await balanceOf(liveKey)).toMatchObject({ availableCents: 0, pendingCents: 9820, blockedCents: 0 });
    expect(await eventTypes(accountId, true)).toEqual(["transaction.paid"]);

    // Release period: 2 days, through the clock routes.
    const clock = await admin("POST", "/clock/advance", { seconds: 2 * 86_400 });
    expect(clock.status).toBe(200);
    expect(clock.body.now).toBe(server.clock.now().toISOString());
    expect(await balanceOf(liveKey)).toMatchObject({ availableCents: 9820, pendingCents: 0 });

    // Withdraw within the daily limit: PENDING in production, owner notified.
    const overLimit = await api(liveKey, "POST", "/withdrawals", {
      amountCents: 6000,
      pixKey: "52998224725",
      pixKeyType: "CPF",
    });
    expect(overLimit.status).toBe(403);
    expect(overLimit.body.code).toBe("WITHDRAW_DAILY_LIMIT");
    const withdrawal = await api(liveKey, "POST", "/withdrawals", {
      amountCents: 5000,
      pixKey: "maria@example.com",
      pixKeyType: "EMAIL",
    });
    expect(withdrawal.status).toBe(201);
    expect(withdrawal.body).toMatchObject({
      status: "PENDING",
      livemode: true,
      amountCents: 5000,
      netAmountCents: 4920,
    });
    expect(server.mail.some((m) => m.to === "dona@boavista.example" && m.text.includes("R$ 50,00"))).toBe(true);
    expect(await balanceOf(liveKey)).toMatchObject({ availableCents: 4820 });

    // Settle partly: 3000 reach the destination, 1920 return to the balance.
    const settled = await admin("POST", `/simulator/withdrawals/${withdrawal.body.id}/settle`, {
      outcome: "PARTIALLY_PAID",
      paidAmountCents: 3000,
    });
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ status: "PARTIALLY_PAID", paidAmountCents: 3000, returnedAmountCents: 1920 });
    const read = await api(liveKey, "GET", `/withdrawals/${withdrawal.body.id}`);
    expect(read.body.status).toBe("PARTIALLY_PAID");
    expect(await balanceOf(liveKey)).toMatchObject({ availableCents: 6740 });
    expect(await eventTypes(accountId, true)).toEqual([
      "transaction.paid",
      "withdrawal.created",
      "withdrawal.partially_paid",
    ]);
    const again = await admin("POST", `/simulator/withdrawals/${withdrawal.body.id}/settle`, { outcome: "PAID" });
    expect(again.body.code).toBe("REQUEST_ERROR");

    // The returned part no longer counts against today's limit: 1920 of 5000 free again.
    const balance = await api(liveKey, "GET", "/balance");
    expect(balance.body.withdrawableNowCents).toBe(1920);
  });

  test.each([
    { outcome: "PAID", status: "PAID", available: 0, event: "withdrawal.paid" },
    { outcome: "FAILED", status: "FAILED", available: 1000, event: "withdrawal.failed" },
  ])(
    "when a withdrawal settles $outcome, then the balance and events follow",
    async ({ outcome, status, available, event }) => {
      const { account, liveKey } = await server.newAccount({ releasePeriodDays: 0 });
      const key = liveKey as string;
      const charge = await api(key, "POST", "/charges/pix", chargeBody({ amountCents: 1080 }));
      await admin("POST", `/simulator/transactions/${charge.body.id}/pay`);
      const w = await api(key, "POST", "/withdrawals", {
        amountCents: 1000,
        pixKey: "+5511987654321",
        pixKeyType: "PHONE",
      });
      expect(w.body.status).toBe("PENDING");

      const res = await admin("POST", `/simulator/withdrawals/${w.body.id}/settle`, { outcome });

      expect(res.body.status).toBe(status);
      expect((await balanceOf(key)).availableCents).toBe(available);
      expect(await eventTypes(account.id, true)).toContain(event);
    },
  );
});

describe("keys take effect on the next request", () => {
  test("when a key is revoked, then its next request is 401", async () => {
    const { account } = await server.newAccount();
    const key = await admin("POST", `/accounts/${account.id}/api-keys`, { name: "temp", mode: "test" });
    expect((await api(key.body.secret, "GET", "/balance")).status).toBe(200);

    const revoked = await admin("POST", `/api-keys/${key.body.id}/revoke`);

    expect(revoked.body.revokedAt).not.toBeNull();
    expect((await api(key.body.secret, "GET", "/balance")).status).toBe(401);
  });

  test("when permissions and IP list change, then the next request follows them", async () => {
    const { account } = await server.newAccount();
    const key = await admin("POST", `/accounts/${account.id}/api-keys`, { name: "k", mode: "test" });
    const secret = key.body.secret as string;
    expect((await api(secret, "GET", "/balance")).status).toBe(200);

    await admin("PATCH", `/api-keys/${key.body.id}`, { permissions: ["transactions:read"] });
    const denied = await api(secret, "GET", "/balance");
    expect(denied.body.code).toBe("API_KEY_PERMISSION");
    expect(denied.body.message).toContain("balance:read");

    await admin("PATCH", `/api-keys/${key.body.id}`, { allowedIps: ["10.0.0.0/8"] });
    expect((await api(secret, "GET", "/transactions")).body.code).toBe("API_KEY_IP");
    await admin("PATCH", `/api-keys/${key.body.id}`, { allowedIps: [] });
    expect((await api(secret, "GET", "/transactions")).status).toBe(200);
  });

  test("when a key is created and updated with every permission, then 201 and 200 and the key holds them all", async () => {
    const { account } = await server.newAccount();
    const every = [...allPermissions];
    expect(every).toHaveLength(10);

    const created = await admin("POST", `/accounts/${account.id}/api-keys`, {
      name: "all",
      mode: "test",
      permissions: every,
    });
    await admin("PATCH", `/api-keys/${created.body.id}`, { permissions: ["balance:read"] });
    const updated = await admin("PATCH", `/api-keys/${created.body.id}`, { permissions: every });

    expect(created.status).toBe(201);
    expect(updated.status).toBe(200);
    const keys = await admin("GET", `/accounts/${account.id}/api-keys`);
    expect(keys.body.data.find((k: { id: string }) => k.id === created.body.id).permissions).toEqual(every);
    const withdrawal = { amountCents: 600, pixKey: "maria.santos@example.com.br", pixKeyType: "EMAIL" };
    expect((await api(created.body.secret, "POST", "/withdrawals", withdrawal)).body.code).not.toBe(
      "API_KEY_PERMISSION",
    );
  });

  test("when an IP rule is malformed, then 400 names the item and the key is unchanged", async () => {
    const { account } = await server.newAccount();
    const key = await admin("POST", `/accounts/${account.id}/api-keys`, { name: "k", mode: "test" });
    const res = await admin("PATCH", `/api-keys/${key.body.id}`, { allowedIps: ["127.0.0.1", "300.1.1.1"] });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe("allowedIps.1");
    const keys = await admin("GET", `/accounts/${account.id}/api-keys`);
    expect(keys.body.data.find((k: { id: string }) => k.id === key.body.id).allowedIps).toEqual([]);
  });
});

describe("disputes (MED)", () => {
  async function paidAndReleased() {
    const ctx = await server.newAccount({ releasePeriodDays: 0 });
    const charge = await api(ctx.testKey, "POST", "/charges/pix", chargeBody({ amountCents: 10_000 }));
    await api(ctx.testKey, "POST", `/sandbox/transactions/${charge.body.id}/pay`);
    return { ...ctx, chargeId: charge.body.id as string };
  }

  test("when a MED opens and is WON, then the amount goes to blocked and comes back", async () => {
    const { testKey, chargeId } = await paidAndReleased();
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 9920, blockedCents: 0 });

    const opened = await admin("POST", `/simulator/transactions/${chargeId}/disputes`, { amountCents: 5000 });
    expect(opened.status).toBe(201);
    expect(opened.body.dispute).toMatchObject({ status: "OPEN", amountCents: 5000 });
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 4920, blockedCents: 5000 });
    expect((await api(testKey, "GET", `/transactions/${chargeId}`)).body.dispute.status).toBe("OPEN");

    const closed = await admin("POST", `/simulator/disputes/${opened.body.dispute.id}/close`, { outcome: "WON" });
    expect(closed.body.dispute.status).toBe("WON");
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 9920, blockedCents: 0 });
  });

  test("when a MED is LOST, then the blocked amount leaves the balance", async () => {
    const { testKey, chargeId } = await paidAndReleased();
    const opened = await admin("POST", `/simulator/transactions/${chargeId}/disputes`, { amountCents: 9000 });
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 920, blockedCents: 9000 });
    await admin("POST", `/simulator/disputes/${opened.body.dispute.id}/close`, { outcome: "LOST" });
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 920, blockedCents: 0 });
    const twice = await admin("POST", `/simulator/disputes/${opened.body.dispute.id}/close`, { outcome: "WON" });
    expect(twice.body.code).toBe("REQUEST_ERROR");
  });

  test("when the contested amount passes the available balance, then 400 and nothing moves", async () => {
    const { testKey, chargeId } = await paidAndReleased();
    const res = await admin("POST", `/simulator/transactions/${chargeId}/disputes`, {});
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("REQUEST_ERROR");
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 9920, blockedCents: 0 });
    expect((await api(testKey, "GET", `/transactions/${chargeId}`)).body.dispute).toBeUndefined();
  });
});

describe("webhook endpoints, notes and clock", () => {
  test("when an endpoint is created, then its secret shows once and matching events queue deliveries", async () => {
    const { account, testKey } = await server.newAccount();
    const created = await admin("POST", `/accounts/${account.id}/webhook-endpoints`, {
      // A public IP literal: this sandbox has no DNS, and no worker runs here, so nothing is sent.
      url: "https://93.184.215.14/webhook",
      mode: "test",
      events: ["transaction.paid"],
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    const list = await admin("GET", `/accounts/${account.id}/webhook-endpoints`);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);

    const charge = await api(testKey, "POST", "/charges/pix", chargeBody());
    await api(testKey, "POST", `/sandbox/transactions/${charge.body.id}/pay`);
    const deliveries = await admin("GET", `/webhook-endpoints/${created.body.id}/deliveries`);
    expect(deliveries.body.data).toHaveLength(1);
    const eventId = deliveries.body.data[0].eventId;

    const replay = await admin("POST", `/events/${eventId}/replay`);
    expect(replay.body.deliveries).toHaveLength(1);
    expect((await admin("GET", `/webhook-endpoints/${created.body.id}/deliveries`)).body.data).toHaveLength(2);

    const rotated = await admin("POST", `/webhook-endpoints/${created.body.id}/rotate-secret`);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect((await admin("DELETE", `/webhook-endpoints/${created.body.id}`)).status).toBe(204);
    expect((await admin("GET", `/webhook-endpoints/${created.body.id}/deliveries`)).status).toBe(404);
  });

  test("when a production endpoint is not https, then 400 on url", async () => {
    const { account } = await server.newAccount();
    const res = await admin("POST", `/accounts/${account.id}/webhook-endpoints`, {
      url: "http://loja.example.com/webhook",
      mode: "production",
      events: ["transaction.paid"],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe("url");
  });

  test("when notes and tags are set, then the operator reads them and the public API never shows them", async () => {
    const { testKey } = await server.newAccount();
    const customer = await api(testKey, "POST", "/customers", { name: "Maria", document: "52998224725" });
    const set = await admin("PUT", `/customers/${customer.body.id}/notes`, {
      notes: "Cliente VIP",
      tags: ["vip", "vip"],
    });
    expect(set.body).toEqual({ customerId: customer.body.id, notes: "Cliente VIP", tags: ["vip"] });
    expect((await admin("GET", `/customers/${customer.body.id}/notes`)).body.notes).toBe("Cliente VIP");
    const pub = await api(testKey, "GET", `/customers/${customer.body.id}`);
    expect(JSON.stringify(pub.body)).not.toContain("VIP");
  });

  test.each([
    { name: "a tag of 41 characters", tags: ["t".repeat(41)] },
    { name: "an empty tag", tags: [""] },
  ])("when notes carry $name, then 400 VALIDATION_ERROR on that tag and the notes stay unchanged", async ({ tags }) => {
    const { testKey } = await server.newAccount();
    const customer = await api(testKey, "POST", "/customers", { name: "Maria", document: "52998224725" });

    const res = await admin("PUT", `/customers/${customer.body.id}/notes`, { notes: "Cliente VIP", tags });

    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(["tags.0"]);
    expect((await admin("GET", `/customers/${customer.body.id}/notes`)).body).toMatchObject({ notes: null, tags: [] });
  });

  test("when the server runs with a manual clock, then GET /clock reads it", async () => {
    const res = await call(server.baseUrl, "GET", "/admin/v1/clock", { admin: testAdminToken });
    expect(res.status).toBe(200);
    expect(res.body.now).toBe(server.clock.now().toISOString());
  });
});
