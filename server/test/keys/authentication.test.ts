import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type OperationId, operationIds, operationTable } from "../../../generated/operations.js";
import type { ApiKeyRecord } from "../../src/domain/core/model.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import {
  chargeBody,
  type ErrorBody,
  expectStatus,
  publicApi,
  rawCall,
  startTestServer,
  type TestAccount,
  type TestServer,
} from "../harness.js";
import { dateAfter, recurrenceBody, testToday } from "../support/recurrences.js";

let server: TestServer;
let proxied: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  proxied = await startTestServer({ trustProxy: 1 });
});
afterAll(async () => {
  await server.close();
  await proxied.close();
});

/** Every permission a key can hold. */
const seedPermissions = [
  "charges:write",
  "transactions:read",
  "payment_links:read",
  "payment_links:write",
  "customers:read",
  "customers:write",
  "balance:read",
  "withdrawals:read",
  "withdrawals:write",
];
const allBut = (permission: string) => seedPermissions.filter((p) => p !== permission);

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const api = (key: string) => publicApi(server.baseUrl, { key });
const balance = (key: string | null, headers: Record<string, string> = {}, on: TestServer = server) =>
  publicApi(on.baseUrl, { ...(key !== null ? { key } : {}), headers }).GET("/api/v1/balance");
const createCharge = (key: string) => api(key).POST("/api/v1/charges/pix", { body: chargeBody() });
/** A charge that must be created. */
async function newCharge(key: string) {
  const created = await createCharge(key);
  expectStatus(created, 201);
  return created.body;
}
const chargePath = (id: string) => `/api/v1/transactions/${id}`;
const getCharge = (key: string, id: string) => api(key).GET("/api/v1/transactions/{id}", { params: { path: { id } } });

async function keyRecord(on: TestServer, accountId: string, keyId: string): Promise<ApiKeyRecord> {
  const keys = await on.store.read.apiKeys.listByAccount(accountId);
  const key = keys.find((k) => k.id === keyId);
  if (!key) throw new Error(`no key ${keyId}`);
  return key;
}

async function changeKey(accountId: string, keyId: string, change: Partial<ApiKeyRecord>): Promise<void> {
  const key = await keyRecord(server, accountId, keyId);
  await server.store.transaction((tx) => tx.apiKeys.update({ ...key, ...change }));
}

async function listIds(key: string, path: "/api/v1/transactions" | "/api/v1/withdrawals"): Promise<string[]> {
  const res = await api(key).GET(path, { params: { query: { limit: 100 } } });
  expectStatus(res, 200);
  return res.body.data.map((item) => item.id);
}

/** An error body with its instant removed, for comparing two refusals. */
function withoutTimestamp(body: Record<string, unknown>) {
  const { timestamp: _timestamp, ...rest } = body;
  return rest;
}

function expectRefusal(
  res: { status: number; body: unknown },
  status: number,
  code: string,
  path: string,
): asserts res is { status: number; body: ErrorBody } {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ ok: false, code, path });
  expect((res.body as ErrorBody).timestamp).toMatch(/Z$/);
}

describe("API key presentation", () => {
  test("when the key comes in x-api-key, then the call is authenticated", async () => {
    const { testKey } = await server.newAccount();

    const res = await balance(testKey);

    expectStatus(res, 200);
    expect(res.body.livemode).toBe(false);
  });

  test.each([
    { name: "Bearer", scheme: "Bearer" },
    { name: "lower-case bearer", scheme: "bearer" },
  ])("when the key comes in Authorization with $name, then the call is authenticated", async ({ scheme }) => {
    const { testKey } = await server.newAccount();

    const res = await balance(null, {
      authorization: `${scheme} ${testKey}`,
    });

    expectStatus(res, 200);
    expect(res.body.livemode).toBe(false);
  });

  test("when a svc_test_ key is used, then livemode is false; when a svc_ key is used, then livemode is true", async () => {
    const { testKey, liveKey } = await server.newAccount();
    expect(testKey.startsWith("svc_test_")).toBe(true);
    expect(liveKey?.startsWith("svc_")).toBe(true);
    expect(liveKey?.startsWith("svc_test_")).toBe(false);

    const testCharge = await createCharge(testKey);
    const liveCharge = await createCharge(liveKey as string);
    const testBalance = await balance(testKey);
    const liveBalance = await balance(liveKey as string);

    expectStatus(testCharge, 201);
    expect(testCharge.body.livemode).toBe(false);
    expectStatus(liveCharge, 201);
    expect(liveCharge.body.livemode).toBe(true);
    expectStatus(testBalance, 200);
    expect(testBalance.body.livemode).toBe(false);
    expectStatus(liveBalance, 200);
    expect(liveBalance.body.livemode).toBe(true);
  });
});

