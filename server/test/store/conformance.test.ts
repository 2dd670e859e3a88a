import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { byOperator, recordAudit } from "../../src/domain/audit/index.js";
import type { Scope, TransactionStatus } from "../../src/domain/core/model.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import type { StoreTx } from "../../src/domain/ports/store.js";
import { sharedRateLimitStore } from "../../src/http/kit/rate-limit-store.js";
import { createPool, PostgresStore, pgRateLimitCounters } from "../../src/store/postgres/index.js";
import {
  accountRecord,
  apiKeyRecord,
  customerRecord,
  describeStoreContract,
  ledgerEntry,
  refundRecord,
  transactionRecord,
  withdrawalRecord,
} from "./contract.js";
import { createTestDatabase, describePg, pgAdminUrl, type TestDatabase } from "../support/pg.js";

describeStoreContract("memory", async () => new MemoryStore());

// PostgreSQL: one migrated database per file; each test gets a copy of it (a template clone).
let template: TestDatabase | undefined;
beforeAll(async () => {
  if (pgAdminUrl) template = await createTestDatabase("conformance");
}, 60_000);
afterAll(async () => {
  await template?.drop();
});

async function pgClone() {
  if (!template) throw new Error("no template database");
  return (await template.clone()).url;
}
const makePgStore = async () => new PostgresStore(createPool(await pgClone(), { max: 4 }));

if (pgAdminUrl) describeStoreContract("postgres", makePgStore);
else describe.skip("Store contract: postgres (no PostgreSQL server: see the global setup's message)", () => {});

