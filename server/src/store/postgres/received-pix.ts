import type {
  BankTaskRecord,
  ReceivedPixReads,
  ReceivedPixRecord,
  ReceivedPixWrites,
} from "../../domain/ports/received-pix-store.js";
import { selectList, type TableDef, toRecord } from "./rows.js";
import { execute, type Queryable, query } from "./sql.js";
import { insertRow, pageQuery, selectMany, selectOne, updateRow } from "./statements.js";

// Received Pix and the work owed to the bank (issue 35; migration 1764590000010).

export const receivedPixTable: TableDef<ReceivedPixRecord> = {
  name: "received_pix",
  columns: [
    ["id", (r) => r.id],
    ["txid", (r) => r.txid],
    ["amount_cents", (r) => r.amountCents],
    ["paid_at", (r) => r.paidAt],
    ["payer_name", (r) => r.payerName],
    ["payer_document", (r) => r.payerDocument],
    ["outcome", (r) => r.outcome],
    ["transaction_id", (r) => r.transactionId],
    ["account_id", (r) => r.accountId],
    ["livemode", (r) => r.livemode],
    ["reason", (r) => r.reason],
    ["created_at", (r) => r.createdAt],
    ["return_status", (r) => r.returnStatus],
    ["return_id", (r) => r.returnId],
    ["return_attempts", (r) => r.returnAttempts],
    ["returned_at", (r) => r.returnedAt],
    ["return_failure_reason", (r) => r.returnFailureReason],
  ],
};

export const bankTasksTable: TableDef<BankTaskRecord> = {
  name: "bank_tasks",
  columns: [
    ["id", (t) => t.id],
    ["kind", (t) => t.kind],
    ["subject_id", (t) => t.subjectId],
    ["account_id", (t) => t.accountId],
    ["livemode", (t) => t.livemode],
    ["due_at", (t) => t.dueAt],
    ["attempts", (t) => t.attempts],
    ["last_error", (t) => t.lastError],
    ["created_at", (t) => t.createdAt],
  ],
};

/** The columns' types (the migration's), as `jsonb_to_recordset` reads a page of rows. */
const columnTypes: Record<string, string> = {
  id: "text",
  txid: "text",
  amount_cents: "bigint",
  paid_at: "timestamptz",
  payer_name: "text",
  payer_document: "text",
  outcome: "text",
  transaction_id: "text",
  account_id: "text",
  livemode: "boolean",
  reason: "text",
  created_at: "timestamptz",
  return_status: "text",
  return_id: "text",
  return_attempts: "integer",
  returned_at: "timestamptz",
  return_failure_reason: "text",
};
const recordsetTypes = receivedPixTable.columns
  .map(([column]) => {
    const type = columnTypes[column];
    if (!type) throw new Error(`received_pix.${column} has no type for jsonb_to_recordset`);
    return `${column} ${type}`;
  })
  .join(", ");

export function receivedPixReads(db: Queryable): ReceivedPixReads {
  return {
    receivedPix: {
      get: (id) => selectOne(db, receivedPixTable, "id = $1", [id]),
      getMany: (ids) => selectMany(db, receivedPixTable, "id = ANY ($1::text[])", [ids], 'id COLLATE "C"'),
      getCreditedTo: (transactionId) =>
        selectOne(db, receivedPixTable, "transaction_id = $1 AND outcome = 'CREDITED'", [transactionId]),
      listUnmatched: (page) =>
        pageQuery(db, receivedPixTable, { scope: "outcome = 'UNMATCHED'", values: [] }, page, { selective: false }),
    },
    bankTasks: {
      get: (id) => selectOne(db, bankTasksTable, "id = $1", [id]),
    },
  };
}

export function receivedPixWrites(client: Queryable): ReceivedPixWrites {
  const reads = receivedPixReads(client);
  const columns = receivedPixTable.columns.map(([column]) => column);
  return {
    receivedPix: {
      ...reads.receivedPix,
      insertIfAbsent: async (record) =>
        (await execute(
          client,
          `INSERT INTO received_pix (${columns.join(", ")}) VALUES (${columns.map((_c, i) => `$${i + 1}`).join(", ")})
           ON CONFLICT (id) DO NOTHING`,
          receivedPixTable.columns.map(([, value]) => value(record)),
        )) === 1,
      // One statement for a page of them: the rows travel as one JSON array of records.
      insertManyIfAbsent: async (records) => {
        if (records.length === 0) return new Set();
        const rows = await query<{ id: string }>(
          client,
          `INSERT INTO received_pix (${columns.join(", ")})
           SELECT ${columns.join(", ")} FROM jsonb_to_recordset($1::jsonb) AS r(${recordsetTypes})
           ON CONFLICT (id) DO NOTHING
           RETURNING id`,
          [
            JSON.stringify(
              records.map((record) => Object.fromEntries(receivedPixTable.columns.map(([c, v]) => [c, v(record)]))),
            ),
          ],
        );
        return new Set(rows.map((row) => row.id));
      },
      updateReturn: async (record, expected) =>
        (await execute(
          client,
          `UPDATE received_pix
              SET return_status = $2, return_id = $3, return_attempts = $4, returned_at = $5, return_failure_reason = $6
            WHERE id = $1 AND outcome = 'UNMATCHED' AND return_attempts = $7 AND return_status IS NOT DISTINCT FROM $8`,
          [
            record.id,
            record.returnStatus,
            record.returnId,
            record.returnAttempts,
            record.returnedAt,
            record.returnFailureReason,
            expected.returnAttempts,
            expected.returnStatus,
          ],
        )) === 1,
    },
    bankTasks: {
      ...reads.bankTasks,
      put: async (task) => {
        if (await reads.bankTasks.get(task.id)) await updateRow(client, bankTasksTable, task);
        else await insertRow(client, bankTasksTable, task);
      },
      delete: async (id) => {
        await execute(client, "DELETE FROM bank_tasks WHERE id = $1", [id]);
      },
      claimDue: async (now, lockUntil, limit) => {
        const rows = await query(
          client,
          `UPDATE bank_tasks AS t SET due_at = $2::timestamptz
           FROM (SELECT id FROM bank_tasks WHERE due_at <= $1::timestamptz
                 ORDER BY due_at, id COLLATE "C" LIMIT $3 FOR UPDATE SKIP LOCKED) AS due
           WHERE t.id = due.id
           RETURNING ${selectList(bankTasksTable, "t.")}`,
          [now, lockUntil, limit],
        );
        return rows.map((row) => toRecord(bankTasksTable, row)).sort((a, b) => (a.id < b.id ? -1 : 1));
      },
    },
  };
}
