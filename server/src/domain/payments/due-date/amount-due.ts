import { addDays, businessDaysBetween, daysBetween, nextBusinessDay } from "./calendar.js";
import {
  adjustedDueDate,
  type DiscountTerms,
  type DueDateTerms,
  discountModes,
  type FlatTerms,
  interestModes,
  lastPayableDate,
} from "./terms.js";

// The amount due of a Pix charge with a due date on a payment date (issue 38): one pure function,
// exact in integer cents. Every component is computed as an exact fraction with BigInt and rounded
// once, half up, to the cent; the final amount is the sum of the rounded components, so the
// breakdown always adds up. The rules and the rounding: docs/decisions/0052-due-date-charge-amounts.md.

/** `numerator / denominator` rounded half up (both non-negative). */
const roundHalfUp = (numerator: bigint, denominator: bigint): number =>
  Number((numerator * 2n + denominator) / (denominator * 2n));

/** Cents of `rateBps` of `cents`, rounded half up (record 0052). */
export const percentOf = (cents: number, rateBps: number): number =>
  roundHalfUp(BigInt(cents) * BigInt(rateBps), 10_000n);

/** Cents of a checked rebate. */
export const rebateOf = (rebate: FlatTerms, amountCents: number): number =>
  rebate.mode === "FIXED" ? rebate.amountCents : percentOf(amountCents, rebate.rateBps);

/**
 * The discount of a payment on `paymentDate`, before any bound: for a date mode, the one of the
 * first discount date not yet passed (each moved to the next business day when it is not one); for
 * a per-day mode, the amount or percentage times the calendar or business days paid before the
 * (adjusted) due date. `days` counts those days (0 for a date mode); `until` is the date the
 * applied discount lasts to.
 */
export function discountOn(
  discount: DiscountTerms,
  rebatedCents: number,
  paymentDate: string,
  dueDate: string,
): { cents: number; days: number; until: string | null } {
  if (paymentDate > dueDate) return { cents: 0, days: 0, until: null };
  if (discount.mode === "AMOUNT_UNTIL_DATES" || discount.mode === "PERCENTAGE_UNTIL_DATES") {
    const open = discount.dates
      .map((entry) => ({ entry, until: nextBusinessDay(entry.date) }))
      .filter(({ until }) => paymentDate <= until)
      .sort((a, b) => (a.until < b.until ? -1 : a.until > b.until ? 1 : 0))[0];
    if (!open) return { cents: 0, days: 0, until: null };
    const cents = "amountCents" in open.entry ? open.entry.amountCents : percentOf(rebatedCents, open.entry.rateBps);
    return { cents, days: 0, until: open.until };
  }
  const days = earlyDays(discountModes[discount.mode].per === "BUSINESS", paymentDate, dueDate);
  const cents =
    "amountCents" in discount
      ? discount.amountCents * days
      : roundHalfUp(BigInt(rebatedCents) * BigInt(discount.rateBps) * BigInt(days), 10_000n);
  return { cents, days, until: days > 0 ? addDays(dueDate, -1) : null };
}

/**
 * The days a payment on `paymentDate` is early for a due date `dueDate` (a business day): the
 * calendar days from it to the due date, or the business days from it (included) to the due date
 * (excluded). Paid on the Friday before a Monday due date: 3 calendar days, 1 business day; paid
 * on the Saturday: 2 and 0.
 */
function earlyDays(business: boolean, paymentDate: string, dueDate: string): number {
  if (paymentDate >= dueDate) return 0;
  if (!business) return daysBetween(paymentDate, dueDate);
  return businessDaysBetween(addDays(paymentDate, -1), addDays(dueDate, -1));
}

