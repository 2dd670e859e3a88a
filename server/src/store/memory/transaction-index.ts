import { brasiliaDate } from "../../domain/core/time.js";
import type { PageRequest, PageResult, TransactionRecord, TransactionStatus } from "../../domain/core/model.js";
import {
  type PaidOnDay,
  type StatusCountWindow,
  type TransactionFilter,
  statusMatches,
  UnknownCursorError,
} from "../../domain/ports/store.js";

/** One entry of a sorted index: the sort key (an instant) and the id that breaks ties. */
interface Entry {
  at: string;
  id: string;
}

const before = (a: Entry, b: Entry) => (a.at === b.at ? a.id < b.id : a.at < b.at);

/** Entries ascending on (at, id): binary search to insert, remove or find where to start. */
class SortedEntries {
  readonly entries: Entry[] = [];

  /** The number of entries strictly before `key`. */
  rank(key: Entry): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (before(this.entries[mid] as Entry, key)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  add(key: Entry): void {
    const last = this.entries[this.entries.length - 1];
    // The common case: a new record is the newest.
    if (!last || before(last, key)) this.entries.push(key);
    else this.entries.splice(this.rank(key), 0, key);
  }

  remove(key: Entry): void {
    const at = this.rank(key);
    const found = this.entries[at];
    if (found && found.at === key.at && found.id === key.id) this.entries.splice(at, 1);
  }
}

const scopeKey = (t: { accountId: string; livemode: boolean }) => `${t.accountId}\u0000${t.livemode}`;

/**
 * The memory store's transaction lists without sorting or scanning every charge per request:
 * per scope (account and mode), the transactions ordered by (createdAt, id), and the same per
 * status and per payment link; plus the scope's WAITING_PAYMENT charges by expiry, since a charge
 * waiting past `expiresAt` lists as EXPIRED. A first page walks one index newest first and stops
 * after `limit + 1` matches.
 */
export class TransactionIndex {
  private readonly byScope = new Map<string, SortedEntries>();
  private readonly byStatus = new Map<string, SortedEntries>();
  private readonly byLink = new Map<string, SortedEntries>();
  private readonly byRecurrence = new Map<string, SortedEntries>();
  private readonly byCustomer = new Map<string, SortedEntries>();
  private readonly disputed = new Map<string, SortedEntries>();
  private readonly waitingByExpiry = new Map<string, SortedEntries>();

  constructor(private readonly rows: Map<string, TransactionRecord>) {}

  /** Keeps the indexes in step with a row change (insert: no `old`; undo of an insert: no `now`). */
  change(old: TransactionRecord | undefined, now: TransactionRecord | undefined): void {
    if (old) this.each(old, (index, entry) => index.remove(entry));
    if (now) this.each(now, (index, entry) => index.add(entry));
  }

  private each(t: TransactionRecord, apply: (index: SortedEntries, entry: Entry) => void): void {
    const scope = scopeKey(t);
    const created = { at: t.createdAt, id: t.id };
    apply(this.bucket(this.byScope, scope), created);
    apply(this.bucket(this.byStatus, `${scope}\u0000${t.status}`), created);
    if (t.paymentLinkId) apply(this.bucket(this.byLink, `${scope}\u0000${t.paymentLinkId}`), created);
    if (t.recurrenceId) apply(this.bucket(this.byRecurrence, `${scope}\u0000${t.recurrenceId}`), created);
    apply(this.bucket(this.byCustomer, `${scope}\u0000${t.customer.id}`), created);
    if (t.dispute) apply(this.bucket(this.disputed, scope), created);
    if (t.status === "WAITING_PAYMENT") apply(this.bucket(this.waitingByExpiry, scope), { at: t.expiresAt, id: t.id });
  }

  private bucket(map: Map<string, SortedEntries>, key: string): SortedEntries {
    let index = map.get(key);
    if (!index) {
      index = new SortedEntries();
      map.set(key, index);
    }
    return index;
  }

  list(
    scope: { accountId: string; livemode: boolean },
    f: TransactionFilter,
    page: PageRequest,
  ): PageResult<TransactionRecord> {
    const key = scopeKey(scope);
    const matches = (t: TransactionRecord) =>
      scopeKey(t) === key &&
      (f.status === undefined || statusMatches(t, f.status, f.now)) &&
      (f.paymentLinkId === undefined || t.paymentLinkId === f.paymentLinkId) &&
      (f.recurrenceId === undefined || t.recurrenceId === f.recurrenceId) &&
      (f.id === undefined || t.id === f.id) &&
      (f.customerId === undefined || t.customer.id === f.customerId) &&
      (f.dueDateCharge === undefined || Boolean(t.dueDateCharge)) &&
      (f.dispute === undefined || disputeMatches(t, f.dispute)) &&
      (f.createdFrom === undefined || t.createdAt >= f.createdFrom) &&
      (f.createdTo === undefined || t.createdAt < f.createdTo);

    // Where the page starts: below the cursor or below `createdTo`, whichever is lower, else at
    // the newest. The cursor is any transaction of the scope: one that has left the filter since
    // its page was read (paid, or expired, while `status=WAITING_PAYMENT` is paged) still marks
    // the place.
    let bound: Entry | null = f.createdTo === undefined ? null : { at: f.createdTo, id: "" };
    if (page.startingAfter !== undefined) {
      const cursor = this.rows.get(page.startingAfter);
      if (!cursor || scopeKey(cursor) !== key) throw new UnknownCursorError();
      const at = entryOf(cursor);
      if (!bound || before(at, bound)) bound = at;
    }

    const items: TransactionRecord[] = [];
    for (const t of this.newestFirst(key, f, bound)) {
      if (f.createdFrom !== undefined && t.createdAt < f.createdFrom) break;
      if (!matches(t)) continue;
      items.push(t);
      if (items.length > page.limit) break;
    }
    return { items: items.slice(0, page.limit), hasMore: items.length > page.limit };
  }

