import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { auditTable } from "../../src/store/postgres/audit.js";
import {
  accountSecurityTable,
  emailTokensTable,
  invitationsTable,
  sessionsTable,
  stepUpFailuresTable,
  usersTable,
  verificationRequestsTable,
} from "../../src/store/postgres/identity.js";
import { createPool } from "../../src/store/postgres/index.js";
import { recurrencesTable } from "../../src/store/postgres/recurrences.js";
import { refundsTable } from "../../src/store/postgres/refunds.js";
import { bankTasksTable, receivedPixTable } from "../../src/store/postgres/received-pix.js";
import { noticePreferencesTable, noticesTable } from "../../src/store/postgres/notices.js";
import {
  accountsTable,
  apiKeysTable,
  customersTable,
  deliveriesTable,
  endpointsTable,
  eventsTable,
  idempotencyTable,
  isTimestampColumn,
  ledgerTable,
  paymentLinksTable,
  type TableDef,
  transactionsTable,
  withdrawalsTable,
} from "../../src/store/postgres/rows.js";
import { execute, query } from "../../src/store/postgres/sql.js";
import { insertRow, selectMany, selectOne } from "../../src/store/postgres/statements.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";

// Whole rows leave PostgreSQL as one JSON object each (`jsonRow`), timestamps formatted in SQL;
// which columns are timestamps is read off their names, checked here against the schema itself.

/** What the schema check reads of each table's definition. */
const tables: { name: string; columns: ReadonlyArray<readonly [column: string, ...unknown[]]> }[] = [
  accountsTable,
  apiKeysTable,
  customersTable,
  transactionsTable,
  paymentLinksTable,
  withdrawalsTable,
  ledgerTable,
  eventsTable,
  idempotencyTable,
  endpointsTable,
  deliveriesTable,
  auditTable,
  usersTable,
  sessionsTable,
  emailTokensTable,
  accountSecurityTable,
  stepUpFailuresTable,
  invitationsTable,
  verificationRequestsTable,
  recurrencesTable,
  refundsTable,
  receivedPixTable,
  bankTasksTable,
  noticePreferencesTable,
  noticesTable,
];

describePg("rows read as JSON", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase("row_json");
  });
  afterAll(() => database?.drop());

  test("when the migrated schema is read, then every column a table definition reads exists, and the timestamps are exactly the ones named as such", async () => {
    const pool = createPool(database.url);
    try {
      const columns = await query<{ table: string; column: string; type: string }>(
        pool,
        `SELECT table_name AS "table", column_name AS "column", data_type AS "type"
         FROM information_schema.columns WHERE table_schema = current_schema()`,
      );
      const typeOf = new Map(columns.map((c) => [`${c.table}.${c.column}`, c.type]));
      const misnamed: string[] = [];
      for (const def of tables) {
        // `json_build_object` takes at most 100 arguments (FUNC_MAX_ARGS): 50 columns.
        expect(def.columns.length, def.name).toBeLessThanOrEqual(50);
        for (const [column] of def.columns) {
          const type = typeOf.get(`${def.name}.${column}`);
          expect(type, `${def.name}.${column}`).toBeDefined();
          if ((type === "timestamp with time zone") !== isTimestampColumn(column))
            misnamed.push(`${def.name}.${column}: ${type}`);
        }
      }
      expect(misnamed).toEqual([]);
      // No other kind of time in the store's tables: a timestamp without zone or a time of day
      // would need a form of its own.
      const read = new Set(tables.map((def) => def.name));
      expect(columns.filter((c) => read.has(c.table) && /^(timestamp without|time )/.test(c.type))).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  test("when instants from year 1 to 9999 are written and read back as whole rows, then each is its ISO form", async () => {
    const pool = createPool(database.url);
    const def: TableDef<{ id: string; createdAt: string; tags: string[]; body: unknown; cents: number | null }> = {
      name: "row_json_probe",
      columns: [
        ["id", (r) => r.id],
        ["created_at", (r) => r.createdAt],
        ["tags", (r) => r.tags],
        ["body", (r) => JSON.stringify(r.body)],
        ["cents", (r) => r.cents],
      ],
    };
    try {
      await execute(
        pool,
        "CREATE TABLE row_json_probe (id text PRIMARY KEY, created_at timestamptz(3) NOT NULL, tags text[] NOT NULL, body jsonb NOT NULL, cents bigint)",
      );
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.date({
            min: new Date("0001-01-01T00:00:00.000Z"),
            max: new Date("9999-12-31T23:59:59.999Z"),
            noInvalidDate: true,
          }),
          fc.array(fc.string()),
          fc.jsonValue(),
          fc.option(fc.maxSafeNat()),
          async (at, tags, body, cents) => {
            const record = { id: `r${n++}`, createdAt: at.toISOString(), tags, body, cents };
            await insertRow(pool, def, record);
            // What jsonb keeps of a JSON value: -0 as 0, and object keys as a set.
            expect(await selectOne(pool, def, "id = $1", [record.id])).toEqual({
              ...record,
              body: JSON.parse(JSON.stringify(body)),
            });
          },
        ),
        { numRuns: 300 },
      );
      const all = await selectMany(pool, def, "true", [], "created_at, id");
      expect(all).toHaveLength(n);
      expect(all.map((r) => r.createdAt)).toEqual(all.map((r) => r.createdAt).sort());
    } finally {
      await pool.end();
    }
  });
});