describe("401 UNAUTHORIZED", () => {
  test.each([
    {
      name: "an unknown test key is sent",
      headers: { "x-api-key": `svc_test_${"A".repeat(32)}` },
    },
    {
      name: "an unknown production key is sent",
      headers: { "x-api-key": `svc_${"B".repeat(32)}` },
    },
    {
      name: "a key without our prefix is sent",
      headers: { "x-api-key": "sk_live_1234567890abcdef" },
    },
    { name: "an empty x-api-key is sent", headers: { "x-api-key": "" } },
    {
      name: "Authorization uses the Basic scheme",
      headers: { authorization: "Basic c3ZjX3Rlc3RfYWJjOnBhc3M=" },
    },
    {
      name: "Authorization is Bearer with no token",
      headers: { authorization: "Bearer " },
    },
    {
      name: "Authorization is Bearer with two tokens",
      headers: { authorization: "Bearer svc_test_a svc_test_b" },
    },
  ] as { name: string; headers: Record<string, string> }[])(
    "when $name, then 401 UNAUTHORIZED with the same body as a missing key",
    async ({ headers }) => {
      const missing = await balance(null);

      const res = await balance(null, headers);

      expectRefusal(missing, 401, "UNAUTHORIZED", "/api/v1/balance");
      expectRefusal(res, 401, "UNAUTHORIZED", "/api/v1/balance");
      expect(res.body.errors).toBeUndefined();
      expect(withoutTimestamp(res.body)).toEqual(withoutTimestamp(missing.body));
    },
  );

  test("when a real test key has its prefix changed to claim production, then 401 like any unknown key", async () => {
    const { testKey } = await server.newAccount();
    const missing = await balance(null);

    const res = await balance(testKey.replace(/^svc_test_/, "svc_"));

    expectStatus(res, 401);
    expectStatus(missing, 401);
    expect(withoutTimestamp(res.body)).toEqual(withoutTimestamp(missing.body));
  });

  test("when a key is revoked, then the very next request is 401 with the same body as a missing key and changes nothing", async () => {
    const { account, testKey, addKey } = await server.newAccount();
    const { id, secret } = await addKey({ permissions: [...seedPermissions] });
    expect((await balance(secret)).status).toBe(200);
    const missing = await balance(null);

    await changeKey(account.id, id, {
      revokedAt: server.clock.now().toISOString(),
    });
    const read = await balance(secret);
    const write = await createCharge(secret);

    expectStatus(read, 401);
    expectStatus(missing, 401);
    expect(withoutTimestamp(read.body)).toEqual(withoutTimestamp(missing.body));
    expectRefusal(write, 401, "UNAUTHORIZED", "/api/v1/charges/pix");
    expect(await listIds(testKey, "/api/v1/transactions")).toEqual([]);
    expect((await balance(testKey)).status).toBe(200);
  });
});

