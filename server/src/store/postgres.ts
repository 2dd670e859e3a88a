import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { Store as RateLimitStore } from "express-rate-limit";
import { runner } from "node-pg-migrate";
import pg from "pg";
import type {
  Account,
  ApiKeyRecord,
  BalanceTotals,
  CustomerRecord,
  DeliveryRecord,
  EventRecord,
  IdempotencyRecord,
  LedgerEntry,
  PageRequest,
  PageResult,
  PaymentLinkRecord,
  Scope,
  TransactionRecord,
  WebhookEndpointRecord,
  WithdrawalRecord,
} from "../domain/model.js";
import {
  type Store,
  type StoreReads,
  type StoreTx,
  type TransactionFilter,
  UnknownCursorError,
} from "../domain/ports/store.js";

/** What the store logs: a pool error (the database went away) and retried transactions. */
export interface StoreLogger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

const silentLogger: StoreLogger = { warn: () => undefined, error: () => undefined };

/** The migration files, applied by `migrateDatabase` and by `npm run migrate` (same table). */
export const migrationsDir = fileURLToPath(new URL("./migrations/", import.meta.url));
export const migrationsTable = "pgmigrations";

/**
 * Applies the pending migrations. Several processes may start at once: node-pg-migrate's advisory
 * lock makes the others wait, and they then find nothing left to do.
 */
export async function migrateDatabase(databaseUrl: string, logger?: StoreLogger): Promise<void> {
  const log = logger ?? silentLogger;
  await runner({
    databaseUrl,
    dir: migrationsDir,
    migrationsTable,
    direction: "up",
    singleTransaction: true,
    checkOrder: true,
    advisoryLockMode: "wait",
    verbose: false,
    logger: {
      debug: () => undefined,
      info: () => undefined,
      warn: (message) => log.warn({}, message),
      error: (message) => log.error({}, message),
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Values in and out. BIGINT becomes a JS number (refused past 2^53), timestamptz an ISO string
// with milliseconds exactly as `Date#toISOString` writes it. Given per query, so a pool made
// elsewhere (or the global `pg.types`) cannot change what the store returns.

const INT8 = 20;
const TIMESTAMPTZ = 1184;
const parseTimestamp = pg.types.getTypeParser(TIMESTAMPTZ) as (value: string) => Date;

const storeTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === INT8) {
      return (value: string) => {
        const n = Number(value);
        if (!Number.isSafeInteger(n)) throw new RangeError(`BIGINT ${value} is beyond a safe JS integer`);
        return n;
      };
    }
    if (oid === TIMESTAMPTZ) {
      return (value: string) => {
        const at = parseTimestamp(value);
        if (Number.isNaN(at.getTime())) throw new RangeError(`timestamp ${value} has no ISO form`);
        return at.toISOString();
      };
    }
    return pg.types.getTypeParser(oid, format ?? "text");
  }) as pg.CustomTypesConfig["getTypeParser"],
};

type Row = Record<string, unknown>;
type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;

async function query<R extends Row = Row>(db: Queryable, text: string, values: unknown[] = []): Promise<R[]> {
  const result = await db.query<R>({ text, values, types: storeTypes });
  return result.rows;
}

async function execute(db: Queryable, text: string, values: unknown[] = []): Promise<number> {
  const result = await db.query({ text, values, types: storeTypes });
  return result.rowCount ?? 0;
}

const json = (value: unknown): string => JSON.stringify(value ?? null);
const jsonOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : json(value));

// ---------------------------------------------------------------------------------------------
// Tables: each column with the record field it holds. The SELECT list names columns by their
// camelCase field, so a row is the record (accounts reassemble their plan).

interface TableDef<R> {
  name: string;
  columns: ReadonlyArray<readonly [column: string, value: (record: R) => unknown]>;
  /** Columns whose camelCase alias is not the record's field (reassembled by `toRecord`). */
  toRecord?: (row: Row) => R;
}

const camel = (column: string) => column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const selectList = <R>(def: TableDef<R>, alias = "") =>
  def.columns.map(([column]) => `${alias}${column} AS "${camel(column)}"`).join(", ");
