import type {
  Account,
  ApiKeyRecord,
  BalanceTotals,
  CustomerRecord,
  DeliveryRecord,
  DisputeStatus,
  EventRecord,
  IdempotencyRecord,
  LedgerEntry,
  LedgerPeriod,
  PageRequest,
  PageResult,
  PaymentLinkRecord,
  RecurrenceRecord,
  RecurrenceStatus,
  RefundRecord,
  Scope,
  TransactionRecord,
  TransactionStatus,
  WebhookEndpointRecord,
  WithdrawalRecord,
} from "../core/model.js";
import type { AuditReads, AuditWrites } from "./audit-store.js";
import type { IdentityReads, IdentityWrites } from "./identity-store.js";
import type { BankReads, BankWrites } from "./bank-store.js";
import type { ReceivedPixReads, ReceivedPixWrites } from "./received-pix-store.js";
import type { ExportLeases } from "./export-leases.js";
import type { RequestLogStore } from "./request-log-store.js";
import type { NoticeReads, NoticeWrites } from "./notice-store.js";

/** A list page whose cursor (`startingAfter`) names no item of the scope. */
export class UnknownCursorError extends Error {
  constructor() {
    super("unknown cursor");
    this.name = "UnknownCursorError";
  }
}

/** An API key with the account it belongs to (null when the account is gone), as read at one moment. */
export interface KeyWithAccount {
  key: ApiKeyRecord;
  account: Account | null;
  /**
   * Names the versions of the key and its account that were read (opaque): it changes whenever
   * either changes. `transactions.listWhileKeyUnchanged` and `getWhileKeyUnchanged` check it in the
   * read itself.
   */
  version: string;
}

export interface TransactionFilter {
  /** A status as the client sees it: `EXPIRED` includes `WAITING_PAYMENT` past `expiresAt`. */
  status?: string | undefined;
  paymentLinkId?: string | undefined;
  recurrenceId?: string | undefined;
  /** Only the charge with this id (the dashboard's search by id). */
  id?: string | undefined;
  /** Only the charges whose payer is this customer (`customer.id`). */
  customerId?: string | undefined;
  /** Only the charges with a due date (`dueDateCharge`, issue 38). */
  dueDateCharge?: true | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  /** Only disputed charges (the dashboard's dispute list): any of them, or those whose dispute is in this state. */
  dispute?: "ANY" | DisputeStatus | undefined;
  /** The instant that decides expiry. */
  now: string;
}

/** What was received on one Brasília day (`transactions.paidPerDay`). */
export interface PaidOnDay {
  /** The Brasília calendar date, `YYYY-MM-DD`. */
  date: string;
  /** How many charges were paid that day. */
  count: number;
  /** The sum of their `amountCents`. */
  amountCents: number;
}

export interface StatusCountWindow {
  createdFrom: string;
  createdTo: string;
  /** The instant that decides expiry. */
  now: string;
}

export interface RecurrenceFilter {
  /** A status as the client sees it: `EXPIRED` includes `CREATED` past `expiresAt`. */
  status?: RecurrenceStatus | undefined;
  customerId?: string | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  /** The instant that decides expiry. */
  now: string;
}

export interface EventFilter {
  type?: string | undefined;
  /** Created at or after. */
  createdFrom?: string | undefined;
  /** Created before. */
  createdTo?: string | undefined;
}

/**
 * The persistence port. Every write happens inside `transaction`: all of it or none of it.
 * `lockScope` serialises money moves of one account and mode (a row lock in PostgreSQL), so a
 * balance check and the debit that follows it cannot interleave with another.
 */