describe("Data separation: 404 NOT_FOUND, never 403", () => {
  type Owner = { owner: TestAccount; other: TestAccount };
  test.each([
    {
      name: "a production charge is read with the test key of its account",
      charge: ({ owner }: Owner) => owner.liveKey as string,
      reader: ({ owner }: Owner) => owner.testKey,
    },
    {
      name: "a test charge is read with the production key of its account",
      charge: ({ owner }: Owner) => owner.testKey,
      reader: ({ owner }: Owner) => owner.liveKey as string,
    },
    {
      name: "a test charge is read with the test key of another account",
      charge: ({ owner }: Owner) => owner.testKey,
      reader: ({ other }: Owner) => other.testKey,
    },
    {
      name: "a production charge is read with the production key of another account",
      charge: ({ owner }: Owner) => owner.liveKey as string,
      reader: ({ other }: Owner) => other.liveKey as string,
    },
  ])("when $name, then get and cancel answer 404 and lists leave it out", async ({ charge, reader }) => {
    const keys = {
      owner: await server.newAccount(),
      other: await server.newAccount(),
    };
    const ownerKey = charge(keys);
    const readerKey = reader(keys);
    const created = await newCharge(ownerKey);
    const id = created.id;
    await newCharge(readerKey);

    const get = await getCharge(readerKey, id);
    const cancel = await api(readerKey).POST("/api/v1/transactions/{id}/cancel", { params: { path: { id } } });
    const listed = await listIds(readerKey, "/api/v1/transactions");
    const customers = await api(readerKey).GET("/api/v1/customers", { params: { query: { document: "52998224725" } } });

    expectRefusal(get, 404, "NOT_FOUND", chargePath(id));
    expectRefusal(cancel, 404, "NOT_FOUND", `${chargePath(id)}/cancel`);
    expect(listed).toHaveLength(1);
    expect(listed).not.toContain(id);
    expectStatus(customers, 200);
    expect(customers.body.data).toHaveLength(1);
    expect(customers.body.data[0]?.id).not.toBe(created.customer.id);
    const after = await getCharge(ownerKey, id);
    expectStatus(after, 200);
    expect(after.body.status).toBe("WAITING_PAYMENT");
  });

  test.each([
    {
      name: "a production charge is paid in the sandbox with the test key of its account",
      charge: (owner: TestAccount) => owner.liveKey as string,
      reader: (owner: TestAccount) => owner.testKey,
    },
    {
      name: "a test charge is paid in the sandbox with the test key of another account",
      charge: (owner: TestAccount) => owner.testKey,
      reader: (_owner: TestAccount, other: TestAccount) => other.testKey,
    },
  ])("when $name, then 404 NOT_FOUND and the charge stays unpaid", async ({ charge, reader }) => {
    const owner = await server.newAccount();
    const other = await server.newAccount();
    const { id } = await newCharge(charge(owner));

    const res = await api(reader(owner, other)).POST("/api/v1/sandbox/transactions/{id}/pay", {
      params: { path: { id } },
    });

    expectRefusal(res, 404, "NOT_FOUND", `/api/v1/sandbox/transactions/${id}/pay`);
    const after = await getCharge(charge(owner), id);
    expect(after.body).toMatchObject({
      status: "WAITING_PAYMENT",
      paidAt: null,
    });
  });

  test.each([
    { name: "its own production charge", charge: "live" },
    { name: "a test charge of its account", charge: "test" },
    { name: "an id that exists nowhere", charge: "none" },
  ])(
    "when a production key pays $name in the sandbox, then 403 TEST_MODE_ONLY and nothing changes",
    async ({ charge }) => {
      const { testKey, liveKey } = await server.newAccount();
      const ownerKey = charge === "live" ? (liveKey as string) : testKey;
      const created = await newCharge(ownerKey);
      const id = charge === "none" ? "txn_naoexiste00000000000" : created.id;
      const path = `/api/v1/sandbox/transactions/${id}/pay`;

      const res = await api(liveKey as string).POST("/api/v1/sandbox/transactions/{id}/pay", {
        params: { path: { id } },
      });

      expectRefusal(res, 403, "TEST_MODE_ONLY", path);
      const after = await getCharge(ownerKey, created.id);
      expect(after.body).toMatchObject({
        status: "WAITING_PAYMENT",
        paidAt: null,
      });
      for (const key of [liveKey as string, testKey]) {
        const read = await balance(key);
        expectStatus(read, 200);
        expect(read.body.pendingCents).toBe(0);
      }
    },
  );
});

