import type { RecurrenceRecord } from "../../domain/core/model.js";
import type { RecurrenceFilter, StoreReads, StoreTx } from "../../domain/ports/store.js";
import { json, jsonOrNull, type Queryable } from "./sql.js";
import { type TableDef, transactionsTable } from "./rows.js";
import { insertRow, pageQuery, selectMany, selectOne, updateRow } from "./statements.js";

// Recurrences (Pix Automático, issue 27; migration 1764400000000) and the charges of one.

export const recurrencesTable: TableDef<RecurrenceRecord> = {
  name: "recurrences",
  columns: [
    ["id", (r) => r.id],
    ["account_id", (r) => r.accountId],
    ["livemode", (r) => r.livemode],
    ["status", (r) => r.status],
    ["journey", (r) => r.journey],
    ["payer", (r) => json(r.payer)],
    ["contract_reference", (r) => r.contractReference],
    ["description", (r) => r.description],
    ["periodicity", (r) => r.periodicity],
    ["first_date", (r) => r.firstDate],
    ["last_date", (r) => r.lastDate],
    ["amount_cents", (r) => r.amountCents],
    ["minimum_amount_cents", (r) => r.minimumAmountCents],
    ["payer_maximum_amount_cents", (r) => r.payerMaximumAmountCents],
    ["retry_policy", (r) => r.retryPolicy],
    ["automatic_charges", (r) => r.automaticCharges],
    ["initial_transaction_id", (r) => r.initialTransactionId],
    ["br_code", (r) => r.brCode],
    ["metadata", (r) => json(r.metadata)],
    ["expires_at", (r) => r.expiresAt],
    ["approved_at", (r) => r.approvedAt],
    ["rejection", (r) => jsonOrNull(r.rejection)],
    ["cancellation", (r) => jsonOrNull(r.cancellation)],
    ["history", (r) => json(r.history)],
    ["simulated_date", (r) => r.simulatedDate],
    ["bank_loc_id", (r) => r.bankLocId ?? null],
    ["bank_rec_id", (r) => r.bankRecId ?? null],
    ["created_at", (r) => r.createdAt],
    ["updated_at", (r) => r.updatedAt],
  ],
};

const scoped = "account_id = $1 AND livemode = $2";

/** The list's filters as SQL after the scope's `$1`, `$2`: `EXPIRED` includes CREATED past `expires_at`. */
function recurrenceFilterSql(filter: RecurrenceFilter, values: unknown[]): string {
  const clauses: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.status === "EXPIRED") {
    const now = param(filter.now);
    clauses.push(`(status = 'EXPIRED' OR (status = 'CREATED' AND expires_at <= ${now}::timestamptz))`);
  } else if (filter.status === "CREATED") {
    clauses.push(`(status = 'CREATED' AND expires_at > ${param(filter.now)}::timestamptz)`);
  } else if (filter.status !== undefined) {
    clauses.push(`status = ${param(filter.status)}`);
  }
  if (filter.customerId !== undefined) clauses.push(`payer ->> 'id' = ${param(filter.customerId)}`);
  if (filter.createdFrom !== undefined) clauses.push(`created_at >= ${param(filter.createdFrom)}::timestamptz`);
  if (filter.createdTo !== undefined) clauses.push(`created_at < ${param(filter.createdTo)}::timestamptz`);
  return clauses.length ? ` AND ${clauses.join(" AND ")}` : "";
}

export function recurrenceReads(db: Queryable): StoreReads["recurrences"] {
  return {
    get: (scope, id) => selectOne(db, recurrencesTable, `${scoped} AND id = $3`, [scope.accountId, scope.livemode, id]),
    getById: (id) => selectOne(db, recurrencesTable, "id = $1", [id]),
    getByBankRecId: (bankRecId) => selectOne(db, recurrencesTable, "bank_rec_id = $1", [bankRecId]),
    list: (scope, filter, page) =>
      pageQuery(
        db,
        recurrencesTable,
        {
          scope: scoped,
          values: [scope.accountId, scope.livemode],
          filters: (values) => recurrenceFilterSql(filter, values),
        },
        page,
      ),
    listExpiring: (now, limit) =>
      selectMany(
        db,
        recurrencesTable,
        "status = 'CREATED' AND expires_at <= $1::timestamptz",
        [now],
        `expires_at, id COLLATE "C" LIMIT ${Number(limit)}`,
      ),
    listAutomatic: (limit, afterId) =>
      selectMany(
        db,
        recurrencesTable,
        "status = 'APPROVED' AND automatic_charges AND id > $1",
        [afterId ?? ""],
        `id COLLATE "C" LIMIT ${Number(limit)}`,
      ),
  };
}

export function recurrenceWrites(client: Queryable): StoreTx["recurrences"] {
  return {
    ...recurrenceReads(client),
    insert: (recurrence) => insertRow(client, recurrencesTable, recurrence),
    update: (recurrence) => updateRow(client, recurrencesTable, recurrence),
  };
}

/** Every charge of one recurrence, oldest first (`transactions_by_recurrence`). */
export const chargesOfRecurrence =
  (db: Queryable): StoreReads["transactions"]["listByRecurrence"] =>
  (scope, recurrenceId) =>
    selectMany(
      db,
      transactionsTable,
      `recurrence_id = $3 AND ${scoped}`,
      [scope.accountId, scope.livemode, recurrenceId],
      `created_at, id COLLATE "C"`,
    );
