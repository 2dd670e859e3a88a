import { brCodeWithAmount } from "../../../pix/brcode.js";
import { fieldError } from "../../core/errors.js";
import type { DueDateChargeRecord, TransactionRecord } from "../../core/model.js";
import { brasiliaDate } from "../../core/time.js";
import { amountDue } from "./amount-due.js";
import { isCalendarDate } from "./calendar.js";
import { dueDateFee, presentAmountDue, termsOf } from "./present.js";

/**
 * What a charge with a due date becomes when paid on `paymentDate` (a Brasília date; default the
 * date of `now`): the amount due that day, its fee (the plan's when the charge was created), its
 * Pix code, and the breakdown kept (`paid`). A date after the last payable day, or before the day
 * the charge was created, is refused on `paymentDate` (`400 VALIDATION_ERROR`).
 */
export function amountPaid(
  charge: TransactionRecord,
  record: DueDateChargeRecord,
  now: string,
  paymentDate: string | undefined,
): Pick<TransactionRecord, "amountCents" | "feeCents" | "brCode" | "dueDateCharge"> {
  const date = paymentDate ?? brasiliaDate(now);
  if (!isCalendarDate(date)) throw fieldError("paymentDate", "deve ser uma data válida no formato AAAA-MM-DD");
  const created = brasiliaDate(charge.createdAt);
  if (date < created) throw fieldError("paymentDate", `não pode ser anterior à criação da cobrança (${created})`);
  const due = amountDue(termsOf(record), date);
  if (!due.payable) {
    throw fieldError("paymentDate", `não pode ser posterior ao último dia de pagamento (${due.lastPayableDate})`);
  }
  return {
    amountCents: due.finalCents,
    feeCents: dueDateFee(record, due.finalCents),
    brCode: brCodeWithAmount(charge.brCode, due.finalCents),
    dueDateCharge: { ...record, paid: presentAmountDue(due) },
  };
}