interface Fixture {
  waitingChargeId: string;
  linkId: string;
  customerId: string;
  withdrawalId: string;
  paidChargeId: string;
  refundId: string;
  disputeId: string;
  eventId: string;
  /** A CREATED recurrence (journey 2). */
  recurrenceId: string;
  /** An APPROVED recurrence with automatic charges whose first cycle (`cycleDate`) has no charge yet. */
  approvedRecurrenceId: string;
  cycleDate: string;
  /** A cycle charge with its attempt SCHEDULED. */
  cycleChargeId: string;
}

/** A minimal valid request for every operation of the contract; a new operation without one fails to compile. */
const minimalRequests = {
  cancelTransaction: (f) => ({ id: f.waitingChargeId }),
  createPaymentLink: () => ({
    body: { amountCents: 5000, description: "Curso de fotografia" },
  }),
  createPixCharge: () => ({ body: chargeBody() }),
  createDueDateCharge: () => ({ body: { ...chargeBody(), dueDate: "2030-12-13" } }),
  createWithdrawal: () => ({
    body: {
      amountCents: 1000,
      pixKey: "maria.santos@example.com.br",
      pixKeyType: "EMAIL",
    },
  }),
  deactivatePaymentLink: (f) => ({ id: f.linkId }),
  getBalance: () => ({}),
  getCustomer: (f) => ({ id: f.customerId }),
  getPaymentLink: (f) => ({ id: f.linkId }),
  getTransaction: (f) => ({ id: f.waitingChargeId }),
  getWithdrawal: (f) => ({ id: f.withdrawalId }),
  listCustomers: () => ({}),
  listPaymentLinks: () => ({}),
  listTransactions: () => ({}),
  listWithdrawals: () => ({}),
  simulatePayment: (f) => ({ id: f.waitingChargeId }),
  updateCustomer: (f) => ({
    id: f.customerId,
    body: { name: "Maria Santos Oliveira" },
  }),
  upsertCustomer: () => ({
    body: { name: "João Pereira", document: "11222333000181" },
  }),
  createRefund: (f) => ({ id: f.paidChargeId, body: { amountCents: 1000 } }),
  listTransactionRefunds: (f) => ({ id: f.paidChargeId }),
  getRefund: (f) => ({ id: f.refundId }),
  simulateExpiry: (f) => ({ id: f.waitingChargeId }),
  simulateDispute: (f) => ({ id: f.paidChargeId, body: { amountCents: 500 } }),
  simulateDisputeResolution: (f) => ({ id: f.disputeId, body: { outcome: "WON" } }),
  simulateBalanceRelease: () => ({}),
  listEvents: () => ({}),
  getEvent: (f) => ({ id: f.eventId }),
  createRecurrence: () => ({ body: recurrenceBody() }),
  listRecurrences: () => ({}),
  getRecurrence: (f) => ({ id: f.recurrenceId }),
  cancelRecurrence: (f) => ({ id: f.recurrenceId }),
  createRecurringCharge: (f) => ({ id: f.approvedRecurrenceId, body: { dueDate: f.cycleDate } }),
  simulateRecurrenceApproval: (f) => ({ id: f.recurrenceId, body: {} }),
  simulateRecurrenceRejection: (f) => ({ id: f.recurrenceId, body: {} }),
  simulateRecurrenceCancellationByPayer: (f) => ({ id: f.recurrenceId, body: {} }),
  simulateRecurrenceExpiry: (f) => ({ id: f.recurrenceId }),
  simulateRecurrenceAdvance: (f) => ({ id: f.approvedRecurrenceId }),
  simulateRecurringAttempt: (f) => ({ id: f.cycleChargeId, body: { outcome: "PAID" } }),
} satisfies Record<OperationId, (f: Fixture) => { id?: string; body?: unknown }>;

