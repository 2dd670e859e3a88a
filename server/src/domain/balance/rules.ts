import type { BalanceTotals, LedgerEntry, LedgerPeriod, WithdrawalRecord } from "../core/model.js";

// The balance rules, once, for both stores. PostgreSQL keeps its own guards of the same rules,
// which no application code can bypass: `ledger_balances` holds each account and mode's
// `available` (released or not) and `blocked` sums, kept by the `ledger_entries_apply` trigger,
// and its CHECK `ledger_balances_never_negative` refuses any entry that would take either below
// zero (store/migrations). The SQL of `PostgresStore`'s `ledger.totals` asks for the same three
// sums `ledgerSums` counts, with `isPending`'s condition written in its WHERE.

/** The three sums a balance is computed from. */
export interface LedgerSums {
  /** Every `available` entry, released or not. */
  availableTotalCents: number;
  /** The part of `availableTotalCents` whose release is still ahead. */
  pendingCents: number;
  blockedCents: number;
}

/** An `available` entry whose release (`releaseAt`) is still ahead of `now` (ISO instants). */
export const isPending = (entry: Pick<LedgerEntry, "bucket" | "releaseAt">, now: string): boolean =>
  entry.bucket === "available" && entry.releaseAt !== null && entry.releaseAt > now;

/** The sums of a list of entries (the memory store's whole ledger of one scope). */
export function ledgerSums(entries: Iterable<Pick<LedgerEntry, "bucket" | "releaseAt" | "amountCents">>, now: string) {
  const sums: LedgerSums = { availableTotalCents: 0, pendingCents: 0, blockedCents: 0 };
  for (const entry of entries) {
    if (entry.bucket === "blocked") sums.blockedCents += entry.amountCents;
    else sums.availableTotalCents += entry.amountCents;
    if (isPending(entry, now)) sums.pendingCents += entry.amountCents;
  }
  return sums;
}

/** The balance of the sums: what is available now is the available total less what is still pending. */
export const balanceTotals = (sums: LedgerSums): BalanceTotals => ({
  availableCents: sums.availableTotalCents - sums.pendingCents,
  pendingCents: sums.pendingCents,
  blockedCents: sums.blockedCents,
});

/**
 * The statement's reads of [from, to) from a scope's whole ledger (the memory store; PostgreSQL
 * asks the same in SQL, `ledger.period`). A credit held for release is pending from its creation
 * until its `releaseAt`, and is released at that instant when it was created before it.
 */
export function ledgerPeriodOf(entries: readonly LedgerEntry[], from: string, to: string): LedgerPeriod {
  const before = entries.filter((e) => e.createdAt < from);
  const sums = ledgerSums(before, from);
  // Released at `from` itself is a movement of the period: still pending right before it.
  const pendingAtFrom = before
    .filter((e) => e.bucket === "available" && e.releaseAt !== null && e.releaseAt === from)
    .reduce((sum, e) => sum + e.amountCents, 0);
  const opening = balanceTotals({ ...sums, pendingCents: sums.pendingCents + pendingAtFrom });
  const byInstant = new Map<string, number>();
  for (const e of entries) {
    if (e.bucket !== "available" || e.releaseAt === null) continue;
    if (e.releaseAt < from || e.releaseAt >= to || e.createdAt >= e.releaseAt) continue;
    byInstant.set(e.releaseAt, (byInstant.get(e.releaseAt) ?? 0) + e.amountCents);
  }
  return {
    opening,
    entries: entries.filter((e) => e.createdAt >= from && e.createdAt < to),
    releases: [...byInstant]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([releaseAt, amountCents]) => ({ releaseAt, amountCents })),
  };
}

/**
 * What a withdrawal uses of its key's daily limit: its amount, fee included, less what came back
 * (a returned or failed transfer gives its share of the limit back).
 */
export const dailyLimitUsedCents = (w: Pick<WithdrawalRecord, "amountCents" | "returnedAmountCents">): number =>
  w.amountCents - w.returnedAmountCents;

/** What is left of a daily limit after `usedCents`, never below zero. */
export const remainingOfDailyLimit = (limitCents: number, usedCents: number): number =>
  Math.max(0, limitCents - usedCents);
