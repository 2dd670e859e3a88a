import { readdir } from "node:fs/promises";
import { createConnection } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { allPermissions, createAccount, createApiKey } from "../../src/domain/accounts/index.js";
import { createPool, migrationsDir, PostgresStore } from "../../src/store/postgres/index.js";
import { bodyOf, byId, chargeBody, publicApi } from "../harness.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";
import { type ServerProcess, startServerProcess } from "../support/server-process.js";
import { seededRandom } from "../support/random.js";

// Two real server processes (`server/src/main.ts`) on one PostgreSQL database: what the memory
// store cannot show. Every burst is bounded (50 requests) and only 127.0.0.1 is used.

const ports = { first: 4731, second: 4732, limitedFirst: 4733, limitedSecond: 4734 } as const;
const burst = 50;

async function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** A server process on `port` (which must be free), through the shared starter. */
async function startServer(port: number, databaseUrl: string, rateLimits: "off" | "default"): Promise<ServerProcess> {
  if (await portInUse(port)) throw new Error(`port ${port} is taken: the concurrency suite needs it free`);
  return startServerProcess({
    name: `on ${port}`,
    port,
    // With limits on, the client is the `X-Forwarded-For` of one trusted proxy hop, so each test
    // can be a client of its own.
    env: { DATABASE_URL: databaseUrl, ...(rateLimits === "off" ? { RATE_LIMITS: "off" } : { TRUST_PROXY: "1" }) },
  });
}

const statuses = (results: { status: number }[]) => results.map((r) => r.status);
const count = <T>(items: T[], keep: (item: T) => boolean) => items.filter(keep).length;

let database: TestDatabase;
let store: PostgresStore;
let sql: pg.Pool;

