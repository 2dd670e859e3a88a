import pg from "pg";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { createPool, PostgresStore } from "../../src/store/postgres/index.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";

// A transaction is one connection, and a connection runs one statement at a time. The domain may
// still read in parallel inside a transaction (`Promise.all` of reads on `tx`, as the bank
// connection's view does): the store sends each statement once the one before it has settled.
// pg queued them itself, which pg 8.13 deprecated ("Calling client.query() when the client is
// already executing a query") and pg 9 removes.

/** Statements handed to a connection while another of its statements had not settled. */
const overlapping: string[] = [];
const unsettled = new WeakMap<pg.Client, number>();

/** A connection that notes a statement given to it while it is still running another (the pool's public `Client` option). */
class OneAtATimeClient extends pg.Client {}
Object.defineProperty(OneAtATimeClient.prototype, "query", {
  value: function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    const text = typeof first === "string" ? first : (first.text ?? "");
    const running = unsettled.get(this) ?? 0;
    if (running > 0) overlapping.push(text.replace(/\s+/g, " ").trim());
    unsettled.set(this, running + 1);
    const result = (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    const settle = () => unsettled.set(this, (unsettled.get(this) ?? 1) - 1);
    if (result instanceof Promise) result.then(settle, settle);
    else settle();
    return result;
  },
});

describePg("a transaction's statements on PostgreSQL", () => {
  let database: TestDatabase;
  let store: PostgresStore;

  beforeAll(async () => {
    database = await createTestDatabase("transaction_statements");
    store = new PostgresStore(createPool(database.url, { max: 2, Client: OneAtATimeClient }));
  });
  afterEach(() => {
    overlapping.length = 0;
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  test("when a transaction reads three things at once, then its connection gets them one after another and each answer is its own", async () => {
    // Act
    const [account, request, health, changes] = await store.transaction((tx) =>
      Promise.all([
        tx.accounts.get("acc_nenhuma"),
        tx.verificationRequests.get("acc_nenhuma"),
        tx.bankHealth.get(),
        tx.bankConnectionChanges.listRecent(5),
      ]),
    );

    // Assert
    expect(account).toBeNull();
    expect(request).toBeNull();
    expect(health).toBeNull();
    expect(changes).toEqual([]);
    expect(overlapping).toEqual([]);
  });

  test("when one of a transaction's parallel reads fails, then the transaction rolls back after the others settle and the connection serves the next transaction", async () => {
    // Act
    const failed = await store
      .transaction((tx) =>
        Promise.all([
          tx.accounts.get("acc_nenhuma"),
          // LIMIT -1: PostgreSQL refuses the statement ("LIMIT must not be negative").
          tx.withdrawals.listPendingAtBank(-1),
          tx.verificationRequests.get("acc_nenhuma"),
        ]),
      )
      .then(
        () => null,
        (error: unknown) => error,
      );
    const after = await store.transaction((tx) => tx.accounts.get("acc_nenhuma"));

    // Assert
    expect(failed).toBeInstanceOf(Error);
    expect(after).toBeNull();
    expect(overlapping).toEqual([]);
  });
});
