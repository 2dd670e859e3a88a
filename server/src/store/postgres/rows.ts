import type {
  Account,
  ApiKeyRecord,
  CustomerRecord,
  DeliveryRecord,
  EventRecord,
  IdempotencyRecord,
  LedgerEntry,
  PaymentLinkRecord,
  TransactionRecord,
  WebhookEndpointRecord,
  WithdrawalRecord,
} from "../../domain/core/model.js";
import { json, jsonOrNull, type Row } from "./sql.js";

// Tables: each column with the record field it holds. The SELECT list names columns by their
// camelCase field, so a row is the record (accounts reassemble their plan).

export interface TableDef<R> {
  name: string;
  columns: ReadonlyArray<readonly [column: string, value: (record: R) => unknown]>;
  /** Columns whose camelCase alias is not the record's field (reassembled by `toRecord`). */
  toRecord?: (row: Row) => R;
}

const camel = (column: string) => column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
/**
 * What the store builds from a table's definition alone (select lists, statement texts, column
 * names), built once per table and key: every statement starts with one, and a string kept
 * rather than rebuilt also keeps its hash for the prepared-statement lookup (`sql.ts`).
 */
const builtPerTable = new WeakMap<object, Map<string, unknown>>();
export function perTable<R, T>(def: TableDef<R>, key: string, build: () => T): T {
  let built = builtPerTable.get(def);
  if (!built) builtPerTable.set(def, (built = new Map()));
  let value = built.get(key) as T | undefined;
  if (value === undefined) built.set(key, (value = build()));
  return value;
}
export const selectList = <R>(def: TableDef<R>, alias = "") =>
  perTable(def, `select:${alias}`, () =>
    def.columns.map(([column]) => `${alias}${column} AS "${camel(column)}"`).join(", "),
  );
/**
 * Whether a column holds a timestamptz. The schema names every such column `…_at` or `…_until`,
 * and no other (held against the migrated schema by server/test/store/postgres-row-json.test.ts).
 */
export const isTimestampColumn = (column: string) => column.endsWith("_at") || column.endsWith("_until");

/**
 * A timestamptz as `Date#toISOString` writes it (UTC, milliseconds; microseconds cut, as
 * `isoTimestamp` in sql.ts cuts them), whatever the session's time zone or date style.
 */
const isoTimestampSql = (expression: string) =>
  `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A row of `def` as one JSON object whose keys are the record's fields (the camelCase of each
 * column, as `selectList` names them): `jsonb` columns nested as they are, arrays as arrays,
 * timestamps in their ISO form. The reads of whole rows (`selectOne`, `selectMany`, `pageQuery`,
 * a key with its account) take a row this way: `pg` then describes and parses one column per row
 * instead of one per field, which was half of the driver's time on a list of charges (its
 * `Result.addFields` runs for every statement, over every column). `alias` is a table alias with
 * its dot (`"k."`). A table may have at most 50 columns (`json_build_object` takes 100 arguments;
 * the test above checks every table). Amounts are integers far below 2^53 (the spec's maximums), so a JSON number
 * holds them exactly; sums of them are read through `query`, whose BIGINT parser refuses more.
 */
export const jsonRow = <R>(def: TableDef<R>, alias = "") =>
  perTable(def, `json:${alias}`, () => {
    const pairs = def.columns.map(([column]) => {
      const value = isTimestampColumn(column) ? isoTimestampSql(alias + column) : alias + column;
      return `'${camel(column)}', ${value}`;
    });
    return `json_build_object(${pairs.join(", ")})`;
  });
export const toRecord = <R>(def: TableDef<R>, row: Row): R => (def.toRecord ? def.toRecord(row) : (row as R));

export const accountsTable: TableDef<Account> = {
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
    ["document_type", (a) => a.documentType],
    ["document", (a) => a.document],
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

export const apiKeysTable: TableDef<ApiKeyRecord> = {
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
    ["previous_digest", (k) => k.previousDigest],
    ["previous_prefix", (k) => k.previousPrefix],
    ["previous_expires_at", (k) => k.previousExpiresAt],
    ["created_at", (k) => k.createdAt],
    ["updated_at", (k) => k.updatedAt],
  ],
};

export const customersTable: TableDef<CustomerRecord> = {
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

export const transactionsTable: TableDef<TransactionRecord> = {
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
    ["refunded_amount_cents", (t) => t.refundedAmountCents],
    ["recurrence_id", (t) => t.recurrenceId ?? null],
    ["cycle", (t) => jsonOrNull(t.cycle)],
    ["failure_reason", (t) => t.failureReason ?? null],
    ["due_date_charge", (t) => jsonOrNull(t.dueDateCharge)],
    ["metadata", (t) => json(t.metadata)],
    ["expires_at", (t) => t.expiresAt],
    ["paid_at", (t) => t.paidAt],
    ["created_at", (t) => t.createdAt],
    ["updated_at", (t) => t.updatedAt],
  ],
};

export const paymentLinksTable: TableDef<PaymentLinkRecord> = {
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

export const withdrawalsTable: TableDef<WithdrawalRecord> = {
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
    ["payout", (w) => jsonOrNull(w.payout)],
    ["created_at", (w) => w.createdAt],
    ["updated_at", (w) => w.updatedAt],
  ],
};

export const ledgerTable: TableDef<LedgerEntry> = {
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

export const eventsTable: TableDef<EventRecord> = {
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

export const idempotencyTable: TableDef<IdempotencyRecord> = {
  name: "idempotency_keys",
  columns: [
    ["account_id", (r) => r.accountId],
    ["livemode", (r) => r.livemode],
    ["operation", (r) => r.operation],
    ["key", (r) => r.key],
    ["request_hash", (r) => r.requestHash],
    ["response_status", (r) => r.responseStatus],
    ["response_text", (r) => r.responseText],
    ["created_at", (r) => r.createdAt],
  ],
};

export const endpointsTable: TableDef<WebhookEndpointRecord> = {
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

export const deliveriesTable: TableDef<DeliveryRecord> = {
  name: "webhook_deliveries",
  columns: [
    ["id", (d) => d.id],
    ["event_id", (d) => d.eventId],
    ["event_type", (d) => d.eventType],
    ["endpoint_id", (d) => d.endpointId],
    ["account_id", (d) => d.accountId],
    ["livemode", (d) => d.livemode],
    ["status", (d) => d.status],
    ["attempts", (d) => json(d.attempts)],
    ["test_event", (d) => jsonOrNull(d.testEvent)],
    ["next_attempt_at", (d) => d.nextAttemptAt],
    ["locked_until", (d) => d.lockedUntil],
    ["created_at", (d) => d.createdAt],
    ["updated_at", (d) => d.updatedAt],
  ],
};