export interface Store {
  transaction<T>(work: (tx: StoreTx) => Promise<T>): Promise<T>;
  /** Reads outside a transaction (no locks). */
  readonly read: StoreReads;
  /** Resolves when the store answers a cheap query (`/ready`); rejects while it cannot. */
  ping(): Promise<void>;
  /**
   * Calls `listener` after a transaction that queued webhook deliveries commits: in this process,
   * and from other processes where the store is shared (PostgreSQL NOTIFY). A hint only (it may
   * come late, twice, or be lost with a connection): delivery workers keep polling. Returns the
   * unsubscribe.
   */
  watchDeliveries?(listener: () => void): () => void;
  /**
   * Records that a key admitted a request at `at`, outside any transaction, in one statement: the
   * later of the stored instant and `at` is kept (several processes write it). Never changes the
   * key's version (`KeyWithAccount.version`): a use is not a change of the key.
   */
  recordKeyUse(keyId: string, at: string): Promise<void>;
  /** The CSV exports under way, per user (each call its own statement, outside any transaction). */
  readonly exportLeases: ExportLeases;
  /** The public API's request logs, by day (each call its own statement, outside any transaction). */
  readonly requestLogs: RequestLogStore;
  close(): Promise<void>;
}

export interface StoreReads extends IdentityReads, AuditReads, BankReads, ReceivedPixReads, NoticeReads {
  accounts: {
    get(id: string): Promise<Account | null>;
    list(page: PageRequest): Promise<PageResult<Account>>;
    count(): Promise<number>;
  };
  apiKeys: {
    get(id: string): Promise<ApiKeyRecord | null>;
    getByDigest(digest: string): Promise<ApiKeyRecord | null>;
    /** The key and its account in one read (one round trip on PostgreSQL): every request asks it. */
    getByDigestWithAccount(digest: string): Promise<KeyWithAccount | null>;
    /**
     * The key whose secret before its last roll has this digest (`previousDigest`), with its
     * account; null when none. Whether that secret's grace still runs is the caller's to decide.
     */
    getByPreviousDigestWithAccount(digest: string): Promise<KeyWithAccount | null>;
    listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
    /** One page of a scope's keys (one account, one mode), newest first. */
    list(scope: Scope, page: PageRequest): Promise<PageResult<ApiKeyRecord>>;
    /** When each of these keys was last used (`Store.recordKeyUse`), by key id; a key never used is absent. */
    lastUses(keyIds: readonly string[]): Promise<Map<string, string>>;
  };
  customers: {
    get(scope: Scope, id: string): Promise<CustomerRecord | null>;
    /** Any mode (operator API). */
    getById(id: string): Promise<CustomerRecord | null>;
    getByDocument(scope: Scope, document: string): Promise<CustomerRecord | null>;
    list(
      scope: Scope,
      filter: { document?: string | undefined },
      page: PageRequest,
    ): Promise<PageResult<CustomerRecord>>;
  };
  transactions: {
    get(scope: Scope, id: string): Promise<TransactionRecord | null>;
    /** Any account and mode (operator API, settlement simulator). */
    getById(id: string): Promise<TransactionRecord | null>;
    /** The ones of these ids that exist, any account and mode, in one read (the reconciler's page). */
    getManyById(ids: readonly string[]): Promise<TransactionRecord[]>;
    getByDisputeId(disputeId: string): Promise<TransactionRecord | null>;
    list(scope: Scope, filter: TransactionFilter, page: PageRequest): Promise<PageResult<TransactionRecord>>;
    /**
     * The first page of `list`, with no items unless the key (by digest) and its account are
     * still at `key.version` as of this very read: on PostgreSQL one statement, whose rows prove
     * the key unchanged in the same snapshot. An empty page proves nothing: the caller reads the
     * key again (`authenticate`) and asks `list`.
     */
    listWhileKeyUnchanged(
      key: { digest: string; version: string },
      scope: Scope,
      filter: TransactionFilter,
      limit: number,
    ): Promise<PageResult<TransactionRecord>>;
    /**
     * `get`, with nothing unless the key (by digest) and its account are still at `key.version` as
     * of this very read: on PostgreSQL one statement, as `listWhileKeyUnchanged`. Null proves
     * nothing (no such charge, or the key changed): the caller reads the key again and asks `get`.
     */
    getWhileKeyUnchanged(
      key: { digest: string; version: string },
      scope: Scope,
      id: string,
    ): Promise<TransactionRecord | null>;
    /** Every charge of one recurrence, oldest first (a recurrence has one per cycle, or a few). */
    listByRecurrence(scope: Scope, recurrenceId: string): Promise<TransactionRecord[]>;
    /**
     * The dashboard's home figures: the `PAID` charges whose `paidAt` is in [from, to), per
     * Brasília (America/Sao_Paulo) calendar day, oldest first; a day without one is absent.
     */
    paidPerDay(scope: Scope, from: string, to: string): Promise<PaidOnDay[]>;
    /**
     * The dashboard's home figures: the charges created in [createdFrom, createdTo), counted per
     * status as the client sees it at `now` (`WAITING_PAYMENT` past `expiresAt` counts as `EXPIRED`);
     * a status without one is absent.
     */
    countByStatus(scope: Scope, window: StatusCountWindow): Promise<Partial<Record<TransactionStatus, number>>>;
    /** The dashboard's home figures: the charges whose dispute is `OPEN`, and the amount they dispute. */
    openDisputes(scope: Scope): Promise<{ count: number; amountCents: number }>;
  };
  recurrences: {
    get(scope: Scope, id: string): Promise<RecurrenceRecord | null>;
    /** Any account and mode (settlement simulator, hosted page). */
    getById(id: string): Promise<RecurrenceRecord | null>;
    /** Any account and mode: the recurrence the platform's bank knows as `bankRecId` (its callbacks name it so). */
    getByBankRecId(bankRecId: string): Promise<RecurrenceRecord | null>;
    list(scope: Scope, filter: RecurrenceFilter, page: PageRequest): Promise<PageResult<RecurrenceRecord>>;
    /** Any account and mode: up to `limit` CREATED recurrences whose `expiresAt` is at or before `now`. */
    listExpiring(now: string, limit: number): Promise<RecurrenceRecord[]>;
    /** Any account and mode: APPROVED recurrences with automatic charges, by id, after `afterId`. */
    listAutomatic(limit: number, afterId?: string): Promise<RecurrenceRecord[]>;
  };
  paymentLinks: {
    get(scope: Scope, id: string): Promise<PaymentLinkRecord | null>;
    /** Any account and mode (the public checkout page finds a link by id alone). */
    getById(id: string): Promise<PaymentLinkRecord | null>;
    list(
      scope: Scope,
      filter: { active?: boolean | undefined },
      page: PageRequest,
    ): Promise<PageResult<PaymentLinkRecord>>;
  };
  withdrawals: {
    get(scope: Scope, id: string): Promise<WithdrawalRecord | null>;
    /** Any account and mode (settlement simulator). */
    getById(id: string): Promise<WithdrawalRecord | null>;
    list(scope: Scope, page: PageRequest): Promise<PageResult<WithdrawalRecord>>;
    /** Sum of `amountCents - returnedAmountCents` of one key's withdrawals created in [from, to). */
    sumForKey(apiKeyId: string, from: string, to: string): Promise<number>;
    /**
     * Any account and mode: up to `limit` PENDING withdrawals paid out through the bank (`payout`
     * set), by id, after `afterId` (the payout job's pages).
     */
    listPendingAtBank(limit: number, afterId?: string): Promise<WithdrawalRecord[]>;
    /**
     * Any account and mode: the PENDING withdrawals paid out through the bank that hold one of
     * these transfers (by our transfer id; a bank's notice names them), by id.
     */
    listPendingAtBankByTransfers(transferIds: readonly string[]): Promise<WithdrawalRecord[]>;
  };
  refunds: {
    get(scope: Scope, id: string): Promise<RefundRecord | null>;
    /** Any account and mode (settlement simulator). */
    getById(id: string): Promise<RefundRecord | null>;
    /** One charge's refunds, newest first. */
    listByTransaction(scope: Scope, transactionId: string, page: PageRequest): Promise<PageResult<RefundRecord>>;
  };
  ledger: {
    /** Balance figures at instant `now`, derived from the entries. */
    totals(scope: Scope, now: string): Promise<BalanceTotals>;
    list(scope: Scope): Promise<LedgerEntry[]>;
    /** The scope's entries whose `refId` is one of `refIds`, in append order (record 0055). */
    listByRefs(scope: Scope, refIds: readonly string[]): Promise<LedgerEntry[]>;
    /** The sum of the scope's `available` entries whose `releaseAt` is exactly `releaseAt`. */
    sumReleasingAt(scope: Scope, releaseAt: string): Promise<number>;
    /** The statement's reads of the period [from, to) (issue 37 §2; `ledgerPeriodOf` says what each is). */
    period(scope: Scope, from: string, to: string): Promise<LedgerPeriod>;
  };
  events: {
    /** Every event of the scope, in append order. */
    list(scope: Scope): Promise<EventRecord[]>;
    /** One page, newest first on (createdAt, id), like every public list; filtered when asked. */
    listPage(scope: Scope, page: PageRequest, filter?: EventFilter): Promise<PageResult<EventRecord>>;
    get(id: string): Promise<EventRecord | null>;
    /** Any account's events among `ids` (those that exist), in no set order. */
    getMany(ids: readonly string[]): Promise<EventRecord[]>;
    /** The scope's events whose object (`data.object.id`) is one of `objectIds`, oldest first, at most `limit`. */
    listAbout(scope: Scope, objectIds: readonly string[], limit: number): Promise<EventRecord[]>;
  };
  idempotency: {
    get(scope: Scope, operation: string, key: string): Promise<IdempotencyRecord | null>;
  };
  webhookEndpoints: {
    get(id: string): Promise<WebhookEndpointRecord | null>;
    listByAccount(accountId: string): Promise<WebhookEndpointRecord[]>;
    /** One page of a scope's endpoints (one account, one mode), newest first. */
    list(scope: Scope, page: PageRequest): Promise<PageResult<WebhookEndpointRecord>>;
    /** Enabled endpoints of a scope that selected `type`. */
    listForEvent(scope: Scope, type: string): Promise<WebhookEndpointRecord[]>;
    /** Every account's endpoints, by id: up to `limit` after `afterId` (the keyring's sweeps, sealed-secrets.ts). */
    listAfter(afterId: string | null, limit: number): Promise<WebhookEndpointRecord[]>;
  };
  deliveries: {
    get(id: string): Promise<DeliveryRecord | null>;
    /** Newest first. */
    listByEndpoint(endpointId: string, page: PageRequest): Promise<PageResult<DeliveryRecord>>;
    /** The deliveries of these events, oldest first. */
    listByEvents(eventIds: readonly string[]): Promise<DeliveryRecord[]>;
  };
}