  /** Candidates newest first, strictly below `bound`, from the narrowest index for the filter. */
  private *newestFirst(scope: string, f: TransactionFilter, bound: Entry | null): Generator<TransactionRecord> {
    if (f.id !== undefined) {
      const row = this.rows.get(f.id);
      if (row && scopeKey(row) === scope && (!bound || before(entryOf(row), bound))) yield row;
      return;
    }
    if (f.status === "EXPIRED" && f.paymentLinkId === undefined && f.customerId === undefined) {
      // EXPIRED charges, merged with the WAITING_PAYMENT ones already past their expiry.
      const overdue = this.overdue(scope, f.now).filter((t) => !bound || before(entryOf(t), bound));
      overdue.sort((a, b) => (before(entryOf(a), entryOf(b)) ? 1 : -1));
      let next = 0;
      for (const t of this.walk(this.byStatus.get(`${scope}\u0000EXPIRED`), bound)) {
        while (next < overdue.length && before(entryOf(t), entryOf(overdue[next] as TransactionRecord))) {
          yield overdue[next++] as TransactionRecord;
        }
        yield t;
      }
      while (next < overdue.length) yield overdue[next++] as TransactionRecord;
      return;
    }
    const index =
      f.paymentLinkId !== undefined
        ? this.byLink.get(`${scope}\u0000${f.paymentLinkId}`)
        : f.recurrenceId !== undefined
          ? this.byRecurrence.get(`${scope}\u0000${f.recurrenceId}`)
          : f.customerId !== undefined
            ? this.byCustomer.get(`${scope}\u0000${f.customerId}`)
            : f.dispute !== undefined
              ? this.disputed.get(scope)
              : f.status !== undefined
                ? this.byStatus.get(`${scope}\u0000${f.status}`)
                : this.byScope.get(scope);
    yield* this.walk(index, bound);
  }

  /** The home figures' received money: the scope's PAID charges paid in [from, to), per Brasília day. */
  paidPerDay(scope: { accountId: string; livemode: boolean }, from: string, to: string): PaidOnDay[] {
    const days = new Map<string, PaidOnDay>();
    for (const t of this.walk(this.byStatus.get(`${scopeKey(scope)}\u0000PAID`), null)) {
      if (t.paidAt === null || t.paidAt < from || t.paidAt >= to) continue;
      const date = brasiliaDate(t.paidAt);
      const day = days.get(date) ?? { date, count: 0, amountCents: 0 };
      days.set(date, { date, count: day.count + 1, amountCents: day.amountCents + t.amountCents });
    }
    return [...days.values()].sort((a, b) => (a.date < b.date ? -1 : 1));
  }

  /** The home figures' statuses: the scope's charges created in the window, per status at `now`. */
  countByStatus(
    scope: { accountId: string; livemode: boolean },
    window: StatusCountWindow,
  ): Partial<Record<TransactionStatus, number>> {
    const counts: Partial<Record<TransactionStatus, number>> = {};
    for (const t of this.walk(this.byScope.get(scopeKey(scope)), { at: window.createdTo, id: "" })) {
      if (t.createdAt < window.createdFrom) break;
      const status = t.status === "WAITING_PAYMENT" && t.expiresAt <= window.now ? "EXPIRED" : t.status;
      counts[status] = (counts[status] ?? 0) + 1;
    }
    return counts;
  }

  /** The home figures' open disputes: a dispute is opened on a paid charge, so the PAID ones are read. */
  openDisputes(scope: { accountId: string; livemode: boolean }): { count: number; amountCents: number } {
    let count = 0;
    let amountCents = 0;
    for (const t of this.walk(this.byStatus.get(`${scopeKey(scope)}\u0000PAID`), null)) {
      if (t.dispute?.status !== "OPEN") continue;
      count += 1;
      amountCents += t.dispute.amountCents;
    }
    return { count, amountCents };
  }

  /** Every charge of one recurrence, oldest first. */
  ofRecurrence(scope: { accountId: string; livemode: boolean }, recurrenceId: string): TransactionRecord[] {
    const index = this.byRecurrence.get(`${scopeKey(scope)}\u0000${recurrenceId}`);
    return (index?.entries ?? []).flatMap((entry) => this.rows.get(entry.id) ?? []);
  }

  private *walk(index: SortedEntries | undefined, bound: Entry | null): Generator<TransactionRecord> {
    if (!index) return;
    const entries = index.entries;
    for (let i = (bound ? index.rank(bound) : entries.length) - 1; i >= 0; i--) {
      const row = this.rows.get((entries[i] as Entry).id);
      if (row) yield row;
    }
  }

  /** The scope's WAITING_PAYMENT charges whose expiry has passed at `now`. */
  private overdue(scope: string, now: string): TransactionRecord[] {
    const index = this.waitingByExpiry.get(scope);
    if (!index) return [];
    const out: TransactionRecord[] = [];
    for (const entry of index.entries) {
      if (entry.at > now) break;
      const row = this.rows.get(entry.id);
      if (row) out.push(row);
    }
    return out;
  }
}

const entryOf = (t: TransactionRecord): Entry => ({ at: t.createdAt, id: t.id });

/** Whether a charge is disputed as the dashboard's dispute list asks: at all, or in one state. */
const disputeMatches = (t: TransactionRecord, dispute: NonNullable<TransactionFilter["dispute"]>) =>
  t.dispute !== null && (dispute === "ANY" || t.dispute.status === dispute);
