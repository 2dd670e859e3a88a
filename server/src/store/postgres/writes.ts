import type { StoreTx } from "../../domain/ports/store.js";
import { endpointsForEvent, reads, scopeLockKey } from "./reads.js";
import {
  accountsTable,
  apiKeysTable,
  customersTable,
  deliveriesTable,
  endpointsTable,
  eventsTable,
  idempotencyTable,
  ledgerTable,
  paymentLinksTable,
  selectList,
  toRecord,
  transactionsTable,
  withdrawalsTable,
} from "./rows.js";
import { refundWrites } from "./refunds.js";
import { recurrenceWrites } from "./recurrences.js";
import { identityWrites } from "./identity.js";
import { bankWrites } from "./bank.js";
import { auditWrites } from "./audit.js";
import { receivedPixWrites } from "./received-pix.js";
import { noticeWrites } from "./notices.js";
import { execute, query, type Queryable } from "./sql.js";
import { insertRow, insertRows, insertRowThenSelect, updateRow, updateRows } from "./statements.js";

/** Takes the transaction-scoped advisory lock `key` (a decimal bigint made by `scopeLockKey`). */
export type AdvisoryLock = (key: string) => Promise<void>;

/**
 * Every read and write of one transaction, on the connection that holds it; `lock` takes the
 * advisory lock of `lockScope` (the store sends it together with BEGIN when it comes first).
 */
export function writes(
  client: Queryable,
  lock: AdvisoryLock = async (key) => {
    await query(client, "SELECT pg_advisory_xact_lock($1::bigint)", [key]);
  },
): StoreTx {
  const r = reads(client);
  return {
    ...identityWrites(client),
    ...bankWrites(client),
    ...auditWrites(client),
    ...receivedPixWrites(client),
    ...noticeWrites(client),
    lockScope: (scope) => lock(scopeLockKey(scope)),
    accounts: {
      ...r.accounts,
      insert: (a) => insertRow(client, accountsTable, a),
      update: (a) => updateRow(client, accountsTable, a),
    },
    apiKeys: {
      ...r.apiKeys,
      insert: (k) => insertRow(client, apiKeysTable, k),
      update: (k) => updateRow(client, apiKeysTable, k),
    },
    customers: {
      ...r.customers,
      insert: (c) => insertRow(client, customersTable, c),
      update: (c) => updateRow(client, customersTable, c),
    },
    transactions: {
      ...r.transactions,
      insert: (t) => insertRow(client, transactionsTable, t),
      update: (t) => updateRow(client, transactionsTable, t),
      updateMany: (records) => updateRows(client, transactionsTable, records),
      delete: async (scope, id) => {
        await execute(client, "DELETE FROM transactions WHERE id = $1 AND account_id = $2 AND livemode = $3", [
          id,
          scope.accountId,
          scope.livemode,
        ]);
      },
    },
    paymentLinks: {
      ...r.paymentLinks,
      insert: (l) => insertRow(client, paymentLinksTable, l),
      update: (l) => updateRow(client, paymentLinksTable, l),
    },
    withdrawals: {
      ...r.withdrawals,
      insert: (w) => insertRow(client, withdrawalsTable, w),
      update: (w) => updateRow(client, withdrawalsTable, w),
    },
    refunds: refundWrites(client),
    recurrences: recurrenceWrites(client),
    ledger: {
      ...r.ledger,
      append: (e) => insertRow(client, ledgerTable, e),
      appendMany: (entries) => insertRows(client, ledgerTable, entries),
    },
    events: {
      ...r.events,
      append: (e) => insertRow(client, eventsTable, e),
      // The INSERT and `listForEvent`'s read in one statement: one round trip an event fewer.
      appendListingEndpoints: (e) =>
        insertRowThenSelect(
          client,
          eventsTable,
          e,
          endpointsTable,
          endpointsForEvent.where,
          endpointsForEvent.values(e, e.type),
          endpointsForEvent.orderBy,
        ),
      appendMany: (events) => insertRows(client, eventsTable, events),
    },
    webhookEndpoints: {
      ...r.webhookEndpoints,
      insert: (e) => insertRow(client, endpointsTable, e),
      update: (e) => updateRow(client, endpointsTable, e),
      delete: async (id) => {
        await execute(client, "DELETE FROM webhook_endpoints WHERE id = $1", [id]);
      },
    },
    deliveries: {
      ...r.deliveries,
      insert: (d) => insertRow(client, deliveriesTable, d),
      update: (d) => updateRow(client, deliveriesTable, d),
      claimDue: async (now, lockUntil, limit) => {
        const rows = await query(
          client,
          `UPDATE webhook_deliveries AS d SET locked_until = $2::timestamptz
           FROM (SELECT id FROM webhook_deliveries
                 WHERE status = 'PENDING' AND next_attempt_at <= $1::timestamptz
                   AND (locked_until IS NULL OR locked_until <= $1::timestamptz)
                 ORDER BY next_attempt_at, id COLLATE "C"
                 LIMIT $3
                 FOR UPDATE SKIP LOCKED) AS due
           WHERE d.id = due.id
           RETURNING ${selectList(deliveriesTable, "d.")}`,
          [now, lockUntil, limit],
        );
        return rows
          .map((row) => toRecord(deliveriesTable, row))
          .sort((a, b) =>
            (a.nextAttemptAt ?? "") === (b.nextAttemptAt ?? "")
              ? a.id < b.id
                ? -1
                : 1
              : (a.nextAttemptAt ?? "") < (b.nextAttemptAt ?? "")
                ? -1
                : 1,
          );
      },
    },
    idempotency: {
      ...r.idempotency,
      insert: (record) => insertRow(client, idempotencyTable, record),
      delete: async (scope, operation, key) => {
        await execute(
          client,
          "DELETE FROM idempotency_keys WHERE account_id = $1 AND livemode = $2 AND operation = $3 AND key = $4",
          [scope.accountId, scope.livemode, operation, key],
        );
      },
      // Served by the index idempotency_keys_by_age.
      purgeCreatedBefore: (before) => execute(client, "DELETE FROM idempotency_keys WHERE created_at < $1", [before]),
    },
  };
}
