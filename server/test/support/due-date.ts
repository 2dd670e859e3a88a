import { addDays } from "../../src/domain/payments/index.js";

// What the tests of charges with a due date share (issue 38): dates as Brasília reads them, and
// the acceptance's amounts computed by hand, the same in test mode (payments/due-date-charges.test.ts)
// and through the bank (bank/due-date-at-bank.test.ts).

/** The Brasília date of an instant (the server keeps -03:00 all year). */
export const brasiliaDate = (at: Date) => new Date(at.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);

const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();

/** The first date after `from` on `day` (0 Sunday … 6 Saturday) that passes `ok`. */
export function nextOn(from: string, day: number, ok: (date: string) => boolean = () => true): string {
  let date = addDays(from, 1);
  while (weekday(date) !== day || !ok(date)) date = addDays(date, 1);
  return date;
}

/**
 * The acceptance's hand-computed table: R$ 500,00 due on a Friday, 2 % fine, 1 % a month interest
 * (calendar days, the month as 30 days), R$ 10,00 off until the Wednesday before.
 * - Paid on the Tuesday before: 50 000 − 1 000 = 49 000.
 * - Paid 10 days late: fine 2 % × 50 000 = 1 000; interest 50 000 × 1 % ÷ 30 × 10 = 166,67 → 167;
 *   50 000 + 1 000 + 167 = 51 167.
 */
export const acceptanceTable = {
  onTuesday: {
    originalCents: 50000,
    rebateCents: 0,
    discountCents: 1000,
    fineCents: 0,
    interestCents: 0,
    finalCents: 49000,
  },
  tenDaysLate: {
    originalCents: 50000,
    rebateCents: 0,
    discountCents: 0,
    fineCents: 1000,
    interestCents: 167,
    finalCents: 51167,
  },
};
