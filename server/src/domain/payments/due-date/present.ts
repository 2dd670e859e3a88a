import { brCodeWithAmount } from "../../../pix/brcode.js";
import type { DueDateChargeRecord, Schemas, TransactionRecord, TransactionStatus } from "../../core/model.js";
import { brasiliaDate } from "../../core/time.js";
import { type AmountDue, amountDue } from "./amount-due.js";
import { adjustedDueDate, type DueDateTerms, lastPayableDate } from "./terms.js";

// A charge with a due date as the API shows it (issue 38; record 0053): while it waits for
// payment its amount, fee and Pix code are those of the amount due today (Brasília, by the
// service's clock, the manual one included); once paid, those of what was paid, kept with its
// breakdown; in any other status the original amount.

/** The stored terms, checked by `checkDueDateTerms` when the charge was created. */
export const termsOf = (record: DueDateChargeRecord): DueDateTerms => record.terms as DueDateTerms;

/** The plan's fee, kept when the charge was created, on `amountCents`: fixed cents plus basis points, rounded. */
export const dueDateFee = (record: DueDateChargeRecord, amountCents: number): number =>
  record.fee.fixedCents + Math.round((amountCents * record.fee.bps) / 10_000);

/** The breakdown as the API shows it (`AmountDue`). */
export const presentAmountDue = (due: AmountDue): Schemas["AmountDue"] => ({
  paymentDate: due.paymentDate,
  daysLate: due.daysLate,
  interestDays: due.interestDays,
  discountDays: due.discountDays,
  discountUntil: due.discountUntil,
  originalCents: due.originalCents,
  rebateCents: due.rebateCents,
  discountCents: due.discountCents,
  fineCents: due.fineCents,
  interestCents: due.interestCents,
  finalCents: due.finalCents,
});

/** What a charge with a due date shows in `status` at `now`: its amount, fee, code and `dueDateCharge`. */
export function dueDateView(
  t: TransactionRecord & { dueDateCharge: DueDateChargeRecord },
  status: TransactionStatus,
  now: string,
): { amountCents: number; feeCents: number; brCode: string; dueDateCharge: Schemas["DueDateCharge"] } {
  const record = t.dueDateCharge;
  const { terms } = record;
  const details: Schemas["DueDateCharge"] = {
    terms: structuredClone(terms),
    adjustedDueDate: adjustedDueDate(terms.dueDate),
    lastPayableDate: lastPayableDate(terms.dueDate, terms.daysPayableAfterDue),
  };
  if (status === "PAID" && record.paid) {
    return {
      amountCents: t.amountCents,
      feeCents: t.feeCents,
      brCode: t.brCode,
      dueDateCharge: { ...details, amountDue: { ...record.paid } },
    };
  }
  if (status === "WAITING_PAYMENT") {
    const today = amountDue(termsOf(record), brasiliaDate(now));
    return {
      amountCents: today.finalCents,
      feeCents: dueDateFee(record, today.finalCents),
      brCode: brCodeWithAmount(t.brCode, today.finalCents),
      dueDateCharge: { ...details, amountDue: presentAmountDue(today) },
    };
  }
  return { amountCents: t.amountCents, feeCents: t.feeCents, brCode: t.brCode, dueDateCharge: details };
}
