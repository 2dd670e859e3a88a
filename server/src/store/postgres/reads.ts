import { createHash } from "node:crypto";
import { balanceTotals, dailyLimitUsedCents, type LedgerSums } from "../../domain/balance/index.js";
import type { BalanceTotals, Scope } from "../../domain/core/model.js";
import type { StoreReads } from "../../domain/ports/store.js";
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
  transactionsTable,
  withdrawalsTable,
} from "./rows.js";
import { type Queryable, query } from "./sql.js";
import { eventFilterSql, refundReads } from "./refunds.js";
import { chargesOfRecurrence, recurrenceReads } from "./recurrences.js";
import { identityReads } from "./identity.js";
import { bankReads } from "./bank.js";
import { auditReads } from "./audit.js";
import { receivedPixReads } from "./received-pix.js";
import { noticeReads } from "./notices.js";
import { homeFigureReads } from "./home-figures.js";
import { ledgerPeriodRead } from "./statement.js";
import {
  keyUnchangedSql,
  keyWithAccountOf,
  keyWithAccountSelect,
  pageQuery,
  selectMany,
  selectOne,
  transactionFilterSql,
} from "./statements.js";

/** A stable signed 64-bit key for `pg_advisory_xact_lock`, one per account and mode. */
export function scopeLockKey(scope: Scope): string {
  const digest = createHash("sha256").update(`pix-scope\u0000${scope.accountId}\u0000${scope.livemode}`).digest();
  return digest.readBigInt64BE(0).toString();
}

/**
 * A scope's enabled webhook endpoints that selected an event type ($1 account, $2 livemode, $3
 * type), in their order: `listForEvent`, and the event's append that reads them in its statement
 * (writes.ts).
 */
export const endpointsForEvent = {
  where: "account_id = $1 AND livemode = $2 AND disabled_at IS NULL AND $3 = ANY (events)",
  orderBy: `created_at, id COLLATE "C"`,
  values: (scope: Scope, type: string): unknown[] => [scope.accountId, scope.livemode, type],
};

