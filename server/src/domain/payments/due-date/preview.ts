import type { components } from "../../../../../generated/dashboard-api.js";
import type { ScopedCaller, DomainDeps } from "../../deps.js";
import { DomainError, fieldError } from "../../core/errors.js";
import { formatBRL } from "../../core/money.js";
import { brasiliaDate } from "../../core/time.js";
import { chargeFee } from "../charges.js";
import { amountDue } from "./amount-due.js";
import { addDays, isCalendarDate } from "./calendar.js";
import { smallestAmountDue } from "./charges.js";
import { presentAmountDue } from "./present.js";
import { adjustedDueDate, lastPayableDate } from "./terms.js";
import { checkDueDateTerms } from "./validation.js";

// The dashboard's preview of a charge with a due date (issue 38): what the payer would owe on a
// few dates, computed by `amountDue` (record 0052) from terms checked by `checkDueDateTerms` as
// the creation checks them, so the form shows the refusals the creation would give. Nothing is
// kept; no money moves.

type PreviewRequest = components["schemas"]["DueDateChargePreviewRequest"];
type Preview = components["schemas"]["DueDateChargePreview"];
type PreviewAmount = Preview["amounts"][number];

/**
 * The amounts due today, on the due date in fact, a week after it, and on each of `paymentDates`
 * (today or later, each once), checked against `today` (the Brasília date of the clock).
 */
function previewDueDateCharge(caller: ScopedCaller, body: PreviewRequest, today: string): Preview {
  const terms = checkDueDateTerms(body, today);
  const chosen = body.paymentDates ?? [];
  chosen.forEach((date, i) => {
    if (!isCalendarDate(date)) throw fieldError(`paymentDates.${i}`, "deve ser uma data válida no formato AAAA-MM-DD");
    if (date < today) throw fieldError(`paymentDates.${i}`, `não pode ser anterior a hoje (${today})`);
    if (chosen.indexOf(date) !== i) throw fieldError(`paymentDates.${i}`, "repete outra data escolhida");
  });
  const smallest = smallestAmountDue(terms, today);
  const smallestFee = chargeFee(caller.account, smallest);
  if (smallestFee >= smallest) {
    throw new DomainError(
      "REQUEST_ERROR",
      `O menor valor devido (${formatBRL(smallest)}) deve ser maior que a tarifa do plano (${formatBRL(smallestFee)}).`,
    );
  }
  const dueDate = adjustedDueDate(terms.dueDate);
  const last = lastPayableDate(terms.dueDate, terms.daysPayableAfterDue);
  const dates: [PreviewAmount["kind"], string][] = [
    ["TODAY", today],
    ["DUE_DATE", dueDate],
    ["WEEK_AFTER_DUE_DATE", addDays(dueDate, 7)],
    ...chosen.map((date): [PreviewAmount["kind"], string] => ["CHOSEN", date]),
  ];
  return {
    today,
    adjustedDueDate: dueDate,
    lastPayableDate: last,
    amounts: dates.map(([kind, date]) => {
      const due = amountDue(terms, date);
      const feeCents = chargeFee(caller.account, due.finalCents);
      return {
        kind,
        payable: due.payable,
        ...presentAmountDue(due),
        feeCents,
        netAmountCents: Math.max(0, due.finalCents - feeCents),
      };
    }),
  };
}

export function dueDatePreviewUseCases(deps: DomainDeps) {
  return {
    /** The preview at the clock's Brasília date, in either mode. */
    preview: async (caller: ScopedCaller, body: PreviewRequest): Promise<Preview> =>
      previewDueDateCharge(caller, body, brasiliaDate(deps.clock.now().toISOString())),
  };
}
