import type { RefundRecord } from "../../domain/core/model.js";
import type { EventFilter, StoreReads, StoreTx } from "../../domain/ports/store.js";
import type { TableDef } from "./rows.js";
import type { Queryable } from "./sql.js";
import { insertRow, pageQuery, selectOne, updateRow } from "./statements.js";

// Refunds and the public event list's filters (issue 13; migration 1764000000013).

export const refundsTable: TableDef<RefundRecord> = {
  name: "refunds",
  columns: [
    ["id", (r) => r.id],
    ["account_id", (r) => r.accountId],
    ["livemode", (r) => r.livemode],
    ["transaction_id", (r) => r.transactionId],
    ["status", (r) => r.status],
    ["amount_cents", (r) => r.amountCents],
    ["reason", (r) => r.reason],
    ["end_to_end_id", (r) => r.endToEndId],
    ["failure_reason", (r) => r.failureReason],
    ["created_at", (r) => r.createdAt],
    ["updated_at", (r) => r.updatedAt],
  ],
};

const scoped = "account_id = $1 AND livemode = $2";

export function refundReads(db: Queryable): StoreReads["refunds"] {
  return {
    get: (scope, id) => selectOne(db, refundsTable, `${scoped} AND id = $3`, [scope.accountId, scope.livemode, id]),
    getById: (id) => selectOne(db, refundsTable, "id = $1", [id]),
    listByTransaction: (scope, transactionId, page) =>
      pageQuery(
        db,
        refundsTable,
        { scope: `${scoped} AND transaction_id = $3`, values: [scope.accountId, scope.livemode, transactionId] },
        page,
      ),
  };
}

export function refundWrites(client: Queryable): StoreTx["refunds"] {
  return {
    ...refundReads(client),
    insert: (refund) => insertRow(client, refundsTable, refund),
    update: (refund) => updateRow(client, refundsTable, refund),
  };
}

/** The event list's filters as SQL after the scope's `$1`, `$2`. */
export function eventFilterSql(filter: EventFilter, values: unknown[]): string {
  const clauses: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.type !== undefined) clauses.push(`type = ${param(filter.type)}`);
  if (filter.createdFrom !== undefined) clauses.push(`created_at >= ${param(filter.createdFrom)}::timestamptz`);
  if (filter.createdTo !== undefined) clauses.push(`created_at < ${param(filter.createdTo)}::timestamptz`);
  return clauses.length ? ` AND ${clauses.join(" AND ")}` : "";
}
