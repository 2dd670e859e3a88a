import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { allPermissions, createAccount, createApiKey } from "../../src/domain/accounts/index.js";
import { addDays, brasiliaDate } from "../../src/domain/payments/index.js";
import { createPool, PostgresStore } from "../../src/store/postgres/index.js";
import { rawCall } from "../harness.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";
import { recurrenceBody } from "../support/recurrences.js";
import { type ServerProcess, startServerProcess } from "../support/server-process.js";

// Cycle charges of recurrences (Pix Automático) raced across two real server processes on one
// PostgreSQL database (the acceptance of issue 27): settling and cancelling one charge at once,
// and sending one cycle's charge many times at once. One wins; the balance, the ledger and the
// events agree with it.

const ports = { first: 4741, second: 4742 } as const;
const burst = 50;

let database: TestDatabase;
let store: PostgresStore;
let sql: pg.Pool;
let a: ServerProcess;
let b: ServerProcess;

describePg("cycle charges raced by two server processes on PostgreSQL", () => {
  beforeAll(async () => {
    database = await createTestDatabase("recurrence_concurrency", { migrate: false });
    sql = new pg.Pool({ connectionString: database.url, max: 2 });
    store = new PostgresStore(createPool(database.url, { max: 3 }));
    const start = (port: number) =>
      startServerProcess({ name: `on ${port}`, port, env: { DATABASE_URL: database.url, RATE_LIMITS: "off" } });
    [a, b] = await Promise.all([start(ports.first), start(ports.second)]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await store?.close();
    await sql?.end();
    await database?.drop();
  });

  const server = (i: number) => (i % 2 === 0 ? a : b);
  const post = (i: number, key: string, path: string, body?: unknown) =>
    rawCall<any>(server(i).baseUrl, "POST", path, { key, ...(body === undefined ? {} : { body }) });
  const get = (i: number, key: string, path: string) => rawCall<any>(server(i).baseUrl, "GET", path, { key });

  /** A verified account whose paid money is available at once, and a full test key. */
  async function seedAccount() {
    const now = new Date().toISOString();
    return store.transaction(async (tx) => {
      const account = await createAccount(
        tx,
        {
          name: "Academia Concorrente Ltda",
          ownerEmail: "dono@academia.example",
          verified: true,
          releasePeriodDays: 0,
        },
        now,
      );
      const { secret } = await createApiKey(
        tx,
        account,
        { name: "test", livemode: false, permissions: [...allPermissions] },
        now,
      );
      return { account, secret, scope: { accountId: account.id, livemode: false } };
    });
  }

  /** An approved monthly R$ 49,90 recurrence whose first cycle is 5 days ahead (the real Brasília date). */
  async function approvedRecurrence(key: string): Promise<{ id: string; firstDate: string }> {
    const firstDate = addDays(brasiliaDate(new Date()), 5);
    const made = await post(0, key, "/api/v1/recurrences", recurrenceBody({ firstDate }));
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((await post(1, key, `/api/v1/sandbox/recurrences/${made.body.id}/approve`, {})).status).toBe(200);
    return { id: made.body.id, firstDate };
  }

  /** The ledger's own sum and the trigger-kept totals row, straight from SQL. */
  async function ledgerSums(accountId: string) {
    const entries = await sql.query<{ sum: string }>(
      "SELECT coalesce(sum(amount_cents), 0) AS sum FROM ledger_entries WHERE account_id = $1 AND livemode = false",
      [accountId],
    );
    const totals = await sql.query<{ available: string | null }>(
      "SELECT available_total_cents AS available FROM ledger_balances WHERE account_id = $1 AND livemode = false",
      [accountId],
    );
    return { entries: Number(entries.rows[0]?.sum), totalsRow: Number(totals.rows[0]?.available ?? 0) };
  }

  test(`when a cycle charge is settled PAID and cancelled ${burst} times at once through both processes, then one wins and the balance, ledger and events agree with it`, async () => {
    const { secret, account, scope } = await seedAccount();
    const r = await approvedRecurrence(secret);
    const charge = await post(0, secret, `/api/v1/recurrences/${r.id}/charges`, { dueDate: r.firstDate });
    expect(charge.status).toBe(201);
    const id = charge.body.id as string;

    const results = await Promise.all(
      Array.from({ length: burst }, (_v, i) =>
        i % 4 < 2
          ? post(i, secret, `/api/v1/sandbox/transactions/${id}/settle-attempt`, { outcome: "PAID" })
          : post(i, secret, `/api/v1/transactions/${id}/cancel`),
      ),
    );

    const won = results.filter((res) => res.status === 200);
    expect(won).toHaveLength(1);
    expect(results.filter((res) => res.status === 400 && res.body.code === "REQUEST_ERROR")).toHaveLength(burst - 1);
    const final = await get(1, secret, `/api/v1/transactions/${id}`);
    expect(final.body).toEqual(won[0]?.body);
    const balance = (await get(0, secret, "/api/v1/balance")).body as { availableCents: number; pendingCents: number };
    const events = (await store.read.events.list(scope)).map((e) => e.type);
    const credits = (await store.read.ledger.list(scope)).filter((e) => e.refId === id);
    if (final.body.status === "PAID") {
      expect(final.body.attempts.map((x: { status: string }) => x.status)).toEqual(["PAID"]);
      expect(credits.map((e) => e.amountCents)).toEqual([4910]);
      expect(balance.availableCents + balance.pendingCents).toBe(4910);
      expect(events.filter((t) => t === "transaction.paid")).toHaveLength(1);
      expect(events).not.toContain("recurring_charge.cancelled");
      expect(await ledgerSums(account.id)).toEqual({ entries: 4910, totalsRow: 4910 });
    } else {
      expect(final.body.status).toBe("CANCELLED");
      expect(final.body.attempts.map((x: { status: string }) => x.status)).toEqual(["CANCELLED"]);
      expect(credits).toEqual([]);
      expect(balance.availableCents + balance.pendingCents).toBe(0);
      expect(events.filter((t) => t === "recurring_charge.cancelled")).toHaveLength(1);
      expect(events).not.toContain("transaction.paid");
      expect(await ledgerSums(account.id)).toEqual({ entries: 0, totalsRow: 0 });
    }
    console.info(`settle vs cancel: ${final.body.status} won`);
  });

  test(`when one cycle's charge is sent ${burst} times at once through both processes, then exactly one is made`, async () => {
    const { secret } = await seedAccount();
    const r = await approvedRecurrence(secret);

    const results = await Promise.all(
      Array.from({ length: burst }, (_v, i) =>
        post(i, secret, `/api/v1/recurrences/${r.id}/charges`, { dueDate: r.firstDate }),
      ),
    );

    expect(results.filter((res) => res.status === 201)).toHaveLength(1);
    expect(results.filter((res) => res.status === 400 && res.body.code === "REQUEST_ERROR")).toHaveLength(burst - 1);
    const listed = await get(0, secret, `/api/v1/transactions?recurrenceId=${r.id}&limit=100`);
    expect(listed.body.data).toHaveLength(1);
    const live = await sql.query<{ n: string }>(
      "SELECT count(*) AS n FROM transactions WHERE recurrence_id = $1 AND cycle ->> 'dueDate' = $2",
      [r.id, r.firstDate],
    );
    expect(Number(live.rows[0]?.n)).toBe(1);
  });

  test("when the database is asked for a second live charge of a cycle behind the domain's back, then its unique index refuses it", async () => {
    const { secret } = await seedAccount();
    const r = await approvedRecurrence(secret);
    const charge = await post(0, secret, `/api/v1/recurrences/${r.id}/charges`, { dueDate: r.firstDate });
    expect(charge.status).toBe(201);

    const columns = `account_id, livemode, status, amount_cents, fee_cents, description, br_code, customer,
      metadata, expires_at, created_at, updated_at, recurrence_id, cycle`;
    const copy = sql.query(
      `INSERT INTO transactions (id, ${columns})
       SELECT 'txn_copia' || substr(id, 5), ${columns} FROM transactions WHERE id = $1`,
      [charge.body.id],
    );

    await expect(copy).rejects.toThrow(/transactions_one_live_charge_per_cycle/);
  });
});