/** An account holding one of everything, its money already available. */
async function accountWithOneOfEverything(): Promise<{
  owner: TestAccount;
  fixture: Fixture;
}> {
  const owner = await server.newAccount({ releasePeriodDays: 0 });
  const key = owner.testKey;
  const paid = await newCharge(key);
  const pay = (id: string) => api(key).POST("/api/v1/sandbox/transactions/{id}/pay", { params: { path: { id } } });
  expectStatus(await pay(paid.id), 200);
  const disputed = await newCharge(key);
  expectStatus(await pay(disputed.id), 200);
  const dispute = await api(key).POST("/api/v1/sandbox/transactions/{id}/dispute", {
    params: { path: { id: disputed.id } },
    body: {},
  });
  const refund = await api(key).POST("/api/v1/transactions/{id}/refunds", {
    params: { path: { id: paid.id } },
    body: { amountCents: 500 },
  });
  const events = await api(key).GET("/api/v1/events", { params: { query: { limit: 1 } } });
  const waiting = await newCharge(key);
  const link = await api(key).POST("/api/v1/payment-links", {
    body: { amountCents: 4990, description: "Assinatura mensal" },
  });
  const withdrawal = await api(key).POST("/api/v1/withdrawals", {
    body: { amountCents: 1000, pixKey: "52998224725", pixKeyType: "CPF" },
  });
  expectStatus(link, 201);
  expectStatus(withdrawal, 201);
  expectStatus(dispute, 201);
  expectStatus(refund, 201);
  expectStatus(events, 200);
  const cycleDate = dateAfter(testToday, 5);
  const recurrence = async (automaticCharges: boolean, approve: boolean) => {
    const made = await api(key).POST("/api/v1/recurrences", {
      body: recurrenceBody({ firstDate: cycleDate, automaticCharges }),
    });
    expectStatus(made, 201);
    if (approve) {
      const params = { params: { path: { id: made.body.id } }, body: {} };
      expectStatus(await api(key).POST("/api/v1/sandbox/recurrences/{id}/approve", params), 200);
    }
    return made.body.id;
  };
  const charged = await recurrence(false, true);
  const cycleCharge = await api(key).POST("/api/v1/recurrences/{id}/charges", {
    params: { path: { id: charged } },
    body: { dueDate: cycleDate },
  });
  expectStatus(cycleCharge, 201);
  return {
    owner,
    fixture: {
      waitingChargeId: waiting.id,
      linkId: link.body.id,
      customerId: waiting.customer.id,
      withdrawalId: withdrawal.body.id,
      paidChargeId: paid.id,
      refundId: refund.body.id,
      disputeId: dispute.body.dispute?.id as string,
      eventId: events.body.data[0]?.id as string,
      recurrenceId: await recurrence(false, false),
      approvedRecurrenceId: await recurrence(true, true),
      cycleDate,
      cycleChargeId: cycleCharge.body.id,
    },
  };
}

/** Everything the account's test mode shows through the API. */
async function visibleState(key: string) {
  const page = { params: { query: { limit: 100 } } };
  return {
    transactions: (await api(key).GET("/api/v1/transactions", page)).body,
    paymentLinks: (await api(key).GET("/api/v1/payment-links", page)).body,
    customers: (await api(key).GET("/api/v1/customers", page)).body,
    withdrawals: (await api(key).GET("/api/v1/withdrawals", page)).body,
    balance: (await api(key).GET("/api/v1/balance")).body,
  };
}

