import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { Scope } from "../../src/domain/core/model.js";
import type { StoreReads } from "../../src/domain/ports/store.js";
import { createPool, PostgresStore } from "../../src/store/postgres/index.js";
import { reads } from "../../src/store/postgres/reads.js";
import type { Queryable, Row } from "../../src/store/postgres/sql.js";
import { accountRecord, transactionRecord } from "./contract.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";

// Every list of the store pages newest first with LIMIT: on 10^6 rows that is fast only when an
// index gives the order. The statements are the store's own (recorded as it runs them); each is
// planned with sequential scans and sorts priced out, so a plan still holding either means no
// index can serve it (on real data PostgreSQL would scan and sort the whole filtered set).

interface PlanNode {
  "Node Type": string;
  Plans?: PlanNode[];
}
const nodeTypes = (node: PlanNode): string[] => [node["Node Type"], ...(node.Plans ?? []).flatMap(nodeTypes)];

describePg("list queries on PostgreSQL", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let store: PostgresStore;
  const scope: Scope = { accountId: "", livemode: false };
  let cursorId = "";

  beforeAll(async () => {
    database = await createTestDatabase("list_plans");
    pool = createPool(database.url, { max: 2 });
    store = new PostgresStore(createPool(database.url, { max: 2 }));
    const account = accountRecord();
    scope.accountId = account.id;
    const transaction = transactionRecord(scope);
    cursorId = transaction.id;
    await store.transaction(async (tx) => {
      await tx.accounts.insert(account);
      await tx.transactions.insert(transaction);
    });
  });
  afterAll(async () => {
    await store?.close();
    await pool?.end();
    await database?.drop();
  });

  /** The statements a read runs, recorded instead of answered. */
  async function statementsOf(read: (r: StoreReads) => Promise<unknown>): Promise<pg.QueryConfig[]> {
    const seen: pg.QueryConfig[] = [];
    const recorder: Queryable = {
      query: <R extends Row>(config: pg.QueryConfig) => {
        // A copy: the store goes on pushing values into the same array for its next statement.
        seen.push({ text: config.text, values: [...(config.values ?? [])] });
        return pool.query<R>(config);
      },
    };
    await read(reads(recorder));
    return seen;
  }

  async function plan(config: pg.QueryConfig): Promise<string[]> {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SET LOCAL enable_seqscan = off");
      await client.query("SET LOCAL enable_sort = off");
      const result = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>({
        text: `EXPLAIN (FORMAT JSON) ${config.text}`,
        values: config.values ?? [],
      });
      const [explained] = result.rows[0]?.["QUERY PLAN"] ?? [];
      return explained ? nodeTypes(explained.Plan) : [];
    } finally {
      await client.query("ROLLBACK");
      client.release();
    }
  }

  const now = "2026-10-04T15:30:00.000Z";
  const page = { limit: 20, startingAfter: undefined };
  const lists: Record<string, (r: StoreReads) => Promise<unknown>> = {
    "transactions, no filter": (r) => r.transactions.list(scope, { now }, page),
    "transactions, after a cursor": (r) => r.transactions.list(scope, { now }, { limit: 20, startingAfter: cursorId }),
    "transactions, status PAID": (r) => r.transactions.list(scope, { now, status: "PAID" }, page),
    "transactions, status WAITING_PAYMENT": (r) => r.transactions.list(scope, { now, status: "WAITING_PAYMENT" }, page),
    "transactions, status EXPIRED": (r) => r.transactions.list(scope, { now, status: "EXPIRED" }, page),
    "transactions, payment link": (r) => r.transactions.list(scope, { now, paymentLinkId: "plk_x" }, page),
    "transactions, disputed": (r) => r.transactions.list(scope, { now, dispute: "ANY" }, page),
    "transactions, dispute OPEN": (r) => r.transactions.list(scope, { now, dispute: "OPEN" }, page),
    "transactions, created range": (r) =>
      r.transactions.list(scope, { now, createdFrom: "2026-01-01T00:00:00.000Z", createdTo: now }, page),
    accounts: (r) => r.accounts.list(page),
    customers: (r) => r.customers.list(scope, {}, page),
    "customers by document": (r) => r.customers.list(scope, { document: "52998224725" }, page),
    "payment links": (r) => r.paymentLinks.list(scope, {}, page),
    "payment links, active": (r) => r.paymentLinks.list(scope, { active: true }, page),
    withdrawals: (r) => r.withdrawals.list(scope, page),
    events: (r) => r.events.listPage(scope, page),
    refunds: (r) => r.refunds.listByTransaction(scope, cursorId, page),
    "webhook deliveries": (r) => r.deliveries.listByEndpoint("we_x", page),
    "API keys of an account": (r) => r.apiKeys.listByAccount(scope.accountId),
    "webhook endpoints of an account": (r) => r.webhookEndpoints.listByAccount(scope.accountId),
  };

  test.each(Object.keys(lists))(
    "when the %s list is planned, then it walks an index in order: no sequential scan, no sort",
    async (name) => {
      const statements = await statementsOf(lists[name] as (r: StoreReads) => Promise<unknown>);
      expect(statements.length).toBeGreaterThan(0);
      for (const statement of statements) {
        const nodes = await plan(statement);
        expect(
          nodes.some((n) => n.includes("Index")),
          `${statement.text}\n${nodes.join(" > ")}`,
        ).toBe(true);
        expect(
          nodes.filter((n) => n === "Seq Scan" || n === "Sort"),
          statement.text,
        ).toEqual([]);
      }
    },
  );
});