const toRecord = <R>(def: TableDef<R>, row: Row): R => (def.toRecord ? def.toRecord(row) : (row as R));

const accountsTable: TableDef<Account> = {
  name: "accounts",
  columns: [
    ["id", (a) => a.id],
    ["name", (a) => a.name],
    ["owner_email", (a) => a.ownerEmail],
    ["verified", (a) => a.verified],
    ["charge_fee_cents", (a) => a.plan.chargeFeeCents],
    ["charge_fee_bps", (a) => a.plan.chargeFeeBps],
    ["withdraw_fee_cents", (a) => a.plan.withdrawFeeCents],
    ["release_period_days", (a) => a.releasePeriodDays],
    ["merchant_city", (a) => a.merchantCity],
    ["pix_key", (a) => a.pixKey],
    ["created_at", (a) => a.createdAt],
    ["updated_at", (a) => a.updatedAt],
  ],
  toRecord: (row) => {
    const { chargeFeeCents, chargeFeeBps, withdrawFeeCents, ...rest } = row;
    return {
      ...(rest as Omit<Account, "plan">),
      plan: {
        chargeFeeCents: chargeFeeCents as number,
        chargeFeeBps: chargeFeeBps as number,
        withdrawFeeCents: withdrawFeeCents as number,
      },
    };
  },
};

const apiKeysTable: TableDef<ApiKeyRecord> = {
  name: "api_keys",
  columns: [
    ["id", (k) => k.id],
    ["account_id", (k) => k.accountId],
    ["name", (k) => k.name],
    ["livemode", (k) => k.livemode],
    ["prefix", (k) => k.prefix],
    ["digest", (k) => k.digest],
    ["permissions", (k) => k.permissions],
    ["allowed_ips", (k) => k.allowedIps],
    ["daily_withdraw_limit_cents", (k) => k.dailyWithdrawLimitCents],
    ["revoked_at", (k) => k.revokedAt],
    ["created_at", (k) => k.createdAt],
    ["updated_at", (k) => k.updatedAt],
  ],
};

const customersTable: TableDef<CustomerRecord> = {
  name: "customers",
  columns: [
    ["id", (c) => c.id],
    ["account_id", (c) => c.accountId],
    ["livemode", (c) => c.livemode],
    ["name", (c) => c.name],
    ["email", (c) => c.email],
    ["phone", (c) => c.phone],
    ["document_type", (c) => c.documentType],
    ["document", (c) => c.document],
    ["address", (c) => jsonOrNull(c.address)],
    ["notes", (c) => c.notes],
    ["tags", (c) => c.tags],
    ["created_at", (c) => c.createdAt],
    ["updated_at", (c) => c.updatedAt],
  ],
};

const transactionsTable: TableDef<TransactionRecord> = {
  name: "transactions",
  columns: [
    ["id", (t) => t.id],
    ["account_id", (t) => t.accountId],
    ["livemode", (t) => t.livemode],
    ["status", (t) => t.status],
    ["amount_cents", (t) => t.amountCents],
    ["fee_cents", (t) => t.feeCents],
    ["description", (t) => t.description],
    ["br_code", (t) => t.brCode],
    ["customer", (t) => json(t.customer)],
    ["payment_link_id", (t) => t.paymentLinkId],
    ["dispute", (t) => jsonOrNull(t.dispute)],
    ["metadata", (t) => json(t.metadata)],
    ["expires_at", (t) => t.expiresAt],
    ["paid_at", (t) => t.paidAt],
    ["created_at", (t) => t.createdAt],
    ["updated_at", (t) => t.updatedAt],
  ],
};

const paymentLinksTable: TableDef<PaymentLinkRecord> = {
  name: "payment_links",
  columns: [
    ["id", (l) => l.id],
    ["account_id", (l) => l.accountId],
    ["livemode", (l) => l.livemode],
    ["amount_cents", (l) => l.amountCents],
    ["description", (l) => l.description],
    ["active", (l) => l.active],
    ["max_payments", (l) => l.maxPayments],
    ["payments_count", (l) => l.paymentsCount],
    ["ask_address", (l) => l.askAddress],
    ["return_url", (l) => l.returnUrl],
    ["metadata", (l) => jsonOrNull(l.metadata)],
    ["expires_at", (l) => l.expiresAt],
    ["created_at", (l) => l.createdAt],
    ["updated_at", (l) => l.updatedAt],
  ],
};