/** What the schema refuses by itself, whatever the application sends (PostgreSQL only). */
describePg("PostgreSQL schema constraints", () => {
  let store: PostgresStore;
  let raw: pg.Pool;
  beforeAll(async () => {
    const url = await pgClone();
    store = new PostgresStore(createPool(url, { max: 2 }));
    raw = new pg.Pool({ connectionString: url, max: 1 });
  });
  afterAll(async () => {
    await store.close();
    await raw.end();
  });

  async function seed() {
    const account = accountRecord();
    await store.transaction((tx) => tx.accounts.insert(account));
    return { account, scope: { accountId: account.id, livemode: false } };
  }
  /** SQL as any client could send it, past the application. */
  const sql = (text: string, values: unknown[] = []) => raw.query(text, values);

  test("when a ledger entry is updated or deleted through SQL, then the database refuses", async () => {
    const { scope } = await seed();
    const entry = ledgerEntry(scope, { amountCents: 1000 });
    await store.transaction((tx) => tx.ledger.append(entry));

    await expect(sql("UPDATE ledger_entries SET amount_cents = 1 WHERE id = $1", [entry.id])).rejects.toThrow(
      /append-only/,
    );
    await expect(sql("DELETE FROM ledger_entries WHERE id = $1", [entry.id])).rejects.toThrow(/append-only/);
    await expect(sql("TRUNCATE ledger_entries CASCADE")).rejects.toThrow(/append-only/);
    await expect(sql("UPDATE ledger_balances SET available_total_cents = 0")).rejects.toThrow(/only through ledger/);
    expect(await store.read.ledger.list(scope)).toEqual([entry]);
  });

  test("when an audit entry is updated, deleted or truncated through SQL, then the database refuses", async () => {
    const { account } = await seed();
    const entry = await store.transaction((tx) =>
      recordAudit(tx, {
        accountId: account.id,
        by: byOperator("192.0.2.1"),
        action: "account.updated",
        target: { type: "account", id: account.id },
        changes: { verified: { from: false, to: true } },
        at: "2026-10-04T15:30:00.000Z",
      }),
    );

    await expect(sql("UPDATE audit_log SET action = 'account.created' WHERE id = $1", [entry.id])).rejects.toThrow(
      /append-only/,
    );
    await expect(sql("DELETE FROM audit_log WHERE id = $1", [entry.id])).rejects.toThrow(/append-only/);
    await expect(sql("TRUNCATE audit_log")).rejects.toThrow(/append-only/);
    expect((await store.read.auditLog.listPage(account.id, { limit: 10 })).items).toEqual([entry]);
  });

  test("when a debit would take a balance below zero, then the append fails and the balance stays", async () => {
    const { scope } = await seed();
    await store.transaction((tx) =>
      tx.ledger.append(ledgerEntry(scope, { amountCents: 1000, releaseAt: "2030-01-01T00:00:00.000Z" })),
    );

    const overdraw = store.transaction((tx) =>
      tx.ledger.append(ledgerEntry(scope, { amountCents: -1001, kind: "withdrawal" })),
    );
    const unblock = store.transaction((tx) =>
      tx.ledger.append(ledgerEntry(scope, { amountCents: -1, bucket: "blocked", kind: "dispute_won" })),
    );

    // Both awaited at once: the second can fail while the first is awaited, and a rejection
    // nobody handles yet is an unhandled one (vitest failed a run on it).
    await Promise.all([
      expect(overdraw).rejects.toThrow(/ledger_balances_never_negative/),
      expect(unblock).rejects.toThrow(/ledger_balances_never_negative/),
    ]);
    expect(await store.read.ledger.totals(scope, "2026-01-01T00:00:00.000Z")).toEqual({
      availableCents: 0,
      pendingCents: 1000,
      blockedCents: 0,
    });
  });

  type Write = (scope: Scope) => (tx: StoreTx) => Promise<void>;
  test.each<{ name: string; write: Write }>([
    {
      name: "a charge whose fee eats the whole amount",
      write: (s) => (tx) => tx.transactions.insert(transactionRecord(s, { amountCents: 80, feeCents: 80 })),
    },
    {
      name: "a negative charge amount",
      write: (s) => (tx) => tx.transactions.insert(transactionRecord(s, { amountCents: -5, feeCents: 0 })),
    },
    {
      name: "an unknown transaction status",
      write: (s) => (tx) => tx.transactions.insert(transactionRecord(s, { status: "LOST" as TransactionStatus })),
    },
    {
      name: "a withdrawal paying out and returning more than it took",
      write: (s) => (tx) =>
        tx.withdrawals.insert(withdrawalRecord(s, { paidAmountCents: 2000, returnedAmountCents: 1000 })),
    },
    {
      name: "a charge refunded beyond its amount",
      write: (s) => (tx) => tx.transactions.insert(transactionRecord(s, { refundedAmountCents: 8991 })),
    },
    {
      name: "a refund of nothing",
      write: (s) => async (tx) => {
        const charge = transactionRecord(s, { status: "PAID" });
        await tx.transactions.insert(charge);
        await tx.refunds.insert(refundRecord(s, charge.id, { amountCents: 0 }));
      },
    },
    {
      name: "a refund of a charge that does not exist",
      write: (s) => (tx) => tx.refunds.insert(refundRecord(s, "txn_ghost")),
    },
    {
      name: "a pending refund with a Pix return id",
      write: (s) => async (tx) => {
        const charge = transactionRecord(s, { status: "PAID" });
        await tx.transactions.insert(charge);
        await tx.refunds.insert(refundRecord(s, charge.id, { endToEndId: "D1" }));
      },
    },
    {
      name: "a negative daily withdrawal limit",
      write: (s) => (tx) => tx.apiKeys.insert(apiKeyRecord(s.accountId, { dailyWithdrawLimitCents: -1 })),
    },
    {
      name: "a record of an account that does not exist",
      write: () => (tx) => tx.customers.insert(customerRecord({ accountId: "acc_ghost", livemode: false })),
    },
  ])("when the application writes $name, then the database refuses", async ({ write }) => {
    const { scope } = await seed();

    await expect(store.transaction(write(scope))).rejects.toThrow(/violates/);
  });

  test("when two keys have one digest, then the second is refused (keys are found by digest)", async () => {
    const { account } = await seed();
    const key = apiKeyRecord(account.id);
    await store.transaction((tx) => tx.apiKeys.insert(key));

    const twin = store.transaction((tx) => tx.apiKeys.insert(apiKeyRecord(account.id, { digest: key.digest })));

    await expect(twin).rejects.toThrow(/api_keys_one_per_digest/);
  });

  test("when a timestamp has more than millisecond precision in SQL, then it is read back as toISOString writes it", async () => {
    const { account } = await seed();
    await sql("UPDATE accounts SET updated_at = '2026-10-04 12:30:00.123456-03' WHERE id = $1", [account.id]);

    expect((await store.read.accounts.get(account.id))?.updatedAt).toBe("2026-10-04T15:30:00.123Z");
  });
});