describePg("PostgreSQL with two server processes", () => {
  beforeAll(async () => {
    // Not migrated: the two processes below migrate it themselves, at the same moment.
    database = await createTestDatabase("concurrency", { migrate: false });
    sql = new pg.Pool({ connectionString: database.url, max: 2 });
    // Connects on first use, after a server process has migrated the database.
    store = new PostgresStore(createPool(database.url, { max: 3 }));
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await sql?.end();
    await database?.drop();
  });

  /** A verified account (release period 0 unless said: paid money is available at once) and a full test key. */
  async function seedAccount(keyInput: { dailyWithdrawLimitCents?: number } = {}, releasePeriodDays = 0) {
    const now = new Date().toISOString();
    return store.transaction(async (tx) => {
      const account = await createAccount(
        tx,
        { name: "Loja Concorrente Ltda", ownerEmail: "dono@concorrente.example", verified: true, releasePeriodDays },
        now,
      );
      const { key, secret } = await createApiKey(
        tx,
        account,
        { name: "test", livemode: false, permissions: [...allPermissions], ...keyInput },
        now,
      );
      return { account, key, secret, scope: { accountId: account.id, livemode: false } };
    });
  }

  describe("money, idempotency and restarts", () => {
    let a: ServerProcess;
    let b: ServerProcess;
    /** Alternates between the two processes. */
    const server = (i: number) => (i % 2 === 0 ? a : b);
    /** The public API of process `i` (alternating) with `key`. */
    const api = (i: number, key: string, headers: Record<string, string> = {}) =>
      publicApi(server(i).baseUrl, { key, headers });
    const first100 = { params: { query: { limit: 100 } } };

    /** Paid sandbox charges whose nets add up to `nets`, made through both processes. */
    async function fund(key: string, nets: number[]) {
      for (const [i, net] of nets.entries()) {
        const charge = await bodyOf(
          api(i, key).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: net + 80 }) }),
          201,
        );
        await bodyOf(api(i + 1, key).POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id)), 200);
      }
    }

    async function balance(key: string) {
      return bodyOf(api(0, key).GET("/api/v1/balance"), 200);
    }

    /** The ledger's own sum and the trigger-kept totals row, straight from SQL. */
    async function ledgerSums(accountId: string) {
      const entries = await sql.query<{ sum: string }>(
        "SELECT coalesce(sum(amount_cents), 0) AS sum FROM ledger_entries WHERE account_id = $1 AND livemode = false",
        [accountId],
      );
      const totals = await sql.query<{ available: string; blocked: string }>(
        `SELECT available_total_cents AS available, blocked_cents AS blocked FROM ledger_balances
         WHERE account_id = $1 AND livemode = false`,
        [accountId],
      );
      return {
        entries: Number(entries.rows[0]?.sum),
        totalsRow: Number(totals.rows[0]?.available) + Number(totals.rows[0]?.blocked),
      };
    }

    const withdraw = (i: number, key: string, amountCents: number) =>
      api(i, key).POST("/api/v1/withdrawals", { body: { amountCents, pixKey: "52998224725", pixKeyType: "CPF" } });

    beforeAll(async () => {
      [a, b] = await Promise.all([
        startServer(ports.first, database.url, "off"),
        startServer(ports.second, database.url, "off"),
      ]);
    }, 90_000);
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
    });

    test("when both processes started on an empty database, then each migration ran once", async () => {
      const files = (await readdir(migrationsDir)).filter((f) => f.endsWith(".sql")).map((f) => f.slice(0, -4));

      const applied = await sql.query<{ name: string }>("SELECT name FROM pgmigrations ORDER BY id");

      expect(files.length).toBeGreaterThan(0);
      expect(applied.rows.map((r) => r.name)).toEqual(files.sort());
    });

    test(`when ${burst} withdrawals of the whole balance race across both processes, then exactly one is made`, async () => {
      const { secret, account } = await seedAccount();
      await fund(secret, [10_000, 10_000, 10_000]);
      const whole = (await balance(secret)).availableCents;

      const results = await Promise.all(Array.from({ length: burst }, (_v, i) => withdraw(i, secret, whole)));

      expect(whole).toBe(30_000);
      expect(count(results, (r) => r.status === 201)).toBe(1);
      expect(count(results, (r) => r.status === 400 && r.body.code === "INSUFFICIENT_BALANCE")).toBe(burst - 1);
      expect(statuses(results).filter((s) => s >= 500)).toEqual([]);
      expect(await balance(secret)).toMatchObject({ availableCents: 0, pendingCents: 0, blockedCents: 0 });
      expect((await bodyOf(api(1, secret).GET("/api/v1/withdrawals", first100), 200)).data).toHaveLength(1);
      expect(await ledgerSums(account.id)).toEqual({ entries: 0, totalsRow: 0 });
    });

    test(`when ${burst} withdrawals of random amounts race, then the accepted total never passes the balance`, async () => {
      const { secret, account } = await seedAccount();
      await fund(secret, [10_000, 10_000]);
      const next = seededRandom(20261004);
      const amounts = Array.from({ length: burst }, () => 600 + Math.floor(next() * 1901));

      const results = await Promise.all(amounts.map((amount, i) => withdraw(i, secret, amount)));

      const accepted = results.filter((r) => r.status === 201).map((r) => r.body.amountCents);
      const acceptedTotal = accepted.reduce((sum, v) => sum + v, 0);
      const listed = (await bodyOf(api(1, secret).GET("/api/v1/withdrawals", first100), 200)).data;
      expect(
        results.every((r) => r.status === 201 || (r.status === 400 && r.body.code === "INSUFFICIENT_BALANCE")),
      ).toBe(true);
      expect(acceptedTotal).toBeLessThanOrEqual(20_000);
      // Requests were refused, each for more than what was left then: so less than 2500 is left.
      expect(acceptedTotal).toBeGreaterThan(20_000 - 2500);
      expect(accepted.length).toBeGreaterThan(0);
      expect(listed).toHaveLength(accepted.length);
      expect((await balance(secret)).availableCents).toBe(20_000 - acceptedTotal);
      expect(await ledgerSums(account.id)).toEqual({
        entries: 20_000 - acceptedTotal,
        totalsRow: 20_000 - acceptedTotal,
      });
      console.info(
        `random withdrawals: ${accepted.length}/${burst} accepted, total ${acceptedTotal} of a 20000 balance`,
      );
    });

    test(`when ${burst} withdrawals race under a key's daily limit, then the accepted total never passes the limit`, async () => {
      const { secret, account } = await seedAccount({ dailyWithdrawLimitCents: 10_000 });
      await fund(secret, [20_000, 20_000]);
      const next = seededRandom(7);
      const amounts = Array.from({ length: burst }, () => 600 + Math.floor(next() * 901));

      const results = await Promise.all(amounts.map((amount, i) => withdraw(i, secret, amount)));

      const accepted = results.filter((r) => r.status === 201).map((r) => r.body.amountCents);
      const acceptedTotal = accepted.reduce((sum, v) => sum + v, 0);
      expect(
        results.every((r) => r.status === 201 || (r.status === 403 && r.body.code === "WITHDRAW_DAILY_LIMIT")),
      ).toBe(true);
      expect(acceptedTotal).toBeLessThanOrEqual(10_000);
      // Requests were refused, each for more than what the limit left then: less than 1500 is left.
      expect(acceptedTotal).toBeGreaterThan(10_000 - 1500);
      expect((await balance(secret)).availableCents).toBe(40_000 - acceptedTotal);
      expect((await ledgerSums(account.id)).entries).toBe(40_000 - acceptedTotal);
      console.info(`daily limit: ${accepted.length}/${burst} accepted, total ${acceptedTotal} of a 10000 limit`);
    });

    test(`when ${burst} charges with one idempotency-key race across both processes, then one charge is made and all answer it`, async () => {
      const { secret } = await seedAccount();
      const headers = { "idempotency-key": "pedido-concorrente-1" };

      const results = await Promise.all(
        Array.from({ length: burst }, (_v, i) =>
          api(i, secret, headers).POST("/api/v1/charges/pix", { body: chargeBody() }),
        ),
      );

      expect(statuses(results)).toEqual(Array.from({ length: burst }, () => 201));
      const ids = results.map((r) => (r.status === 201 ? r.body.id : null));
      expect(new Set(ids).size).toBe(1);
      for (const r of results) expect(r.body).toEqual(results[0]?.body);
      const list = await bodyOf(api(0, secret).GET("/api/v1/transactions", first100), 200);
      expect(list.data.map((t) => t.id)).toEqual([ids[0]]);
    });

    test(`when ${burst} charges for one new payer race across both processes without a key, then every one is made and the payer once`, async () => {
      const { secret, scope } = await seedAccount();
      const payer = {
        name: "Payer Novo",
        email: "novo@example.com",
        phone: "11987654321",
        documentType: "CPF" as const,
        document: "11144477735",
      };

      const results = await Promise.all(
        Array.from({ length: burst }, (_v, i) =>
          api(i, secret).POST("/api/v1/charges/pix", {
            body: chargeBody({ description: `Pedido ${i}`, customer: payer }),
          }),
        ),
      );

      expect(statuses(results)).toEqual(Array.from({ length: burst }, () => 201));
      const made = results.map((r) => (r.status === 201 ? r.body : null));
      expect(new Set(made.map((charge) => charge?.id)).size).toBe(burst);
      const customers = (await store.read.customers.list(scope, {}, { limit: 100 })).items;
      expect(customers.map((c) => c.document)).toEqual(["11144477735"]);
      expect(new Set(made.map((charge) => charge?.customer?.id))).toEqual(new Set([customers[0]?.id]));
    });

    test(`when ${burst} charges race for one payer, half sending a new e-mail, then every one is made and the payer ends with one of the e-mails`, async () => {
      const { secret, scope } = await seedAccount();
      const payer = {
        name: "Payer Volta",
        email: "antes@example.com",
        phone: "11987654321",
        documentType: "CPF" as const,
        document: "52998224725",
      };
      expect((await api(0, secret).POST("/api/v1/charges/pix", { body: chargeBody({ customer: payer }) })).status).toBe(
        201,
      );

      const results = await Promise.all(
        Array.from({ length: burst }, (_v, i) =>
          api(i, secret).POST("/api/v1/charges/pix", {
            body: chargeBody({ customer: i % 2 ? { ...payer, email: "depois@example.com" } : payer }),
          }),
        ),
      );

      expect(statuses(results)).toEqual(Array.from({ length: burst }, () => 201));
      const customers = (await store.read.customers.list(scope, {}, { limit: 100 })).items;
      expect(customers).toHaveLength(1);
      expect(["antes@example.com", "depois@example.com"]).toContain(customers[0]?.email);
      const list = await bodyOf(api(0, secret).GET("/api/v1/transactions", first100), 200);
      expect(list.data).toHaveLength(burst + 1);
    });

    test(`when one charge is paid ${burst} times at once through both processes, then it is credited once`, async () => {
      const { secret, account, scope } = await seedAccount();
      const charge = await bodyOf(
        api(0, secret).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 5080 }) }),
        201,
      );

      const results = await Promise.all(
        Array.from({ length: burst }, (_v, i) =>
          api(i, secret).POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id)),
        ),
      );

      expect(count(results, (r) => r.status === 200)).toBe(1);
      expect(count(results, (r) => r.status === 400 && r.body.code === "REQUEST_ERROR")).toBe(burst - 1);
      expect((await balance(secret)).availableCents).toBe(5000);
      const credits = (await store.read.ledger.list(scope)).filter((e) => e.refId === charge.id);
      const paidEvents = (await store.read.events.list(scope)).filter((e) => e.type === "transaction.paid");
      expect(credits.map((e) => e.amountCents)).toEqual([5000]);
      expect(paidEvents).toHaveLength(1);
      expect(await ledgerSums(account.id)).toEqual({ entries: 5000, totalsRow: 5000 });
    });

    test(`when ${burst} refunds of a whole charge race across both processes, then exactly one is made`, async () => {
      const { secret, account } = await seedAccount();
      await fund(secret, [10_000]);
      const charge = await bodyOf(
        api(0, secret).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 8990 }) }),
        201,
      );
      await api(1, secret).POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id));

      const results = await Promise.all(
        Array.from({ length: burst }, (_v, i) =>
          api(i, secret).POST("/api/v1/transactions/{id}/refunds", { ...byId(charge.id), body: {} }),
        ),
      );

      expect(count(results, (r) => r.status === 201)).toBe(1);
      expect(count(results, (r) => r.status === 400 && r.body.code === "REQUEST_ERROR")).toBe(burst - 1);
      expect(results.find((r) => r.status === 201)?.body).toMatchObject({ amountCents: 8990, status: "COMPLETED" });
      const refunded = await bodyOf(api(0, secret).GET("/api/v1/transactions/{id}", byId(charge.id)), 200);
      expect(refunded.refundedAmountCents).toBe(8990);
      const refunds = await bodyOf(
        api(1, secret).GET("/api/v1/transactions/{id}/refunds", {
          params: { path: { id: charge.id }, query: { limit: 100 } },
        }),
        200,
      );
      expect(refunds.data).toHaveLength(1);
      expect((await balance(secret)).availableCents).toBe(10_000 + 8910 - 8990);
      expect(await ledgerSums(account.id)).toEqual({ entries: 9920, totalsRow: 9920 });
    });

    test(`when ${burst} refunds and withdrawals race for one balance, then no bucket goes negative and no charge is over-refunded`, async () => {
      const { secret, account } = await seedAccount();
      await fund(secret, [5000, 5000, 5000, 5000, 5000]);
      const charges = (await bodyOf(api(0, secret).GET("/api/v1/transactions", first100), 200)).data.map((t) => t.id);

      const results = await Promise.all(
        Array.from({ length: burst }, (_v, i) =>
          i % 2 === 0
            ? api(i, secret).POST("/api/v1/transactions/{id}/refunds", {
                ...byId(charges[(i / 2) % 5] as string),
                body: { amountCents: 1500 },
              })
            : withdraw(i, secret, 1500),
        ),
      );

      const accepted = count(results, (r) => r.status === 201);
      expect(
        results.every(
          (r) =>
            r.status === 201 ||
            (r.status === 400 && (r.body.code === "INSUFFICIENT_BALANCE" || r.body.code === "REQUEST_ERROR")),
        ),
      ).toBe(true);
      expect(accepted).toBeGreaterThan(0);
      expect(accepted).toBeLessThanOrEqual(16);
      const after = await balance(secret);
      expect(after.availableCents).toBe(25_000 - 1500 * accepted);
      expect(after.availableCents).toBeGreaterThanOrEqual(0);
      expect(await ledgerSums(account.id)).toEqual({
        entries: 25_000 - 1500 * accepted,
        totalsRow: 25_000 - 1500 * accepted,
      });
      for (const id of charges) {
        const refunded = (await bodyOf(api(1, secret).GET("/api/v1/transactions/{id}", byId(id)), 200))
          .refundedAmountCents;
        const listed = (
          await bodyOf(
            api(0, secret).GET("/api/v1/transactions/{id}/refunds", {
              params: { path: { id }, query: { limit: 100 } },
            }),
            200,
          )
        ).data;
        expect(refunded).toBeLessThanOrEqual(5080);
        expect(refunded).toBe(1500 * listed.length);
      }
      console.info(`refunds racing withdrawals: ${accepted}/${burst} accepted from a 25000 balance`);
    });

    test(`when ${burst} refunds of a charge paid today race withdrawals, then pending and available never go negative and the refunds took its pending money first (record 0055)`, async () => {
      const { secret, account } = await seedAccount({}, 1);
      await fund(secret, [6000]);
      await bodyOf(api(0, secret).POST("/api/v1/sandbox/balance/release"), 200);
      const charge = await bodyOf(
        api(1, secret).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 8990 }) }),
        201,
      );
      await bodyOf(api(0, secret).POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id)), 200);
      const next = seededRandom(20261128);
      const amounts = Array.from({ length: burst }, () => 300 + Math.floor(next() * 700));
      const before = await balance(secret);

      const results = await Promise.all(
        amounts.map((amountCents, i) =>
          i % 2 === 0
            ? api(i, secret).POST("/api/v1/transactions/{id}/refunds", { ...byId(charge.id), body: { amountCents } })
            : withdraw(i, secret, 600),
        ),
      );

      const refunded = amounts.reduce(
        (sum, amount, n) => (n % 2 === 0 && results[n]?.status === 201 ? sum + amount : sum),
        0,
      );
      const withdrawn = 600 * results.filter((r, n) => n % 2 === 1 && r.status === 201).length;
      const after = await balance(secret);
      // Pending money of any release instant, straight from SQL: none below zero.
      const negative = await sql.query(
        `SELECT release_at FROM ledger_entries WHERE account_id = $1 AND livemode = false
           AND bucket = 'available' AND release_at IS NOT NULL GROUP BY release_at HAVING sum(amount_cents) < 0`,
        [account.id],
      );
      expect(before).toMatchObject({ availableCents: 6000, pendingCents: 8910 });
      expect(
        results.every(
          (r) =>
            r.status === 201 ||
            (r.status === 400 && (r.body.code === "INSUFFICIENT_BALANCE" || r.body.code === "REQUEST_ERROR")),
        ),
      ).toBe(true);
      expect(refunded).toBeGreaterThan(0);
      expect(refunded).toBeLessThanOrEqual(8990);
      expect(withdrawn).toBeGreaterThan(0);
      expect(after.pendingCents).toBe(Math.max(0, 8910 - refunded));
      expect(after.availableCents).toBe(6000 - withdrawn - Math.max(0, refunded - 8910));
      expect(after.availableCents).toBeGreaterThanOrEqual(0);
      expect(negative.rows).toEqual([]);
      expect(
        (await bodyOf(api(1, secret).GET("/api/v1/transactions/{id}", byId(charge.id)), 200)).refundedAmountCents,
      ).toBe(refunded);
      const total = 6000 + 8910 - withdrawn - refunded;
      expect(await ledgerSums(account.id)).toEqual({ entries: total, totalsRow: total });
    });

    test("when both processes stop and one starts again on the database, then every account, key, charge, balance and event is there", async () => {
      const seeded = await seedAccount();
      await fund(seeded.secret, [3000]);
      const accounts = await store.read.accounts.list({ limit: 100 });
      const snapshot = async () => {
        const out: Record<string, unknown> = {};
        for (const account of accounts.items) {
          const scope = { accountId: account.id, livemode: false };
          out[account.id] = {
            account: await store.read.accounts.get(account.id),
            keys: await store.read.apiKeys.listByAccount(account.id),
            transactions: await store.read.transactions.list(
              scope,
              { now: "2000-01-01T00:00:00.000Z" },
              { limit: 100 },
            ),
            withdrawals: await store.read.withdrawals.list(scope, { limit: 100 }),
            ledger: await store.read.ledger.list(scope),
            events: await store.read.events.list(scope),
          };
        }
        return out;
      };
      const httpView = async (i: number) => ({
        balance: (await api(i, seeded.secret).GET("/api/v1/balance")).body,
        transactions: (await api(i, seeded.secret).GET("/api/v1/transactions", first100)).body,
        customers: (await api(i, seeded.secret).GET("/api/v1/customers", first100)).body,
      });
      const before = await snapshot();
      const httpBefore = await httpView(0);

      await Promise.all([a.stop(), b.stop()]);
      a = await startServer(ports.first, database.url, "off");
      b = a;
      const httpAfter = await httpView(0);
      const after = await snapshot();

      expect(accounts.items.length).toBeGreaterThanOrEqual(6);
      expect(httpBefore.balance).toMatchObject({ availableCents: 3000 });
      expect(httpAfter).toEqual(httpBefore);
      expect(after).toEqual(before);
      for (const account of accounts.items) {
        const keys = await store.read.apiKeys.listByAccount(account.id);
        expect(keys.length).toBeGreaterThan(0);
      }
    });
  });

  describe("rate limits", () => {
    let a: ServerProcess;
    let b: ServerProcess;
    beforeAll(async () => {
      [a, b] = await Promise.all([
        startServer(ports.limitedFirst, database.url, "default"),
        startServer(ports.limitedSecond, database.url, "default"),
      ]);
    }, 90_000);
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
    });

    // The bound (web/rate-limit-store.ts): a client under half its budget is counted in each process
    // alone; from half on, the shared counter decides each hit. So 61 POSTs at once, split across
    // two processes, pass at most 60 plus what one process admitted on its own (under half a
    // budget, 29), and after them both refuse the next.
    test("when 61 POSTs from one IP are split across both processes, then the shared budget holds within its bound and both refuse after it", async () => {
      const { secret } = await seedAccount();

      const client = { "x-forwarded-for": "198.51.100.60" };
      const results = await Promise.all(
        Array.from({ length: 61 }, (_v, i) =>
          publicApi((i % 2 === 0 ? a : b).baseUrl, { key: secret, headers: client }).POST("/api/v1/charges/pix", {
            body: chargeBody(),
          }),
        ),
      );
      await new Promise((r) => setTimeout(r, 300));
      const after = await Promise.all(
        [a, b].map((server) =>
          publicApi(server.baseUrl, { key: secret, headers: client }).POST("/api/v1/charges/pix", {
            body: chargeBody(),
          }),
        ),
      );

      const passed = count(results, (r) => r.status === 201);
      expect(passed).toBeGreaterThanOrEqual(60);
      expect(passed).toBeLessThanOrEqual(60 + 29);
      expect(count(results, (r) => r.status !== 201 && r.status !== 429)).toBe(0);
      expect(after.map((r) => r.status)).toEqual([429, 429]);
      expect(after[0]?.body).toMatchObject({ code: "RATE_LIMITED" });
      expect(Number(after[0]?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    });

    test("when 61 POSTs from one IP go one after another to alternating processes, then exactly 60 pass", async () => {
      const { secret } = await seedAccount();
      const statuses: number[] = [];
      for (let i = 0; i < 61; i++) {
        const res = await publicApi((i % 2 === 0 ? a : b).baseUrl, {
          key: secret,
          headers: { "x-forwarded-for": "198.51.100.61" },
        }).POST("/api/v1/charges/pix", { body: chargeBody() });
        statuses.push(res.status);
      }
      expect(statuses.filter((s) => s === 201)).toHaveLength(60);
      expect(statuses[60]).toBe(429);
    });
  });
});