const withdrawalsTable: TableDef<WithdrawalRecord> = {
  name: "withdrawals",
  columns: [
    ["id", (w) => w.id],
    ["account_id", (w) => w.accountId],
    ["livemode", (w) => w.livemode],
    ["api_key_id", (w) => w.apiKeyId],
    ["status", (w) => w.status],
    ["amount_cents", (w) => w.amountCents],
    ["fee_cents", (w) => w.feeCents],
    ["paid_amount_cents", (w) => w.paidAmountCents],
    ["returned_amount_cents", (w) => w.returnedAmountCents],
    ["pix_key", (w) => w.pixKey],
    ["pix_key_type", (w) => w.pixKeyType],
    ["transfers", (w) => json(w.transfers)],
    ["failure_reason", (w) => w.failureReason],
    ["created_at", (w) => w.createdAt],
    ["updated_at", (w) => w.updatedAt],
  ],
};

const ledgerTable: TableDef<LedgerEntry> = {
  name: "ledger_entries",
  columns: [
    ["id", (e) => e.id],
    ["account_id", (e) => e.accountId],
    ["livemode", (e) => e.livemode],
    ["bucket", (e) => e.bucket],
    ["amount_cents", (e) => e.amountCents],
    ["release_at", (e) => e.releaseAt],
    ["kind", (e) => e.kind],
    ["ref_id", (e) => e.refId],
    ["created_at", (e) => e.createdAt],
  ],
};

const eventsTable: TableDef<EventRecord> = {
  name: "events",
  columns: [
    ["id", (e) => e.id],
    ["account_id", (e) => e.accountId],
    ["livemode", (e) => e.livemode],
    ["type", (e) => e.type],
    ["payload", (e) => json(e.payload)],
    ["created_at", (e) => e.createdAt],
  ],
};

const idempotencyTable: TableDef<IdempotencyRecord> = {
  name: "idempotency_keys",
  columns: [
    ["account_id", (r) => r.accountId],
    ["livemode", (r) => r.livemode],
    ["operation", (r) => r.operation],
    ["key", (r) => r.key],
    ["request_hash", (r) => r.requestHash],
    ["response_status", (r) => r.responseStatus],
    ["response_body", (r) => json(r.responseBody)],
    ["created_at", (r) => r.createdAt],
  ],
};

const endpointsTable: TableDef<WebhookEndpointRecord> = {
  name: "webhook_endpoints",
  columns: [
    ["id", (e) => e.id],
    ["account_id", (e) => e.accountId],
    ["livemode", (e) => e.livemode],
    ["url", (e) => e.url],
    ["events", (e) => e.events],
    ["secret", (e) => e.secret],
    ["previous_secret", (e) => e.previousSecret],
    ["previous_secret_expires_at", (e) => e.previousSecretExpiresAt],
    ["disabled_at", (e) => e.disabledAt],
    ["created_at", (e) => e.createdAt],
    ["updated_at", (e) => e.updatedAt],
  ],
};

const deliveriesTable: TableDef<DeliveryRecord> = {
  name: "webhook_deliveries",
  columns: [
    ["id", (d) => d.id],
    ["event_id", (d) => d.eventId],
    ["endpoint_id", (d) => d.endpointId],
    ["account_id", (d) => d.accountId],
    ["livemode", (d) => d.livemode],
    ["status", (d) => d.status],
    ["attempts", (d) => json(d.attempts)],
    ["next_attempt_at", (d) => d.nextAttemptAt],
    ["locked_until", (d) => d.lockedUntil],
    ["created_at", (d) => d.createdAt],
    ["updated_at", (d) => d.updatedAt],
  ],
};

