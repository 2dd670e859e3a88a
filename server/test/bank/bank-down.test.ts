import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SCOPES, startFakeBank, type FakeBank } from "../../../fake-bank/src/bank.js";
import { pixBankFrom, type BankClient } from "../../src/bank/client.js";
import type { BankAccess } from "../../src/domain/deps.js";
import { ManualClock } from "../../src/domain/ports/clock.js";
import { byId, chargeBody, chargePayer, expectStatus, publicApi } from "../harness.js";
import { credentialsOf } from "../support/fake-bank-credentials.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// The bank down, not slow (issue 35 §6, record 0051): a production create that finds the bank
// down within its bounded wait (a 5xx, a refused connection, no token) answers 503 with
// Retry-After and keeps nothing, its idempotency-key unused; after three such failures the
// adapter's circuit breaker answers at once without calling the bank, and one probe closes it; a
// slow bank still answers 201 PENDING, finished later. The bank saying no is not the bank down: a
// token refused for the charges with a due date's scopes (a client id without cobv) fails those
// creates and opens nothing (issue 35). Through HTTP, against the fake bank and the real adapter,
// on both stores.

const waitMs = 1_500;
const openMs = 3_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function downSuite(store: StoreUnderTest) {
  let bank: FakeBank;
  let client: BankClient | null = null;
  const access: BankAccess = { current: () => Promise.resolve(client), waitMs };
  const server = serverOn(store, { bank: access, clock: new ManualClock(new Date()) });
  const extra: BankClient[] = [];
  /** A client of the fake bank with a short breaker; `overrides` spoil a part of the connection. */
  const clientOf = (overrides: Parameters<typeof credentialsOf>[1] = {}) => {
    const made = pixBankFrom(credentialsOf(bank, overrides), { timeoutMs: 2_500, breaker: { failures: 3, openMs } });
    extra.push(made);
    return made;
  };

  beforeAll(async () => {
    bank = await startFakeBank({ tokenTtlSeconds: 3600 });
    client = clientOf();
    // A token and a connection first: the timed creates measure the bank's answer, not a cold start.
    await client.readCharge("svctxn00000000000000000000");
  });
  afterAll(async () => {
    await Promise.all(extra.map((c) => c.close()));
    await bank?.close();
  });

  const liveKey = async () => (await server.newAccount({ releasePeriodDays: 0 })).liveKey as string;
  const create = (key: string, idempotencyKey?: string, amountCents = 4_200) =>
    publicApi(server.baseUrl, { key }).POST("/api/v1/charges/pix", {
      body: chargeBody({ amountCents }),
      ...(idempotencyKey ? { params: { header: { "idempotency-key": idempotencyKey } } } : {}),
    });
  const charges = async (key: string) => {
    const res = await publicApi(server.baseUrl, { key }).GET("/api/v1/transactions");
    expectStatus(res, 200);
    return res.body.data;
  };
  const cobPuts = () => bank.requests().filter((r) => r.method === "PUT" && r.path.includes("/cob/"));
  /**
   * Waits for the breaker of the client in use to let a probe through again (its `downForSeconds`
   * null): at once when it is not open, as a test that follows one that closed it finds it.
   */
  const breakerClosed = async () => {
    const deadline = Date.now() + openMs + 2_000;
    while (client?.downForSeconds?.() != null) {
      if (Date.now() > deadline) throw new Error(`the breaker still open ${openMs + 2_000} ms later`);
      await sleep(50);
    }
  };

  test("when the bank answers 5xx to the create, then 503 with Retry-After in Portuguese, nothing is kept, and the same idempotency-key then creates the charge", async () => {
    const key = await liveKey();
    bank.faultCalls({ kind: "status", status: 503, count: 1, route: "^PUT /cob/" });
    // (A 503, not a 201 PENDING, says the bank's answer came within the create's wait.)
    const down = await create(key, "pedido-banco-5xx");
    expectStatus(down, 503);
    expect(down.body).toMatchObject({ ok: false, code: "SERVICE_UNAVAILABLE" });
    expect(down.body.message).toContain("O banco da plataforma está indisponível; a cobrança não foi criada");
    expect(down.headers.get("retry-after")).toBe("1"); // the bank's own Retry-After
    expect(await charges(key)).toEqual([]);
    const refusedTxid = cobPuts().at(-1)?.path.split("/cob/")[1];
    expect(refusedTxid).toMatch(/^svctxn/);

    const again = await create(key, "pedido-banco-5xx");
    expectStatus(again, 201);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.status).toBe("WAITING_PAYMENT");
    expect(again.body.pix.copyPaste).toContain("/qr/v2/");
    expect((await charges(key)).map((c) => c.id)).toEqual([again.body.id]);
    const replay = await create(key, "pedido-banco-5xx");
    expectStatus(replay, 201);
    expect(replay.body.id).toBe(again.body.id);

    // The 5xx may have made the cob after all: the bank work removes it (a cob it does not know is done).
    server.clock.advance(1);
    await server.domain.bankWork.runDue();
    expect(bank.requests().some((r) => r.method === "PATCH" && r.path.endsWith(`/cob/${refusedTxid}`))).toBe(true);
    expect(bank.requests().filter((r) => !r.requestValid)).toEqual([]);
  });

  test("when the bank refuses the connection or its token endpoint is down, then the create answers 503 at once and keeps nothing", async () => {
    const key = await liveKey();
    const closed = "https://127.0.0.1:1";
    for (const overrides of [
      { baseUrl: `${closed}/api/v2`, tokenUrl: `${closed}/oauth/token` },
      { tokenUrl: `${closed}/oauth/token` },
    ]) {
      const held = client;
      client = clientOf(overrides);
      try {
        const started = Date.now();
        const down = await create(key, "pedido-conexao-recusada");
        expect(Date.now() - started).toBeLessThan(waitMs);
        expectStatus(down, 503);
        expect(Number(down.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        expect(down.body.message).toContain("a cobrança não foi criada");
      } finally {
        client = held;
      }
    }
    expect(await charges(key)).toEqual([]);
    const made = await create(key, "pedido-conexao-recusada");
    expectStatus(made, 201);
    expect(made.body.status).toBe("WAITING_PAYMENT");
  });

  test("when the bank failed three calls in a row, then creates and refunds answer 503 without calling it until one probe finds it back", async () => {
    await breakerClosed();
    const key = await liveKey();
    const paid = await create(key, undefined, 9_000);
    expectStatus(paid, 201);
    bank.pay(paid.body.pix.copyPaste);
    await bank.settled();
    await server.domain.bankReconcile.reconcile({
      from: new Date(Date.now() - 60_000).toISOString(),
      to: new Date(Date.now() + 1_000).toISOString(),
    });
    const read = await publicApi(server.baseUrl, { key }).GET("/api/v1/transactions/{id}", byId(paid.body.id));
    expectStatus(read, 200);
    expect(read.body.status).toBe("PAID");
    const balanceBefore = (await publicApi(server.baseUrl, { key }).GET("/api/v1/balance")).body;

    bank.faultCalls({ kind: "status", status: 500, count: 3, route: "^PUT /cob/" });
    for (let i = 0; i < 3; i++) expectStatus(await create(key), 503);
    const calls = bank.requests().length;
    const openedAt = Date.now();
    const refund = await publicApi(server.baseUrl, { key }).POST("/api/v1/transactions/{id}/refunds", {
      ...byId(paid.body.id),
      body: { amountCents: 1_000 },
    });
    expectStatus(refund, 503);
    expect(refund.body.message).toContain("a devolução não foi criada");
    const fast = await Promise.all(Array.from({ length: 10 }, () => create(key)));
    expect(Date.now() - openedAt).toBeLessThan(openMs); // (else the breaker may have let a probe through)
    for (const res of fast) {
      expectStatus(res, 503);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(Math.ceil(openMs / 1000));
    }
    expect(bank.requests().length).toBe(calls); // not one call while the breaker is open
    expect((await charges(key)).map((c) => c.id)).toEqual([paid.body.id]);
    expect((await publicApi(server.baseUrl, { key }).GET("/api/v1/balance")).body).toEqual(balanceBefore);

    await breakerClosed();
    const probe = await create(key);
    expectStatus(probe, 201);
    expect(probe.body.status).toBe("WAITING_PAYMENT");
    const refunded = await publicApi(server.baseUrl, { key }).POST("/api/v1/transactions/{id}/refunds", {
      ...byId(paid.body.id),
      body: { amountCents: 1_000 },
    });
    expectStatus(refunded, 201);
  });

  test("when the bank refuses the due-date charges' scopes, then three due-date creates answer 201 FAILED with the bank's reason, the breaker stays closed and an immediate charge is still registered", async () => {
    await breakerClosed();
    const key = await liveKey();
    // A client id the bank grants everything but cobv.write and cobv.read.
    const restricted = bank.addCustomer({ scopes: SCOPES.filter((scope) => !scope.startsWith("cobv.")) });
    const held = client;
    client = clientOf({
      clientId: restricted.clientId,
      clientSecret: restricted.clientSecret,
      certificate: { format: "pem", certPem: restricted.certPem, keyPem: restricted.keyPem },
      pixKey: restricted.keys[0] as string,
    });
    try {
      const dueDate = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
      for (let i = 0; i < 3; i++) {
        const refused = await publicApi(server.baseUrl, { key }).POST("/api/v1/charges/due-date", {
          body: { amountCents: 12_000, dueDate, description: "Mensalidade", customer: { ...chargePayer } },
        });
        expectStatus(refused, 201);
        expect(refused.body.status).toBe("FAILED");
        expect(refused.body.failureReason).toContain("O banco recusou a cobrança");
        expect(refused.body.failureReason).toContain("invalid_scope");
      }
      expect(client.downForSeconds?.()).toBeNull();
      const immediate = await create(key);
      expectStatus(immediate, 201);
      expect(immediate.body.status).toBe("WAITING_PAYMENT");
      expect(immediate.body.pix.copyPaste).toContain("/qr/v2/");
      // The token was asked for and refused three times; no cobv reached the API.
      expect(bank.requests().filter((r) => r.method === "PUT" && r.path.includes("/cobv/"))).toEqual([]);
    } finally {
      client = held;
    }
  });

  test("when the bank is slow, not down, then the create still answers 201 PENDING within its wait and the charge is registered later", async () => {
    await breakerClosed();
    const key = await liveKey();
    bank.faultCalls({ kind: "timeout", count: 1, route: "^PUT /cob/" });
    const started = Date.now();
    const slow = await create(key);
    expect(Date.now() - started).toBeLessThan(waitMs + 500);
    expectStatus(slow, 201);
    expect(slow.body.status).toBe("PENDING");
    bank.clearFaults();
    // The call's own timeout (2.5 s) passes: an unknown outcome, the task tries again.
    await sleep(2_700);
    server.clock.advance(5);
    await server.domain.bankWork.runDue();
    const read = await publicApi(server.baseUrl, { key }).GET("/api/v1/transactions/{id}", byId(slow.body.id));
    expectStatus(read, 200);
    expect(read.body.status).toBe("WAITING_PAYMENT");
  });
}

for (const store of eachStore("bank_down")) {
  store.describe(`the bank down on the ${store.name} store`, () => {
    describe("with the fake bank", () => downSuite(store));
  });
}