/** What a payer owes on a date, and why: the standard's `componentesValor` and its final amount. */
export interface AmountDue {
  /** The date of the payment, a Brasília calendar date. */
  paymentDate: string;
  /** The due date in fact: the agreed one, or the next business day when it is not one. */
  dueDate: string;
  /** The last day the charge can be paid (`lastPayableDate`). */
  lastPayableDate: string;
  /** Whether the charge can be paid on `paymentDate`: not after `lastPayableDate`. */
  payable: boolean;
  /** Calendar days after the due date (0 on it or before): a fine is due from 1 on. */
  daysLate: number;
  /** The days interest was counted for: calendar or business days after the due date, as its mode says. */
  interestDays: number;
  /** The days of a per-day discount: calendar or business days paid before the due date. */
  discountDays: number;
  /** The last day of the discount applied (a discount date, or the day before the due date for a per-day discount); null without one. */
  discountUntil: string | null;
  /** The original amount (`valor.original`). */
  originalCents: number;
  /** `abatimento`: always deducted, whatever the date. */
  rebateCents: number;
  /** `desconto`: only when paid on or before the due date, never more than the rebated amount less 1 cent. */
  discountCents: number;
  /** `multa`: once, when paid after the due date. */
  fineCents: number;
  /** `juros`: for each day late, when paid after the due date. */
  interestCents: number;
  /** original − rebate − discount + fine + interest. */
  finalCents: number;
}

/**
 * The amount due of a charge with a due date for a payment on `paymentDate` (a Brasília calendar
 * date), from terms that passed `checkDueDateTerms`. Pure: the same terms and date give the same
 * amount, whatever the clock. A due date on a weekend or a holiday moves to the next business day,
 * and the fine, the interest and the discounts move with it. Percentages of the fine, the interest
 * and the discount apply to the rebated amount (the original less the rebate: Manual de Padrões
 * para Iniciação do Pix, Equação 11, `Vo − Va`); a rebate's percentage to the original.
 */
export function amountDue(terms: DueDateTerms, paymentDate: string): AmountDue {
  const dueDate = adjustedDueDate(terms.dueDate);
  const originalCents = terms.amountCents;
  const rebateCents = terms.rebate ? rebateOf(terms.rebate, originalCents) : 0;
  const rebatedCents = originalCents - rebateCents;
  const daysLate = Math.max(0, daysBetween(dueDate, paymentDate));

  let fineCents = 0;
  let interestCents = 0;
  let interestDays = 0;
  if (daysLate > 0) {
    if (terms.fine) fineCents = flatOf(terms.fine, rebatedCents);
    if (terms.interest) {
      const mode = interestModes[terms.interest.mode];
      interestDays = mode.days === "CALENDAR" ? daysLate : businessDaysBetween(dueDate, paymentDate);
      interestCents =
        "amountCents" in terms.interest
          ? terms.interest.amountCents * interestDays
          : roundHalfUp(
              BigInt(rebatedCents) * BigInt(terms.interest.rateBps) * BigInt(interestDays),
              10_000n * BigInt(mode.periodDays),
            );
    }
  }

  const discount = terms.discount
    ? discountOn(terms.discount, rebatedCents, paymentDate, dueDate)
    : { cents: 0, days: 0, until: null };
  // Checked terms leave at least a cent from the day they were created on; a date before it could
  // ask more of a per-day discount, and a Pix is never of 0.
  const discountCents = Math.min(discount.cents, rebatedCents - 1);

  const last = lastPayableDate(terms.dueDate, terms.daysPayableAfterDue);
  return {
    paymentDate,
    dueDate,
    lastPayableDate: last,
    payable: paymentDate <= last,
    daysLate,
    interestDays,
    discountDays: discount.days,
    discountUntil: discount.until,
    originalCents,
    rebateCents,
    discountCents,
    fineCents,
    interestCents,
    finalCents: rebatedCents - discountCents + fineCents + interestCents,
  };
}

/** A fine's cents: its fixed amount, or its percentage of the rebated amount. */
const flatOf = (flat: FlatTerms, rebatedCents: number): number =>
  flat.mode === "FIXED" ? flat.amountCents : percentOf(rebatedCents, flat.rateBps);
