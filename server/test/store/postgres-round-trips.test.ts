import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { createPool, PostgresStore } from "../../src/store/postgres/index.js";
import { chargeBody, expectStatus, publicApi, startTestServer, type TestAccount, type TestServer } from "../harness.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";

/**
 * The statements a request sends to PostgreSQL, one round trip each: the throughput of the
 * PostgreSQL routes follows their number (issue 15). Recorded by the server's pool connections
 * while one request runs.
 */
describePg("round trips to PostgreSQL per request", () => {
  let database: TestDatabase;
  let server: TestServer;
  let ctx: TestAccount;
  const sent: string[] = [];
  const lastUsedWrites: string[] = [];
  /** The prepared-statement name of each statement sent, or null when it went unprepared. */
  const names: (string | null)[] = [];
  /** A connection that records each statement before pg sends it (the pool's public `Client` option). */
  class RecordingClient extends pg.Client {}
  Object.defineProperty(RecordingClient.prototype, "query", {
    value: function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string; name?: string };
      const text = typeof first === "string" ? first : (first.text ?? "");
      // A key's "last used" is written at most once a minute, on its own connection, without the
      // request waiting for it (dashboard-keys.test.ts): counted apart, not in the request's statements.
      if (text.startsWith("INSERT INTO api_key_uses")) {
        lastUsedWrites.push(text);
        return (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
      }
      sent.push((typeof first === "string" ? first : (first.text ?? "")).replace(/\s+/g, " ").trim());
      names.push(typeof first === "string" ? null : (first.name ?? null));
      return (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    },
  });

  beforeAll(async () => {
    database = await createTestDatabase("round_trips");
    server = await startTestServer({
      store: new PostgresStore(createPool(database.url, { max: 4, Client: RecordingClient })),
    });
    ctx = await server.newAccount();
  });
  afterEach(() => {
    sent.length = 0;
    names.length = 0;
  });
  const api = (key = ctx.testKey) => publicApi(server.baseUrl, { key });
  const createCharge = (body = chargeBody(), idempotencyKey?: string) =>
    api().POST("/api/v1/charges/pix", {
      body,
      ...(idempotencyKey === undefined ? {} : { params: { header: { "idempotency-key": idempotencyKey } } }),
    });
  async function newChargeId(): Promise<string> {
    const created = await createCharge();
    expectStatus(created, 201);
    return created.body.id;
  }
  const readCharge = (id: string) => api().GET("/api/v1/transactions/{id}", { params: { path: { id } } });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  describe("POST /api/v1/charges/pix", () => {
    test("when a charge is created for a new payer, then the account's lock is taken only to write the payer, and the payer is read again under it", async () => {
      sent.length = 0;
      const res = await createCharge(
        chargeBody({
          customer: {
            name: "Nova",
            email: "nova@example.com",
            phone: "11987654321",
            documentType: "CPF",
            document: "11144477735",
          },
        }),
      );

      expect(res.status).toBe(201);
      // The key with its account; BEGIN; the payer read; the lock; the payer read again and
      // created; the charge; COMMIT.
      expect(sent[1]).toBe("BEGIN");
      expect(sent[3]).toMatch(/^SELECT pg_advisory_xact_lock\(/);
      expect(sent[5]).toMatch(/^INSERT INTO customers/);
      expect(sent[6]).toMatch(/^INSERT INTO transactions/);
      expect(sent).toHaveLength(8);
    });

    test("when a charge is created with an idempotency key, then BEGIN travels with the account's lock", async () => {
      sent.length = 0;
      const res = await createCharge(chargeBody(), "round-trips-1");

      expect(res.status).toBe(201);
      expect(sent).not.toContain("BEGIN");
      expect(sent.filter((s) => s.startsWith("BEGIN; SELECT pg_advisory_xact_lock("))).toHaveLength(1);
    });
  });

  test("when a payer comes back with the same data, then the charge costs five statements and no lock: the payer is read, not rewritten", async () => {
    const body = chargeBody();
    expect((await createCharge(body)).status).toBe(201);
    sent.length = 0;

    const res = await createCharge(body);

    expect(res.status).toBe(201);
    expect(sent.filter((s) => s.startsWith("UPDATE customers"))).toEqual([]);
    expect(sent.filter((s) => s.includes("pg_advisory_xact_lock"))).toEqual([]);
    expect(sent).toHaveLength(5);
  });

  describe("GET /api/v1/transactions/{id}", () => {
    test("when a charge is read by a key read before, then one statement reads the charge and confirms the key", async () => {
      const id = await newChargeId();
      sent.length = 0;

      const res = await readCharge(id);

      expect(res.status).toBe(200);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/^SELECT .* FROM transactions WHERE .*EXISTS \(SELECT 1 FROM api_keys k/);
      expect(sent.some((s) => s.includes("BEGIN"))).toBe(false);
    });

    test("when a charge is read by a key this process has not read, then two statements go: the key with its account, then the charge", async () => {
      const id = await newChargeId();
      const { secret } = await ctx.addKey({});
      sent.length = 0;

      const res = await api(secret).GET("/api/v1/transactions/{id}", { params: { path: { id } } });

      expect(res.status).toBe(200);
      expect(sent).toHaveLength(2);
      expect(sent[0]).toMatch(/FROM api_keys k/);
      expect(sent[1]).toMatch(/FROM transactions/);
    });

    test("when a charge is read twice, then its statement goes prepared, under the same name each time", async () => {
      const id = await newChargeId();
      names.length = 0;
      expectStatus(await readCharge(id), 200);
      const first = [...names];
      names.length = 0;
      expectStatus(await readCharge(id), 200);

      expect(first).toHaveLength(1);
      expect(first.every((n) => n !== null && n.startsWith("pix_"))).toBe(true);
      expect(names).toEqual(first);
    });

    test("when charges are listed without a filter by a key read before, then one prepared statement reads the page and confirms the key", async () => {
      expect((await api().GET("/api/v1/balance")).status).toBe(200);
      names.length = 0;
      sent.length = 0;
      const res = await api().GET("/api/v1/transactions", { params: { query: { limit: 5 } } });

      expectStatus(res, 200);
      expect(res.body.data.length).toBeGreaterThan(0);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/ORDER BY/);
      expect(sent[0]).toMatch(/EXISTS \(SELECT 1 FROM api_keys k JOIN accounts a/);
      expect(names).toHaveLength(1);
      expect(names[0]).toMatch(/^pix_/);
    });

    test("when a key never read by this process lists charges, then the key is read first: two statements", async () => {
      const { secret } = await ctx.addKey({});
      sent.length = 0;
      const res = await api(secret).GET("/api/v1/transactions", { params: { query: { limit: 5 } } });

      expect(res.status).toBe(200);
      expect(sent).toHaveLength(2);
      expect(sent[0]).toMatch(/FROM api_keys k LEFT JOIN accounts a/);
      expect(sent[1]).not.toMatch(/EXISTS/);
    });

    test("when a recalled key's first page comes back empty, then the key is read and the page asked again: three statements", async () => {
      expect((await api().GET("/api/v1/balance")).status).toBe(200);
      sent.length = 0;
      const res = await api().GET("/api/v1/transactions", { params: { query: { limit: 5, status: "FAILED" } } });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [], hasMore: false });
      expect(sent).toHaveLength(3);
      expect(sent[0]).toMatch(/EXISTS/);
      expect(sent[1]).toMatch(/FROM api_keys k LEFT JOIN accounts a/);
    });

    test("when charges are listed by status, then the list is planned for its own values: its statement goes unprepared", async () => {
      sent.length = 0;
      names.length = 0;
      const res = await api().GET("/api/v1/transactions", { params: { query: { status: "PAID", limit: 5 } } });

      expect(res.status).toBe(200);
      const list = sent.findIndex((s) => s.includes("ORDER BY"));
      expect(list).toBeGreaterThanOrEqual(0);
      expect(names[list]).toBeNull();
      expect(names.filter((n) => n !== null).length).toBeGreaterThan(0);
    });
  });
  test("when a key is used five times within a minute, then its last use is written at most once, apart from the requests", async () => {
    const before = lastUsedWrites.length;
    for (let i = 0; i < 5; i++) expect((await api().GET("/api/v1/balance")).status).toBe(200);
    expect(lastUsedWrites.length - before).toBeLessThanOrEqual(1);
  });
});