/** What the adapter does about the database itself: lost connections and retried transactions. */
describePg("PostgresStore and its database", () => {
  const warnings: { object: Record<string, unknown>; message: string }[] = [];
  const logger = {
    warn: (object: object, message: string) => warnings.push({ object: object as Record<string, unknown>, message }),
    error: (object: object, message: string) => warnings.push({ object: object as Record<string, unknown>, message }),
  };
  let store: PostgresStore;
  let pool: pg.Pool;
  let raw: pg.Pool;
  beforeAll(async () => {
    const url = await pgClone();
    pool = createPool(url, { max: 4, logger });
    store = new PostgresStore(pool, { logger });
    raw = new pg.Pool({ connectionString: url, max: 1 });
  });
  afterAll(async () => {
    await store.close();
    await raw.end();
  });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  test("when the server ends the pool's idle connections (a restart), then the process lives on and the next read works", async () => {
    const account = accountRecord();
    await store.transaction((tx) => tx.accounts.insert(account));
    await Promise.all([store.read.accounts.count(), store.read.accounts.get(account.id)]);
    warnings.length = 0;

    const ended = await raw.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    for (let i = 0; i < 50 && warnings.length === 0; i++) await sleep(20);

    expect(ended.rowCount).toBeGreaterThan(0);
    expect(warnings.map((w) => w.object.code)).toContain("57P01");
    expect(await store.read.accounts.get(account.id)).toEqual(account);
  });

  test("when two transactions deadlock on two scopes, then PostgreSQL aborts one, it runs again, and both complete", async () => {
    const one = { accountId: "acc_deadlock_1", livemode: false };
    const two = { accountId: "acc_deadlock_2", livemode: false };
    let runs = 0;
    warnings.length = 0;
    const crosswise = (first: Scope, second: Scope) =>
      store.transaction(async (tx) => {
        runs++;
        await tx.lockScope(first);
        await sleep(150);
        await tx.lockScope(second);
        return first.accountId;
      });

    const outcome = await Promise.all([crosswise(one, two), crosswise(two, one)]);

    expect(outcome).toEqual([one.accountId, two.accountId]);
    expect(runs).toBe(3);
    expect(warnings).toEqual([{ object: { code: "40P01", attempt: 1 }, message: "PostgreSQL transaction retried" }]);
  });

  test("when the work fails with a serialization failure, then only the successful run's writes remain", async () => {
    const failed = accountRecord();
    const kept = accountRecord();
    let runs = 0;

    const value = await store.transaction(async (tx) => {
      runs++;
      if (runs === 1) {
        await tx.accounts.insert(failed);
        throw Object.assign(new Error("could not serialize access"), { code: "40001" });
      }
      await tx.accounts.insert(kept);
      return runs;
    });

    expect(value).toBe(2);
    expect(await store.read.accounts.get(failed.id)).toBeNull();
    expect(await store.read.accounts.get(kept.id)).toEqual(kept);
  });

  test("when every run fails with a serialization failure, then it gives up after 5 runs; other errors are not retried", async () => {
    let runs = 0;
    const always = store.transaction(async () => {
      runs++;
      throw Object.assign(new Error("could not serialize access"), { code: "40001" });
    });
    await expect(always).rejects.toMatchObject({ code: "40001" });
    const retriedRuns = runs;
    runs = 0;

    const unique = store.transaction(async () => {
      runs++;
      throw Object.assign(new Error("duplicate key"), { code: "23505" });
    });

    await expect(unique).rejects.toMatchObject({ code: "23505" });
    expect(retriedRuns).toBe(5);
    expect(runs).toBe(1);
  });

  test("when a rate-limit window ends, then the shared counter starts again at 1; decrement and resetKey act on it", async () => {
    const makeStore = sharedRateLimitStore(pgRateLimitCounters(pool));
    const counter = makeStore("contract");
    const other = makeStore("other");
    counter.init?.({ windowMs: 300 } as Parameters<NonNullable<typeof counter.init>>[0]);
    other.init?.({ windowMs: 60_000 } as Parameters<NonNullable<typeof other.init>>[0]);

    const first = await counter.increment("203.0.113.7");
    const second = await counter.increment("203.0.113.7");
    const elsewhere = await other.increment("203.0.113.7");
    await counter.decrement("203.0.113.7");
    const afterDecrement = await counter.get?.("203.0.113.7");
    await sleep(350);
    const expired = await counter.get?.("203.0.113.7");
    const renewed = await counter.increment("203.0.113.7");
    await counter.resetKey("203.0.113.7");
    const reset = await counter.get?.("203.0.113.7");
    await counter.shutdown?.();
    await other.shutdown?.();

    expect([first.totalHits, second.totalHits, elsewhere.totalHits]).toEqual([1, 2, 1]);
    expect(second.resetTime).toEqual(first.resetTime);
    expect(first.resetTime!.getTime() - Date.now()).toBeLessThanOrEqual(300);
    expect(afterDecrement?.totalHits).toBe(1);
    expect(expired).toBeUndefined();
    expect(renewed.totalHits).toBe(1);
    expect(renewed.resetTime!.getTime()).toBeGreaterThan(first.resetTime!.getTime());
    expect(reset).toBeUndefined();
    expect(counter.prefix).not.toBe(other.prefix);
  });
});