async function selectOne<R>(db: Queryable, def: TableDef<R>, where: string, values: unknown[]): Promise<R | null> {
  const rows = await query(db, `SELECT ${selectList(def)} FROM ${def.name} WHERE ${where} LIMIT 1`, values);
  return rows[0] ? toRecord(def, rows[0]) : null;
}

async function selectMany<R>(
  db: Queryable,
  def: TableDef<R>,
  where: string,
  values: unknown[],
  orderBy: string,
): Promise<R[]> {
  const rows = await query(db, `SELECT ${selectList(def)} FROM ${def.name} WHERE ${where} ORDER BY ${orderBy}`, values);
  return rows.map((row) => toRecord(def, row));
}

async function insertRow<R>(db: Queryable, def: TableDef<R>, record: R): Promise<void> {
  const columns = def.columns.map(([column]) => column);
  const placeholders = columns.map((_c, i) => `$${i + 1}`);
  await execute(
    db,
    `INSERT INTO ${def.name} (${columns.join(", ")}) VALUES (${placeholders.join(", ")})`,
    def.columns.map(([, value]) => value(record)),
  );
}

/** Replaces every column of the row with this `id`; like the memory store, a missing row throws. */
async function updateRow<R extends { id: string }>(db: Queryable, def: TableDef<R>, record: R): Promise<void> {
  const rest = def.columns.filter(([column]) => column !== "id");
  const sets = rest.map(([column], i) => `${column} = $${i + 2}`);
  const changed = await execute(db, `UPDATE ${def.name} SET ${sets.join(", ")} WHERE id = $1`, [
    record.id,
    ...rest.map(([, value]) => value(record)),
  ]);
  if (changed === 0) throw new Error(`no row ${record.id}`);
}

/**
 * The memory store's `pageOf` in SQL: newest first on (created_at, id), starting after the cursor
 * item, which must belong to the same filtered set (else `UnknownCursorError`); `hasMore` when
 * anything follows the page.
 */
async function pageQuery<R>(
  db: Queryable,
  def: TableDef<R>,
  where: string,
  values: unknown[],
  page: PageRequest,
): Promise<PageResult<R>> {
  const args = [...values];
  let after = "";
  if (page.startingAfter !== undefined) {
    args.push(page.startingAfter);
    const cursor = await query<{ createdAt: string; id: string }>(
      db,
      `SELECT created_at AS "createdAt", id FROM ${def.name} WHERE (${where}) AND id = $${args.length}`,
      args,
    );
    const at = cursor[0];
    if (!at) throw new UnknownCursorError();
    args.push(at.createdAt);
    after = `AND (created_at, id COLLATE "C") < ($${args.length}::timestamptz, $${args.length - 1}::text COLLATE "C")`;
  }
  args.push(page.limit + 1);
  const rows = await query(
    db,
    `SELECT ${selectList(def)} FROM ${def.name} WHERE (${where}) ${after}
     ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $${args.length}`,
    args,
  );
  return { items: rows.slice(0, page.limit).map((row) => toRecord(def, row)), hasMore: rows.length > page.limit };
}

/** The SQL of `statusMatches` (port.ts): `EXPIRED` includes `WAITING_PAYMENT` past `expiresAt`. */
function transactionFilterSql(filter: TransactionFilter, values: unknown[]): string {
  const clauses: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.status !== undefined) {
    if (filter.status === "EXPIRED") {
      const now = param(filter.now);
      clauses.push(`(status = 'EXPIRED' OR (status = 'WAITING_PAYMENT' AND expires_at <= ${now}::timestamptz))`);
    } else if (filter.status === "WAITING_PAYMENT") {
      const now = param(filter.now);
      clauses.push(`(status = 'WAITING_PAYMENT' AND expires_at > ${now}::timestamptz)`);
    } else {
      clauses.push(`status = ${param(filter.status)}`);
    }
  }
  if (filter.paymentLinkId !== undefined) clauses.push(`payment_link_id = ${param(filter.paymentLinkId)}`);
  if (filter.createdFrom !== undefined) clauses.push(`created_at >= ${param(filter.createdFrom)}::timestamptz`);
  if (filter.createdTo !== undefined) clauses.push(`created_at < ${param(filter.createdTo)}::timestamptz`);
  return clauses.length ? ` AND ${clauses.join(" AND ")}` : "";
}