export interface StoreTx
  extends
    Omit<
      StoreReads,
      keyof IdentityWrites | keyof AuditWrites | keyof BankWrites | keyof ReceivedPixWrites | keyof NoticeWrites
    >,
    IdentityWrites,
    AuditWrites,
    BankWrites,
    ReceivedPixWrites,
    NoticeWrites {
  /** Serialises money moves for one account and mode until the transaction ends. */
  lockScope(scope: Scope): Promise<void>;
  accounts: StoreReads["accounts"] & {
    insert(account: Account): Promise<void>;
    update(account: Account): Promise<void>;
  };
  apiKeys: StoreReads["apiKeys"] & {
    insert(key: ApiKeyRecord): Promise<void>;
    update(key: ApiKeyRecord): Promise<void>;
  };
  customers: StoreReads["customers"] & {
    insert(customer: CustomerRecord): Promise<void>;
    update(customer: CustomerRecord): Promise<void>;
  };
  transactions: StoreReads["transactions"] & {
    insert(transaction: TransactionRecord): Promise<void>;
    update(transaction: TransactionRecord): Promise<void>;
    /** `update` for each (distinct ids; one statement on PostgreSQL: the reconciler's page). */
    updateMany(transactions: readonly TransactionRecord[]): Promise<void>;
    /**
     * Deletes a charge nobody was shown: a production create withdrawn because the bank is down
     * (`PENDING`, no refund, event or ledger entry refers to it).
     */
    delete(scope: Scope, id: string): Promise<void>;
  };
  paymentLinks: StoreReads["paymentLinks"] & {
    insert(link: PaymentLinkRecord): Promise<void>;
    update(link: PaymentLinkRecord): Promise<void>;
  };
  withdrawals: StoreReads["withdrawals"] & {
    insert(withdrawal: WithdrawalRecord): Promise<void>;
    update(withdrawal: WithdrawalRecord): Promise<void>;
  };
  refunds: StoreReads["refunds"] & {
    insert(refund: RefundRecord): Promise<void>;
    update(refund: RefundRecord): Promise<void>;
  };
  recurrences: StoreReads["recurrences"] & {
    insert(recurrence: RecurrenceRecord): Promise<void>;
    update(recurrence: RecurrenceRecord): Promise<void>;
  };
  ledger: StoreReads["ledger"] & {
    append(entry: LedgerEntry): Promise<void>;
    /** `append` for each, in order (one statement on PostgreSQL: the reconciler's page). */
    appendMany(entries: readonly LedgerEntry[]): Promise<void>;
  };
  events: StoreReads["events"] & {
    append(event: EventRecord): Promise<void>;
    /**
     * `append`, answering what `webhookEndpoints.listForEvent(event, event.type)` answers (the
     * scope's enabled endpoints that selected its type): one statement on PostgreSQL where the two
     * were two, for every event recorded (`recordEvent`).
     */
    appendListingEndpoints(event: EventRecord): Promise<WebhookEndpointRecord[]>;
    /** `append` for each, in order (one statement on PostgreSQL: the reconciler's page). */
    appendMany(events: readonly EventRecord[]): Promise<void>;
  };
  webhookEndpoints: StoreReads["webhookEndpoints"] & {
    insert(endpoint: WebhookEndpointRecord): Promise<void>;
    update(endpoint: WebhookEndpointRecord): Promise<void>;
    delete(id: string): Promise<void>;
  };
  deliveries: StoreReads["deliveries"] & {
    insert(delivery: DeliveryRecord): Promise<void>;
    update(delivery: DeliveryRecord): Promise<void>;
    /**
     * Claims up to `limit` deliveries due at `now` (PENDING, nextAttemptAt <= now, not locked by
     * another worker), locking each until `lockUntil`. Safe with several workers: in PostgreSQL
     * `FOR UPDATE SKIP LOCKED`.
     */
    claimDue(now: string, lockUntil: string, limit: number): Promise<DeliveryRecord[]>;
  };
  idempotency: StoreReads["idempotency"] & {
    /** Records the first outcome; a second record for the same scope, operation and key fails. */
    insert(record: IdempotencyRecord): Promise<void>;
    /** Forgets a record older than the window so the key can be used again. */
    delete(scope: Scope, operation: string, key: string): Promise<void>;
    /** Forgets every record created before `before` (all accounts and modes); answers how many. */
    purgeCreatedBefore(before: string): Promise<number>;
  };
}

/** The statuses a client-side `status` filter maps to. */
export function statusMatches(record: { status: TransactionStatus; expiresAt: string }, status: string, now: string) {
  const expired = record.status === "WAITING_PAYMENT" && record.expiresAt <= now;
  if (status === "EXPIRED") return record.status === "EXPIRED" || expired;
  if (status === "WAITING_PAYMENT") return record.status === "WAITING_PAYMENT" && !expired;
  return record.status === status;
}

/** The statuses a client-side recurrence `status` filter maps to. */
export function recurrenceStatusMatches(
  record: { status: RecurrenceStatus; expiresAt: string },
  status: RecurrenceStatus,
  now: string,
) {
  const expired = record.status === "CREATED" && record.expiresAt <= now;
  if (status === "EXPIRED") return record.status === "EXPIRED" || expired;
  if (status === "CREATED") return record.status === "CREATED" && !expired;
  return record.status === status;
}
