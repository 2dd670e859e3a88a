import { lastBrasiliaDays } from "../core/time.js";
import type { DomainDeps } from "../deps.js";
import type { Scope, TransactionStatus } from "../core/model.js";

// The dashboard's home figures (issue 25): what an account received, today and on each of the
// last 30 Brasília days, its ticket médio, its charges by status, its open disputes and its
// balance, in one mode. The store computes every sum (`transactions.paidPerDay`, `countByStatus`,
// `openDisputes`, `ledger.totals`): nothing pages the charges through here.
// docs/decisions/0024-home-figures.md.

/** How many Brasília days the figures cover, today included. */
const homeFigureDays = 30;

const statuses: readonly TransactionStatus[] = [
  "WAITING_PAYMENT",
  "PAID",
  "EXPIRED",
  "CANCELLED",
  "FAILED",
  "PENDING",
  "PROCESSING",
];

/** What was received on one Brasília day. */
export interface DayFigures {
  date: string;
  amountCents: number;
  count: number;
}

export interface HomeFigures {
  livemode: boolean;
  asOf: string;
  today: DayFigures;
  last30Days: {
    from: string;
    to: string;
    amountCents: number;
    count: number;
    averageTicketCents: number;
    days: DayFigures[];
    byStatus: Record<TransactionStatus, number>;
  };
  openDisputes: { count: number; amountCents: number };
  balance: { availableCents: number; pendingCents: number; blockedCents: number };
}

/**
 * Ticket médio: the amount paid over the number of charges paid in the period, in whole cents
 * rounded half up; 0 when none was paid.
 */
const averageTicketCents = (amountCents: number, count: number): number =>
  count === 0 ? 0 : Math.round(amountCents / count);

export function homeFigureUseCases(deps: DomainDeps) {
  return {
    /**
     * The figures of one account and mode at the clock's now. "Received" is the amount payers
     * paid (`amountCents`, before the fee) of the charges paid that day, by `paidAt`; a later
     * refund or dispute does not change a past day (they show in the balance and the disputes).
     */
    async figures(scope: Scope): Promise<HomeFigures> {
      const now = deps.clock.now();
      const at = now.toISOString();
      const days = lastBrasiliaDays(now, homeFigureDays);
      const first = days[0];
      const today = days[days.length - 1];
      if (!first || !today) throw new Error("no days to figure");
      const from = first.start.toISOString();
      const to = today.end.toISOString();
      const transactions = deps.store.read.transactions;
      const [paid, byStatus, openDisputes, totals] = await Promise.all([
        transactions.paidPerDay(scope, from, to),
        transactions.countByStatus(scope, { createdFrom: from, createdTo: to, now: at }),
        transactions.openDisputes(scope),
        deps.store.read.ledger.totals(scope, at),
      ]);
      const paidOn = new Map(paid.map((day) => [day.date, day]));
      const series = days.map(({ date }) => ({
        date,
        amountCents: paidOn.get(date)?.amountCents ?? 0,
        count: paidOn.get(date)?.count ?? 0,
      }));
      const amountCents = series.reduce((sum, day) => sum + day.amountCents, 0);
      const count = series.reduce((sum, day) => sum + day.count, 0);
      return {
        livemode: scope.livemode,
        asOf: at,
        today: series[series.length - 1] ?? { date: today.date, amountCents: 0, count: 0 },
        last30Days: {
          from: first.date,
          to: today.date,
          amountCents,
          count,
          averageTicketCents: averageTicketCents(amountCents, count),
          days: series,
          byStatus: Object.fromEntries(statuses.map((s) => [s, byStatus[s] ?? 0])) as Record<TransactionStatus, number>,
        },
        openDisputes,
        balance: totals,
      };
    },
  };
}