/** A stable signed 64-bit key for `pg_advisory_xact_lock`, one per account and mode. */
export function scopeLockKey(scope: Scope): string {
  const digest = createHash("sha256").update(`pix-scope\u0000${scope.accountId}\u0000${scope.livemode}`).digest();
  return digest.readBigInt64BE(0).toString();
}

function reads(db: Queryable): StoreReads {
  const scoped = "account_id = $1 AND livemode = $2";
  const scopeArgs = (s: Scope) => [s.accountId, s.livemode];
  return {
    accounts: {
      get: (id) => selectOne(db, accountsTable, "id = $1", [id]),
      list: (page) => pageQuery(db, accountsTable, "TRUE", [], page),
      count: async () => {
        const rows = await query<{ count: number }>(db, "SELECT count(*) AS count FROM accounts");
        return rows[0]?.count ?? 0;
      },
    },
    apiKeys: {
      get: (id) => selectOne(db, apiKeysTable, "id = $1", [id]),
      getByDigest: (digest) => selectOne(db, apiKeysTable, "digest = $1", [digest]),
      listByAccount: (accountId) =>
        selectMany(db, apiKeysTable, "account_id = $1", [accountId], `created_at DESC, id COLLATE "C" DESC`),
    },
    customers: {
      get: (scope, id) => selectOne(db, customersTable, `${scoped} AND id = $3`, [...scopeArgs(scope), id]),
      getById: (id) => selectOne(db, customersTable, "id = $1", [id]),
      getByDocument: (scope, document) =>
        selectOne(db, customersTable, `${scoped} AND document = $3`, [...scopeArgs(scope), document]),
      list: (scope, filter, page) => {
        const values = scopeArgs(scope);
        let where = scoped;
        if (filter.document !== undefined) {
          values.push(filter.document);
          where += ` AND document = $${values.length}`;
        }
        return pageQuery(db, customersTable, where, values, page);
      },
    },
    transactions: {
      get: (scope, id) => selectOne(db, transactionsTable, `${scoped} AND id = $3`, [...scopeArgs(scope), id]),
      getById: (id) => selectOne(db, transactionsTable, "id = $1", [id]),
      getByDisputeId: (disputeId) =>
        selectOne(db, transactionsTable, "dispute IS NOT NULL AND dispute ->> 'id' = $1", [disputeId]),
      list: (scope, filter, page) => {
        const values = scopeArgs(scope);
        const where = scoped + transactionFilterSql(filter, values);
        return pageQuery(db, transactionsTable, where, values, page);
      },
    },
    paymentLinks: {
      get: (scope, id) => selectOne(db, paymentLinksTable, `${scoped} AND id = $3`, [...scopeArgs(scope), id]),
      getById: (id) => selectOne(db, paymentLinksTable, "id = $1", [id]),
      list: (scope, filter, page) => {
        const values = scopeArgs(scope);
        let where = scoped;
        if (filter.active !== undefined) {
          values.push(filter.active);
          where += ` AND active = $${values.length}`;
        }
        return pageQuery(db, paymentLinksTable, where, values, page);
      },
    },
    withdrawals: {
      get: (scope, id) => selectOne(db, withdrawalsTable, `${scoped} AND id = $3`, [...scopeArgs(scope), id]),
      getById: (id) => selectOne(db, withdrawalsTable, "id = $1", [id]),
      list: (scope, page) => pageQuery(db, withdrawalsTable, scoped, scopeArgs(scope), page),
      sumForKey: async (apiKeyId, from, to) => {
        const rows = await query<{ sum: number }>(
          db,
          `SELECT coalesce(sum(amount_cents - returned_amount_cents), 0)::bigint AS sum FROM withdrawals
           WHERE api_key_id = $1 AND created_at >= $2::timestamptz AND created_at < $3::timestamptz`,
          [apiKeyId, from, to],
        );
        return rows[0]?.sum ?? 0;
      },
    },
    ledger: {
      // The balances row holds available + pending (kept by the ledger trigger); pending is the
      // part whose release is still ahead of `now`, read through the partial index.
      totals: async (scope, now): Promise<BalanceTotals> => {
        const rows = await query<{ availableTotal: number; blocked: number; pending: number }>(
          db,
          `SELECT coalesce(b.available_total_cents, 0) AS "availableTotal",
                  coalesce(b.blocked_cents, 0) AS blocked,
                  coalesce((SELECT sum(e.amount_cents) FROM ledger_entries e
                            WHERE e.account_id = $1 AND e.livemode = $2 AND e.bucket = 'available'
                              AND e.release_at IS NOT NULL AND e.release_at > $3::timestamptz), 0)::bigint AS pending
           FROM (SELECT 1) AS one
           LEFT JOIN ledger_balances b ON b.account_id = $1 AND b.livemode = $2`,
          [scope.accountId, scope.livemode, now],
        );
        const row = rows[0] ?? { availableTotal: 0, blocked: 0, pending: 0 };
        return {
          availableCents: row.availableTotal - row.pending,
          pendingCents: row.pending,
          blockedCents: row.blocked,
        };
      },
      list: (scope) => selectMany(db, ledgerTable, scoped, scopeArgs(scope), "seq"),
    },
    events: {
      list: (scope) => selectMany(db, eventsTable, scoped, scopeArgs(scope), "seq"),
      listPage: (scope, page) => pageQuery(db, eventsTable, scoped, scopeArgs(scope), page),
      get: (id) => selectOne(db, eventsTable, "id = $1", [id]),
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
      listForEvent: (scope, type) =>
        selectMany(
          db,
          endpointsTable,
          `${scoped} AND disabled_at IS NULL AND $3 = ANY (events)`,
          [...scopeArgs(scope), type],
          `created_at, id COLLATE "C"`,
        ),
    },
    deliveries: {
      get: (id) => selectOne(db, deliveriesTable, "id = $1", [id]),
      listByEndpoint: (endpointId, page) => pageQuery(db, deliveriesTable, "endpoint_id = $1", [endpointId], page),
    },
  };
}

