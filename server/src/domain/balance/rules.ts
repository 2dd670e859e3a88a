import type { BalanceTotals, LedgerEntry, WithdrawalRecord } from "../core/model.js";

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
 * What a withdrawal uses of its key's daily limit: its amount, fee included, less what came back
 * (a returned or failed transfer gives its share of the limit back).
 */
export const dailyLimitUsedCents = (w: Pick<WithdrawalRecord, "amountCents" | "returnedAmountCents">): number =>
  w.amountCents - w.returnedAmountCents;

/** What is left of a daily limit after `usedCents`, never below zero. */
export const remainingOfDailyLimit = (limitCents: number, usedCents: number): number =>
  Math.max(0, limitCents - usedCents);