export function reads(db: Queryable): StoreReads {
  const scoped = "account_id = $1 AND livemode = $2";
  const scopeArgs = (s: Scope) => [s.accountId, s.livemode];
  const scopedWhileKeyUnchanged = `${scoped} AND ${keyUnchangedSql("$3", "$4")}`;
  return {
    ...identityReads(db),
    ...bankReads(db),
    ...auditReads(db),
    ...receivedPixReads(db),
    ...noticeReads(db),
    accounts: {
      get: (id) => selectOne(db, accountsTable, "id = $1", [id]),
      list: (page) => pageQuery(db, accountsTable, { scope: "TRUE", values: [] }, page),
      count: async () => {
        const rows = await query<{ count: number }>(db, "SELECT count(*) AS count FROM accounts");
        return rows[0]?.count ?? 0;
      },
    },
    apiKeys: {
      get: (id) => selectOne(db, apiKeysTable, "id = $1", [id]),
      getByDigest: (digest) => selectOne(db, apiKeysTable, "digest = $1", [digest]),
      getByDigestWithAccount: async (digest) => {
        const row = (await query(db, keyWithAccountSelect(), [digest]))[0];
        return row ? keyWithAccountOf(row) : null;
      },
      getByPreviousDigestWithAccount: async (digest) => {
        const row = (await query(db, keyWithAccountSelect("previous_digest"), [digest]))[0];
        return row ? keyWithAccountOf(row) : null;
      },
      listByAccount: (accountId) =>
        selectMany(db, apiKeysTable, "account_id = $1", [accountId], `created_at DESC, id COLLATE "C" DESC`),
      list: (scope, page) => pageQuery(db, apiKeysTable, { scope: scoped, values: scopeArgs(scope) }, page),
      lastUses: async (keyIds) => {
        if (keyIds.length === 0) return new Map();
        const rows = await query<{ keyId: string; lastUsedAt: string }>(
          db,
          `SELECT key_id AS "keyId", last_used_at AS "lastUsedAt" FROM api_key_uses WHERE key_id = ANY ($1::text[])`,
          [keyIds],
        );
        return new Map(rows.map((r) => [r.keyId, r.lastUsedAt]));
      },
    },
    customers: {
      get: (scope, id) => selectOne(db, customersTable, `${scoped} AND id = $3`, [...scopeArgs(scope), id]),
      getById: (id) => selectOne(db, customersTable, "id = $1", [id]),
      getByDocument: (scope, document) =>
        selectOne(db, customersTable, `${scoped} AND document = $3`, [...scopeArgs(scope), document]),
      list: (scope, filter, page) => {
        const filters = (values: unknown[]) => {
          if (filter.document === undefined) return "";
          values.push(filter.document);
          return ` AND document = $${values.length}`;
        };
        // A document matches one customer per scope at most: one best plan either way.
        return pageQuery(db, customersTable, { scope: scoped, values: scopeArgs(scope), filters }, page, {
          selective: false,
        });
      },
    },
    transactions: {
      get: (scope, id) => selectOne(db, transactionsTable, `${scoped} AND id = $3`, [...scopeArgs(scope), id]),
      getById: (id) => selectOne(db, transactionsTable, "id = $1", [id]),
      getManyById: (ids) => selectMany(db, transactionsTable, "id = ANY ($1::text[])", [ids], 'id COLLATE "C"'),
      getByDisputeId: (disputeId) =>
        selectOne(db, transactionsTable, "dispute IS NOT NULL AND dispute ->> 'id' = $1", [disputeId]),
      list: (scope, filter, page) =>
        pageQuery(
          db,
          transactionsTable,
          { scope: scoped, values: scopeArgs(scope), filters: (values) => transactionFilterSql(filter, values) },
          page,
        ),
      listByRecurrence: chargesOfRecurrence(db),
      ...homeFigureReads(db),
      // The key's condition belongs to the scope (no cursor applies to a first page), not to the
      // filters: it narrows nothing, so the filters alone decide how the page is planned.
      listWhileKeyUnchanged: (key, scope, filter, limit) =>
        pageQuery(
          db,
          transactionsTable,
          {
            scope: scopedWhileKeyUnchanged,
            values: [...scopeArgs(scope), key.digest, key.version],
            filters: (values) => transactionFilterSql(filter, values),
          },
          { limit },
        ),
      getWhileKeyUnchanged: (key, scope, id) =>
        selectOne(db, transactionsTable, `${scopedWhileKeyUnchanged} AND id = $5`, [
          ...scopeArgs(scope),
          key.digest,
          key.version,
          id,
        ]),
    },
    recurrences: recurrenceReads(db),
    paymentLinks: {
      get: (scope, id) => selectOne(db, paymentLinksTable, `${scoped} AND id = $3`, [...scopeArgs(scope), id]),
      getById: (id) => selectOne(db, paymentLinksTable, "id = $1", [id]),
      list: (scope, filter, page) => {
        const filters = (values: unknown[]) => {
          if (filter.active === undefined) return "";
          values.push(filter.active);
          return ` AND active = $${values.length}`;
        };
        return pageQuery(db, paymentLinksTable, { scope: scoped, values: scopeArgs(scope), filters }, page);
      },
    },
    withdrawals: {
      get: (scope, id) => selectOne(db, withdrawalsTable, `${scoped} AND id = $3`, [...scopeArgs(scope), id]),
      getById: (id) => selectOne(db, withdrawalsTable, "id = $1", [id]),
      list: (scope, page) => pageQuery(db, withdrawalsTable, { scope: scoped, values: scopeArgs(scope) }, page),
      sumForKey: async (apiKeyId, from, to) => {
        const rows = await query<{ amountCents: number; returnedAmountCents: number }>(
          db,
          `SELECT amount_cents AS "amountCents", returned_amount_cents AS "returnedAmountCents" FROM withdrawals
           WHERE api_key_id = $1 AND created_at >= $2::timestamptz AND created_at < $3::timestamptz`,
          [apiKeyId, from, to],
        );
        return rows.reduce((sum, w) => sum + dailyLimitUsedCents(w), 0);
      },
      listPendingAtBank: (limit, afterId) =>
        selectMany(
          db,
          withdrawalsTable,
          `status = 'PENDING' AND payout IS NOT NULL AND id COLLATE "C" > $1`,
          [afterId ?? ""],
          `id COLLATE "C" LIMIT ${Number(limit)}`,
        ),
      // Only the pending ones are looked into (the partial index withdrawals_pending_at_bank).
      listPendingAtBankByTransfers: async (transferIds) =>
        transferIds.length === 0
          ? []
          : selectMany(
              db,
              withdrawalsTable,
              `status = 'PENDING' AND payout IS NOT NULL
               AND EXISTS (SELECT 1 FROM jsonb_array_elements(transfers) t WHERE t->>'id' = ANY($1::text[]))`,
              [transferIds],
              `id COLLATE "C"`,
            ),
    },
    refunds: refundReads(db),
    ledger: {
      // The balances row holds the available total and the blocked sum (kept by the ledger
      // trigger); the pending part (`isPending` in SQL) is read through the partial index.
      totals: async (scope, now): Promise<BalanceTotals> => {
        const rows = await query<LedgerSums & Record<string, number>>(
          db,
          `SELECT coalesce(b.available_total_cents, 0) AS "availableTotalCents",
                  coalesce(b.blocked_cents, 0) AS "blockedCents",
                  coalesce((SELECT sum(e.amount_cents) FROM ledger_entries e
                            WHERE e.account_id = $1 AND e.livemode = $2 AND e.bucket = 'available'
                              AND e.release_at IS NOT NULL AND e.release_at > $3::timestamptz), 0)::bigint
                    AS "pendingCents"
           FROM (SELECT 1) AS one
           LEFT JOIN ledger_balances b ON b.account_id = $1 AND b.livemode = $2`,
          [scope.accountId, scope.livemode, now],
        );
        return balanceTotals(rows[0] ?? { availableTotalCents: 0, blockedCents: 0, pendingCents: 0 });
      },
      list: (scope) => selectMany(db, ledgerTable, scoped, scopeArgs(scope), "seq"),
      listByRefs: (scope, refIds) =>
        selectMany(db, ledgerTable, `${scoped} AND ref_id = ANY ($3::text[])`, [...scopeArgs(scope), refIds], "seq"),
      // Through the partial index of pending money (account, mode, release_at).
      sumReleasingAt: async (scope, releaseAt) => {
        const rows = await query<{ sum: number }>(
          db,
          `SELECT coalesce(sum(amount_cents), 0)::bigint AS sum FROM ledger_entries
           WHERE account_id = $1 AND livemode = $2 AND bucket = 'available'
             AND release_at IS NOT NULL AND release_at = $3::timestamptz`,
          [scope.accountId, scope.livemode, releaseAt],
        );
        return Number(rows[0]?.sum ?? 0);
      },
      period: ledgerPeriodRead(db),
    },
    events: {
      list: (scope) => selectMany(db, eventsTable, scoped, scopeArgs(scope), "seq"),
      listPage: (scope, page, filter = {}) =>
        pageQuery(
          db,
          eventsTable,
          { scope: scoped, values: scopeArgs(scope), filters: (values) => eventFilterSql(filter, values) },
          page,
        ),
      get: (id) => selectOne(db, eventsTable, "id = $1", [id]),
      getMany: async (ids) =>
        ids.length === 0 ? [] : selectMany(db, eventsTable, "id = ANY($1::text[])", [ids], "seq"),
      listAbout: (scope, objectIds, limit) =>
        selectMany(
          db,
          eventsTable,
          `${scoped} AND payload #>> '{data,object,id}' = ANY ($3::text[])`,
          [...scopeArgs(scope), objectIds],
          `created_at, id COLLATE "C" LIMIT ${Math.trunc(limit)}`,
        ),
    },
    idempotency: {
      get: (scope, operation, key) =>
        selectOne(db, idempotencyTable, `${scoped} AND operation = $3 AND key = $4`, [
          ...scopeArgs(scope),
          operation,
          key,
        ]),
    },
    webhookEndpoints: {
      get: (id) => selectOne(db, endpointsTable, "id = $1", [id]),
      listByAccount: (accountId) =>
        selectMany(db, endpointsTable, "account_id = $1", [accountId], `created_at DESC, id COLLATE "C" DESC`),
      list: (scope, page) => pageQuery(db, endpointsTable, { scope: scoped, values: scopeArgs(scope) }, page),
      listForEvent: (scope, type) =>
        selectMany(
          db,
          endpointsTable,
          endpointsForEvent.where,
          endpointsForEvent.values(scope, type),
          endpointsForEvent.orderBy,
        ),
      listAfter: (afterId, limit) =>
        selectMany(
          db,
          endpointsTable,
          '($1::text IS NULL OR id COLLATE "C" > $1)',
          [afterId, limit],
          'id COLLATE "C" LIMIT $2',
        ),
    },
    deliveries: {
      get: (id) => selectOne(db, deliveriesTable, "id = $1", [id]),
      listByEndpoint: (endpointId, page) =>
        pageQuery(db, deliveriesTable, { scope: "endpoint_id = $1", values: [endpointId] }, page),
      listByEvents: (eventIds) =>
        selectMany(db, deliveriesTable, "event_id = ANY ($1::text[])", [eventIds], `created_at, id COLLATE "C"`),
    },
  };
}