function writes(client: pg.PoolClient): StoreTx {
  const r = reads(client);
  return {
    lockScope: async (scope) => {
      await query(client, "SELECT pg_advisory_xact_lock($1::bigint)", [scopeLockKey(scope)]);
    },
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
    ledger: { ...r.ledger, append: (e) => insertRow(client, ledgerTable, e) },
    events: { ...r.events, append: (e) => insertRow(client, eventsTable, e) },
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
    },
  };
}

/** SQLSTATEs after which the whole transaction may simply run again. */
const retryableStates = new Set(["40001", "40P01"]);
const sqlState = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The error alone: pg attaches its whole client to it, which a logger would serialise. */
function logConnectionLost(logger: StoreLogger, error: Error): void {
  logger.warn({ code: sqlState(error), reason: error.message }, "idle PostgreSQL connection lost; the pool dials anew");
}

export interface PoolOptions {
  /** Connections per process; default 10. */
  max?: number;
  logger?: StoreLogger;
}

/**
 * A pool for the store. Its 'error' listener keeps an idle connection that the server dropped
 * (a restart, a failover) from crashing the process: the pool discards it and dials anew.
 */
export function createPool(databaseUrl: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    connectionTimeoutMillis: 15_000,
    idleTimeoutMillis: 30_000,
    application_name: "pix-charging-service",
  });
  const logger = options.logger ?? silentLogger;
  pool.on("error", (error) => logConnectionLost(logger, error));
  return pool;
}

export interface PostgresStoreOptions {
  logger?: StoreLogger;
  /** How often a transaction runs before a serialization failure or deadlock is final; default 5. */
  maxAttempts?: number;
}

/**
 * The production store (DESIGN §2). Every `transaction` is one PostgreSQL transaction at READ
 * COMMITTED on one pooled connection; `lockScope` takes a transaction-scoped advisory lock per
 * account and mode, so the balance read that follows it already sees every earlier committed debit.
 */