describe("Permissions", () => {
  test.each(operationIds.map((operation) => ({ name: operation, operation })))(
    "when a key lacks the permission of $name, then 403 API_KEY_PERMISSION names it and nothing changes",
    async ({ operation }) => {
      const meta = operationTable[operation];
      const { owner, fixture } = await accountWithOneOfEverything();
      const limited = await owner.addKey({
        permissions: allBut(meta.permission),
      });
      const request: { id?: string; body?: unknown } = minimalRequests[operation](fixture);
      const path = meta.path.replace("{id}", request.id ?? "");
      const method = meta.method.toUpperCase();
      // One request per operation, its path and method read from the generated table at run time:
      // beyond what the typed client can name, so untyped.
      const send = (key: string) =>
        rawCall<ErrorBody>(server.baseUrl, method, path, {
          key,
          ...(request.body !== undefined ? { body: request.body } : {}),
        });
      const before = await visibleState(owner.testKey);

      const res = await send(limited.secret);

      expectRefusal(res, 403, "API_KEY_PERMISSION", path);
      expect(res.body.message).toContain(meta.permission);
      expect(await visibleState(owner.testKey)).toEqual(before);
      const withPermission = await send(owner.testKey);
      expect(withPermission.status, JSON.stringify(withPermission.body)).toBeGreaterThanOrEqual(200);
      expect(withPermission.status).toBeLessThan(300);
    },
  );

  test("when a key is created without a permissions field, then it can charge but not withdraw", async () => {
    const { addKey, testKey } = await server.newAccount({
      releasePeriodDays: 0,
    });
    const paid = await newCharge(testKey);
    expectStatus(
      await api(testKey).POST("/api/v1/sandbox/transactions/{id}/pay", { params: { path: { id: paid.id } } }),
      200,
    );
    const { secret } = await addKey({});

    const withdrawal = await api(secret).POST("/api/v1/withdrawals", {
      body: { amountCents: 1000, pixKey: "52998224725", pixKeyType: "CPF" },
    });
    const charge = await createCharge(secret);

    expectRefusal(withdrawal, 403, "API_KEY_PERMISSION", "/api/v1/withdrawals");
    expect(withdrawal.body.message).toContain("withdrawals:write");
    expect(await listIds(testKey, "/api/v1/withdrawals")).toEqual([]);
    expect(charge.status).toBe(201);
  });

  test("when a permission is removed and given back, then each change applies on the next request", async () => {
    const { account, addKey } = await server.newAccount();
    const { id, secret } = await addKey({ permissions: [...seedPermissions] });
    expect((await balance(secret)).status).toBe(200);

    await changeKey(account.id, id, { permissions: allBut("balance:read") });
    const removed = await balance(secret);
    await changeKey(account.id, id, { permissions: [...seedPermissions] });
    const restored = await balance(secret);

    expectRefusal(removed, 403, "API_KEY_PERMISSION", "/api/v1/balance");
    expect(removed.body.message).toContain("balance:read");
    expect(restored.status).toBe(200);
  });
});

describe("IP allow-list", () => {
  test.each([
    { name: "the list is empty", allowedIps: [] },
    { name: "the list holds 127.0.0.1", allowedIps: ["127.0.0.1"] },
    {
      name: "the list holds the range 127.0.0.0/8",
      allowedIps: ["127.0.0.0/8"],
    },
    {
      name: "the list holds the IPv4-mapped rule ::ffff:127.0.0.1",
      allowedIps: ["::ffff:127.0.0.1"],
    },
    {
      name: "the list holds the IPv4-mapped range ::ffff:127.0.0.0/104",
      allowedIps: ["::ffff:127.0.0.0/104"],
    },
    {
      name: "one of several rules matches",
      allowedIps: ["10.0.0.0/8", "::1", "127.0.0.1"],
    },
  ])("when $name, then a call from 127.0.0.1 is allowed", async ({ allowedIps }) => {
    const { addKey } = await server.newAccount();
    const { secret } = await addKey({ allowedIps });

    const res = await balance(secret);

    expect(res.status).toBe(200);
  });

  test.each([
    { name: "the list holds only 10.0.0.0/8", allowedIps: ["10.0.0.0/8"] },
    { name: "the list holds only 10.1.2.3", allowedIps: ["10.1.2.3"] },
    { name: "the list holds only the IPv6 loopback ::1", allowedIps: ["::1"] },
    {
      name: "the list holds only a malformed rule",
      allowedIps: ["127.0.0.1/99"],
    },
  ])("when $name, then a call from 127.0.0.1 is 403 API_KEY_IP and nothing is created", async ({ allowedIps }) => {
    const { addKey, testKey } = await server.newAccount();
    const { secret } = await addKey({ allowedIps });

    const read = await balance(secret);
    const write = await createCharge(secret);

    expectRefusal(read, 403, "API_KEY_IP", "/api/v1/balance");
    expectRefusal(write, 403, "API_KEY_IP", "/api/v1/charges/pix");
    expect(await listIds(testKey, "/api/v1/transactions")).toEqual([]);
  });

  test("when TRUST_PROXY is off and the client sends X-Forwarded-For, then the socket address decides", async () => {
    const { addKey } = await server.newAccount();
    const local = await addKey({ allowedIps: ["127.0.0.1"] });
    const forwarded = await addKey({ allowedIps: ["10.1.2.3"] });

    const spoofedLocal = await balance(local.secret, {
      "x-forwarded-for": "10.1.2.3",
    });
    const spoofedForwarded = await balance(forwarded.secret, {
      "x-forwarded-for": "10.1.2.3",
    });

    expect(spoofedLocal.status).toBe(200);
    expectRefusal(spoofedForwarded, 403, "API_KEY_IP", "/api/v1/balance");
  });

  test.each([
    {
      name: "X-Forwarded-For names the allowed address",
      headers: { "x-forwarded-for": "10.1.2.3" },
      status: 200,
    },
    {
      name: "X-Forwarded-For names another address",
      headers: { "x-forwarded-for": "10.9.9.9" },
      status: 403,
    },
    { name: "there is no X-Forwarded-For", headers: {}, status: 403 },
    {
      name: "X-Forwarded-For names the allowed address IPv4-mapped",
      headers: { "x-forwarded-for": "::ffff:10.1.2.3" },
      status: 200,
    },
    {
      name: "the rule is IPv4-mapped and X-Forwarded-For is plain IPv4",
      rule: "::ffff:10.1.2.3",
      headers: { "x-forwarded-for": "10.1.2.3" },
      status: 200,
    },
  ] as {
    name: string;
    headers: Record<string, string>;
    status: number;
    rule?: string;
  }[])(
    "when TRUST_PROXY is 1 and $name, then the key limited to 10.1.2.3 answers $status",
    async ({ headers, status, rule }) => {
      const { addKey } = await proxied.newAccount();
      const { secret } = await addKey({ allowedIps: [rule ?? "10.1.2.3"] });

      const res = await balance(secret, headers, proxied);

      expect(res.status).toBe(status);
      if (res.status === 403) expect(res.body.code).toBe("API_KEY_IP");
    },
  );
});

