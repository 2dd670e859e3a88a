import type {
  Account,
  ApiKeyRecord,
  CustomerRecord,
  DeliveryRecord,
  EventRecord,
  IdempotencyRecord,
  LedgerEntry,
  PaymentLinkRecord,
  RecurrenceRecord,
  RefundRecord,
  Scope,
  TransactionRecord,
  WebhookEndpointRecord,
  WithdrawalRecord,
} from "../../domain/core/model.js";
import { balanceTotals, dailyLimitUsedCents, ledgerPeriodOf, ledgerSums } from "../../domain/balance/index.js";
import { byId, oldestFirst, pageOf } from "./page.js";
import { RowVersions } from "./row-versions.js";
import { RowSubset, Table } from "./table.js";
export { Table } from "./table.js";
import { MemoryApiKeys } from "./api-keys.js";
import type { Store, StoreReads, StoreTx } from "../../domain/ports/store.js";
import { DeliveryWatchers } from "../delivery-watchers.js";
import { TransactionIndex } from "./transaction-index.js";
import { recurrenceReads } from "./recurrences.js";
import { IdentityTables } from "./identity.js";
import { AuditTable } from "./audit.js";
import { BankTables } from "./bank.js";
import { ReceivedPixTables } from "./received-pix.js";
import { NoticeTables } from "./notices.js";
import { MemoryExportLeases } from "./export-leases.js";
import { MemoryRequestLogs } from "./request-logs.js";

const inScope = (r: Scope, s: Scope) => r.accountId === s.accountId && r.livemode === s.livemode;

/**
 * The zero-set-up store: everything in process memory. Transactions run one at a time (a mutex)
 * and roll back through an undo journal when the work throws.
 */
export class MemoryStore implements Store {
  private undo: Array<() => void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly journal = () => this.undo;
  private readonly watchers = new DeliveryWatchers();
  /** Whether the transaction under way queued a webhook delivery. */
  private deliveriesQueued = false;

  private readonly accounts = new Table<Account>(this.journal);
  private readonly apiKeys = new Table<ApiKeyRecord>(this.journal);
  private readonly customers = new Table<CustomerRecord>(this.journal);
  private readonly transactions: Table<TransactionRecord> = new Table<TransactionRecord>(
    this.journal,
    (before, after) => this.transactionIndex.change(before, after),
  );
  private readonly transactionIndex = new TransactionIndex(this.transactions.rows);
  private readonly paymentLinks = new Table<PaymentLinkRecord>(this.journal);
  /** The withdrawals paid out through the bank still PENDING: the payout job's and the notices' rows. */
  private readonly pendingAtBank = new RowSubset<WithdrawalRecord>((w) => w.status === "PENDING" && w.payout !== null);
  private readonly withdrawals = new Table<WithdrawalRecord>(this.journal, (before, after) =>
    this.pendingAtBank.change(before, after),
  );
  private readonly refunds = new Table<RefundRecord>(this.journal);
  private readonly recurrences = new Table<RecurrenceRecord>(this.journal);
  private readonly ledger = new Table<LedgerEntry>(this.journal);
  private readonly events = new Table<EventRecord>(this.journal);
  private readonly idempotency = new Table<IdempotencyRecord & { id: string }>(this.journal);
  private readonly webhookEndpoints = new Table<WebhookEndpointRecord>(this.journal);
  /** The deliveries still PENDING: what the worker's polls (five a second) look through. */
  private readonly pendingDeliveries = new RowSubset<DeliveryRecord>((d) => d.status === "PENDING");
  private readonly deliveries = new Table<DeliveryRecord>(this.journal, (before, after) =>
    this.pendingDeliveries.change(before, after),
  );
  private readonly identity = new IdentityTables(this.journal);
  private readonly audit = new AuditTable(this.journal);
  private readonly bank = new BankTables(this.journal);
  private readonly receivedPix = new ReceivedPixTables(this.journal);
  private readonly notices = new NoticeTables(this.journal);
  /** Rows are replaced, never changed in place: a row object is one version of its row. */
  private readonly versions = new RowVersions();
  private readonly keys = new MemoryApiKeys(this.apiKeys, this.accounts, this.versions);

  readonly read: StoreReads = this.reads();
  private readonly tx: StoreTx = this.writes();
  readonly exportLeases = new MemoryExportLeases();
  readonly requestLogs = new MemoryRequestLogs();