export class PostgresStore implements Store {
  readonly read: StoreReads;
  private readonly logger: StoreLogger;
  private readonly maxAttempts: number;

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresStoreOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.read = reads(pool);
    if (pool.listenerCount("error") === 0) pool.on("error", (error) => logConnectionLost(this.logger, error));
  }

  /**
   * BEGIN, the work, COMMIT; ROLLBACK when it throws. A serialization failure (40001) or a
   * deadlock (40P01) runs the whole work again, up to `maxAttempts` runs, after a jittered pause
   * taken with the connection back in the pool.
   */
  async transaction<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const result = await work(writes(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        try {
          await client.query("ROLLBACK");
        } catch (rollbackError) {
          // The connection itself failed: the pool must not hand it out again.
          broken = rollbackError as Error;
        }
        const state = sqlState(error);
        if (!state || !retryableStates.has(state) || attempt >= this.maxAttempts) throw error;
        this.logger.warn({ code: state, attempt }, "PostgreSQL transaction retried");
      } finally {
        client.release(broken);
      }
      await sleep(Math.random() * 10 * 2 ** attempt);
    }
  }

  async ping(): Promise<void> {
    await this.pool.query("SELECT 1");
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * express-rate-limit stores whose counters live in PostgreSQL, so every server process on one
 * database counts the same requests. One row per (limiter name, client key) holds the current
 * window; one atomic UPSERT per request counts the hit or starts a new window when the last one
 * ended (the database clock decides, so processes agree). Windows start at a client's first
 * request, as in express-rate-limit's own memory store.
 */
export function pgRateLimitStore(pool: pg.Pool): (name: string) => RateLimitStore {
  return (name) => {
    let windowMs = 60_000;
    let sweeper: NodeJS.Timeout | undefined;
    const info = (row: { hits: number; resetAt: string } | undefined) =>
      row ? { totalHits: row.hits, resetTime: new Date(row.resetAt) } : undefined;
    return {
      prefix: `${name}:`,
      localKeys: false,
      init(options) {
        windowMs = options.windowMs;
        sweeper = setInterval(() => {
          execute(pool, "DELETE FROM rate_limit_counters WHERE name = $1 AND reset_at < clock_timestamp()", [
            name,
          ]).catch(() => undefined);
        }, windowMs);
        sweeper.unref();
      },
      async get(key) {
        const rows = await query<{ hits: number; resetAt: string }>(
          pool,
          `SELECT hits, reset_at AS "resetAt" FROM rate_limit_counters
           WHERE name = $1 AND key = $2 AND reset_at > clock_timestamp()`,
          [name, key],
        );
        return info(rows[0]);
      },
      async increment(key) {
        const rows = await query<{ hits: number; resetAt: string }>(
          pool,
          `INSERT INTO rate_limit_counters AS c (name, key, hits, reset_at)
           VALUES ($1, $2, 1, clock_timestamp() + $3 * interval '1 millisecond')
           ON CONFLICT (name, key) DO UPDATE SET
             hits = CASE WHEN c.reset_at <= clock_timestamp() THEN 1 ELSE c.hits + 1 END,
             reset_at = CASE WHEN c.reset_at <= clock_timestamp()
                             THEN clock_timestamp() + $3 * interval '1 millisecond' ELSE c.reset_at END
           RETURNING hits, reset_at AS "resetAt"`,
          [name, key, windowMs],
        );
        const counted = info(rows[0]);
        if (!counted) throw new Error("rate limit counter not returned");
        return counted;
      },
      async decrement(key) {
        await execute(
          pool,
          `UPDATE rate_limit_counters SET hits = greatest(hits - 1, 0)
           WHERE name = $1 AND key = $2 AND reset_at > clock_timestamp()`,
          [name, key],
        );
      },
      async resetKey(key) {
        await execute(pool, "DELETE FROM rate_limit_counters WHERE name = $1 AND key = $2", [name, key]);
      },
      async resetAll() {
        await execute(pool, "DELETE FROM rate_limit_counters WHERE name = $1", [name]);
      },
      shutdown() {
        if (sweeper) clearInterval(sweeper);
      },
    };
  };
}