describe("Account verification", () => {
  test("when the account of a production key is no longer verified, then 403 ACCOUNT_NOT_ACTIVE and its test key still works", async () => {
    const { account, liveKey, testKey } = await server.newAccount({
      verified: true,
    });
    expect((await balance(liveKey as string)).status).toBe(200);
    const stored = await server.store.read.accounts.get(account.id);
    if (!stored) throw new Error("account not stored");

    await server.store.transaction((tx) => tx.accounts.update({ ...stored, verified: false }));
    const read = await balance(liveKey as string);
    const write = await createCharge(liveKey as string);

    expectRefusal(read, 403, "ACCOUNT_NOT_ACTIVE", "/api/v1/balance");
    expectRefusal(write, 403, "ACCOUNT_NOT_ACTIVE", "/api/v1/charges/pix");
    expect((await balance(testKey)).status).toBe(200);
    await server.store.transaction((tx) => tx.accounts.update({ ...stored, verified: true }));
    expect(await listIds(liveKey as string, "/api/v1/transactions")).toEqual([]);
  });
});

describe("Keys at rest (docs/decisions.md)", () => {
  test("when keys are created, then the store keeps only their SHA-256 digest, never the secret", async () => {
    const { account, testKey, liveKey, addKey } = await server.newAccount();
    const extra = await addKey({});
    const secrets = [testKey, liveKey as string, extra.secret];

    const records = await server.store.read.apiKeys.listByAccount(account.id);

    expect(records).toHaveLength(3);
    expect(records.map((r) => r.digest).sort()).toEqual(secrets.map(sha256).sort());
    const stored = JSON.stringify(records);
    for (const secret of secrets) {
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(secret.slice(-24));
    }
    for (const record of records) expect(record.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  test("when the whole memory store is dumped, then no secret appears anywhere in it", async () => {
    const { testKey, liveKey } = await server.newAccount();
    await createCharge(testKey);
    expect(server.store).toBeInstanceOf(MemoryStore);

    const dump = JSON.stringify(server.store, (_key, value) => (value instanceof Map ? [...value.values()] : value));

    expect(dump).toContain(sha256(testKey));
    expect(dump).not.toContain(testKey);
    expect(dump).not.toContain(liveKey as string);
  });
});