  async transaction<T>(work: (tx: StoreTx) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      this.undo = [];
      this.deliveriesQueued = false;
      try {
        const result = await work(this.tx);
        this.undo = null;
        if (this.deliveriesQueued) this.watchers.notify();
        return result;
      } catch (error) {
        const undo = this.undo ?? [];
        this.undo = null;
        for (const step of undo.reverse()) step();
        throw error;
      }
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  async ping(): Promise<void> {}

  watchDeliveries(listener: () => void): () => void {
    return this.watchers.add(listener);
  }

  async recordKeyUse(keyId: string, at: string): Promise<void> {
    this.keys.recordUse(keyId, at);
  }

  async close(): Promise<void> {}

  private reads(): StoreReads {
    const idemId = (s: Scope, op: string, key: string) => JSON.stringify([s.accountId, s.livemode, op, key]);
    return {
      ...this.identity.reads(),
      ...this.audit.reads(),
      ...this.bank.reads(),
      ...this.receivedPix.reads(),
      ...this.notices.reads(),
      accounts: {
        get: async (id) => this.accounts.get(id),
        list: async (page) => pageOf(this.accounts.all(), page),
        count: async () => this.accounts.rows.size,
      },
      apiKeys: this.keys.reads(),
      customers: {
        get: async (scope, id) => {
          const c = this.customers.get(id);
          return c && inScope(c, scope) ? c : null;
        },
        getById: async (id) => this.customers.get(id),
        getByDocument: async (scope, document) =>
          this.customers.all().find((c) => inScope(c, scope) && c.document === document) ?? null,
        list: async (scope, filter, page) =>
          pageOf(
            this.customers.all().filter((c) => inScope(c, scope)),
            page,
            (c) => filter.document === undefined || c.document === filter.document,
          ),
      },
      transactions: {
        get: async (scope, id) => {
          const t = this.transactions.get(id);
          return t && inScope(t, scope) ? t : null;
        },
        getById: async (id) => this.transactions.get(id),
        getManyById: async (ids) => ids.flatMap((id) => this.transactions.get(id) ?? []),
        getByDisputeId: async (disputeId) => this.transactions.all().find((t) => t.dispute?.id === disputeId) ?? null,
        list: async (scope, f, page) => this.transactionIndex.list(scope, f, page),
        listByRecurrence: async (scope, recurrenceId) => this.transactionIndex.ofRecurrence(scope, recurrenceId),
        paidPerDay: async (scope, from, to) => this.transactionIndex.paidPerDay(scope, from, to),
        countByStatus: async (scope, window) => this.transactionIndex.countByStatus(scope, window),
        openDisputes: async (scope) => this.transactionIndex.openDisputes(scope),
        listWhileKeyUnchanged: async (key, scope, f, limit) =>
          this.keys.withAccount(key.digest)?.version === key.version
            ? this.transactionIndex.list(scope, f, { limit })
            : { items: [], hasMore: false },
        getWhileKeyUnchanged: async (key, scope, id) => {
          if (this.keys.withAccount(key.digest)?.version !== key.version) return null;
          const t = this.transactions.get(id);
          return t && inScope(t, scope) ? t : null;
        },
      },
      recurrences: recurrenceReads(this.recurrences),
      paymentLinks: {
        get: async (scope, id) => {
          const l = this.paymentLinks.get(id);
          return l && inScope(l, scope) ? l : null;
        },
        getById: async (id) => this.paymentLinks.get(id),
        list: async (scope, filter, page) =>
          pageOf(
            this.paymentLinks.all().filter((l) => inScope(l, scope)),
            page,
            (l) => filter.active === undefined || l.active === filter.active,
          ),
      },
      withdrawals: {
        get: async (scope, id) => {
          const w = this.withdrawals.get(id);
          return w && inScope(w, scope) ? w : null;
        },
        getById: async (id) => this.withdrawals.get(id),
        list: async (scope, page) =>
          pageOf(
            this.withdrawals.all().filter((w) => inScope(w, scope)),
            page,
          ),
        sumForKey: async (apiKeyId, from, to) =>
          this.withdrawals
            .all()
            .filter((w) => w.apiKeyId === apiKeyId && w.createdAt >= from && w.createdAt < to)
            .reduce((sum, w) => sum + dailyLimitUsedCents(w), 0),
        listPendingAtBank: async (limit, afterId = "") =>
          this.pendingAtBank
            .rows(this.withdrawals)
            .filter((w) => w.id > afterId)
            .sort(byId)
            .slice(0, limit),
        listPendingAtBankByTransfers: async (transferIds) => {
          const wanted = new Set(transferIds);
          return this.pendingAtBank
            .rows(this.withdrawals)
            .filter((w) => w.transfers.some((t) => wanted.has(t.id)))
            .sort(byId);
        },
      },
      refunds: {
        get: async (scope, id) => {
          const r = this.refunds.get(id);
          return r && inScope(r, scope) ? r : null;
        },
        getById: async (id) => this.refunds.get(id),
        listByTransaction: async (scope, transactionId, page) =>
          pageOf(
            this.refunds.all().filter((r) => inScope(r, scope) && r.transactionId === transactionId),
            page,
          ),
      },
      ledger: {
        totals: async (scope, now) =>
          balanceTotals(
            ledgerSums(
              this.ledger.all().filter((e) => inScope(e, scope)),
              now,
            ),
          ),
        list: async (scope) => this.ledger.all().filter((e) => inScope(e, scope)),
        listByRefs: async (scope, refIds) =>
          this.ledger.all().filter((e) => inScope(e, scope) && refIds.includes(e.refId)),
        sumReleasingAt: async (scope, releaseAt) =>
          this.ledger
            .all()
            .filter((e) => inScope(e, scope) && e.bucket === "available" && e.releaseAt === releaseAt)
            .reduce((sum, e) => sum + e.amountCents, 0),
        period: async (scope, from, to) =>
          ledgerPeriodOf(
            this.ledger.all().filter((e) => inScope(e, scope)),
            from,
            to,
          ),
      },
      events: {
        list: async (scope) => this.events.all().filter((e) => inScope(e, scope)),
        listPage: async (scope, page, f = {}) =>
          pageOf(
            this.events.all().filter((e) => inScope(e, scope)),
            page,
            (e) =>
              (f.type === undefined || e.type === f.type) &&
              (f.createdFrom === undefined || e.createdAt >= f.createdFrom) &&
              (f.createdTo === undefined || e.createdAt < f.createdTo),
          ),
        get: async (id) => this.events.get(id),
        getMany: async (ids) => [...new Set(ids)].flatMap((id) => this.events.get(id) ?? []),
        listAbout: async (scope, ids, limit) =>
          this.events
            .all()
            .filter((e) => inScope(e, scope) && ids.includes((e.payload.data as { object: { id: string } }).object.id))
            .sort(oldestFirst)
            .slice(0, limit),
      },
      idempotency: {
        get: async (scope, op, key) => {
          const found = this.idempotency.get(idemId(scope, op, key));
          if (!found) return null;
          const { id: _id, ...record } = found;
          return record;
        },
      },
      webhookEndpoints: {
        get: async (id) => this.webhookEndpoints.get(id),
        listByAccount: async (accountId) =>
          this.webhookEndpoints
            .all()
            .filter((e) => e.accountId === accountId)
            .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1)),
        list: async (scope, page) =>
          pageOf(
            this.webhookEndpoints.all().filter((e) => inScope(e, scope)),
            page,
          ),
        listForEvent: async (scope, type) =>
          this.webhookEndpoints
            .all()
            .filter((e) => inScope(e, scope) && e.disabledAt === null && (e.events as string[]).includes(type)),
        listAfter: async (afterId, limit) =>
          this.webhookEndpoints
            .all()
            .filter((e) => afterId === null || e.id > afterId)
            .sort(byId)
            .slice(0, limit),
      },
      deliveries: {
        get: async (id) => this.deliveries.get(id),
        listByEndpoint: async (endpointId, page) =>
          pageOf(
            this.deliveries.all().filter((d) => d.endpointId === endpointId),
            page,
          ),
        listByEvents: async (ids) =>
          this.deliveries
            .all()
            .filter((d) => ids.includes(d.eventId))
            .sort(oldestFirst),
      },
    };
  }

  private writes(): StoreTx {
    const r = this.read;
    const idemId = (s: Scope, op: string, key: string) => JSON.stringify([s.accountId, s.livemode, op, key]);
    return {
      ...this.identity.writes(),
      ...this.audit.writes(),
      ...this.bank.writes(),
      ...this.receivedPix.writes(),
      ...this.notices.writes(),
      lockScope: async () => {},
      accounts: {
        ...r.accounts,
        insert: async (a) => this.accounts.insert(a),
        update: async (a) => this.accounts.update(a),
      },
      apiKeys: {
        ...r.apiKeys,
        insert: async (k) => this.apiKeys.insert(k),
        update: async (k) => this.apiKeys.update(k),
      },
      customers: {
        ...r.customers,
        insert: async (c) => {
          if (await r.customers.getByDocument(c, c.document)) throw new Error("duplicate customer document");
          this.customers.insert(c);
        },
        update: async (c) => this.customers.update(c),
      },
      transactions: {
        ...r.transactions,
        insert: async (t) => this.transactions.insert(t),
        update: async (t) => this.transactions.update(t),
        updateMany: async (records) => records.forEach((t) => this.transactions.update(t)),
        delete: async (scope, id) => {
          const t = this.transactions.get(id);
          if (t && inScope(t, scope)) this.transactions.delete(id);
        },
      },
      paymentLinks: {
        ...r.paymentLinks,
        insert: async (l) => this.paymentLinks.insert(l),
        update: async (l) => this.paymentLinks.update(l),
      },
      withdrawals: {
        ...r.withdrawals,
        insert: async (w) => this.withdrawals.insert(w),
        update: async (w) => this.withdrawals.update(w),
      },
      refunds: {
        ...r.refunds,
        insert: async (refund) => this.refunds.insert(refund),
        update: async (refund) => this.refunds.update(refund),
      },
      recurrences: {
        ...r.recurrences,
        insert: async (recurrence) => this.recurrences.insert(recurrence),
        update: async (recurrence) => this.recurrences.update(recurrence),
      },
      ledger: {
        ...r.ledger,
        append: async (e) => this.ledger.insert(e),
        appendMany: async (entries) => entries.forEach((e) => this.ledger.insert(e)),
      },
      events: {
        ...r.events,
        append: async (e) => this.events.insert(e),
        appendListingEndpoints: async (e) => {
          this.events.insert(e);
          return r.webhookEndpoints.listForEvent(e, e.type);
        },
        appendMany: async (events) => events.forEach((e) => this.events.insert(e)),
      },
      webhookEndpoints: {
        ...r.webhookEndpoints,
        insert: async (e) => this.webhookEndpoints.insert(e),
        update: async (e) => this.webhookEndpoints.update(e),
        delete: async (id) => {
          const before = this.webhookEndpoints.rows.get(id);
          if (!before) return;
          this.webhookEndpoints.rows.delete(id);
          this.undo?.push(() => this.webhookEndpoints.rows.set(id, before));
        },
      },
      deliveries: {
        ...r.deliveries,
        insert: async (d) => {
          this.deliveries.insert(d);
          this.deliveriesQueued = true;
        },
        update: async (d) => this.deliveries.update(d),
        claimDue: async (now, lockUntil, limit) => {
          const due = this.pendingDeliveries
            .rows(this.deliveries)
            .filter(
              (d) =>
                d.nextAttemptAt !== null && d.nextAttemptAt <= now && (d.lockedUntil === null || d.lockedUntil <= now),
            )
            .sort((a, b) => ((a.nextAttemptAt ?? "") < (b.nextAttemptAt ?? "") ? -1 : 1))
            .slice(0, limit);
          for (const d of due) this.deliveries.update({ ...d, lockedUntil: lockUntil });
          return due.map((d) => ({ ...d, lockedUntil: lockUntil }));
        },
      },
      idempotency: {
        ...r.idempotency,
        insert: async (rec) => this.idempotency.insert({ ...rec, id: idemId(rec, rec.operation, rec.key) }),
        delete: async (scope, op, key) => {
          const id = idemId(scope, op, key);
          const before = this.idempotency.rows.get(id);
          if (!before) return;
          this.idempotency.rows.delete(id);
          this.undo?.push(() => this.idempotency.rows.set(id, before));
        },
        purgeCreatedBefore: async (before) => {
          const expired = this.idempotency.all().filter((r) => r.createdAt < before);
          for (const row of expired) {
            this.idempotency.rows.delete(row.id);
            this.undo?.push(() => this.idempotency.rows.set(row.id, row));
          }
          return expired.length;
        },
      },
    };
  }
}
