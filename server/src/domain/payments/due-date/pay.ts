import { brCodeWithAmount } from "../../../pix/brcode.js";
import { fieldError } from "../../core/errors.js";
import type { DueDateChargeRecord, Schemas, TransactionRecord } from "../../core/model.js";
import { brasiliaDate } from "../../core/time.js";
import type { BankAmountComponents, BankDueDateChargeRequest, BankTermValue } from "../../ports/pix-bank.js";
import { amountDue } from "./amount-due.js";
import { isCalendarDate } from "./calendar.js";
import { dueDateFee, presentAmountDue, termsOf } from "./present.js";
import { discountModes, type FlatTerms, flatModes, interestModes } from "./terms.js";

/**
 * What a charge with a due date becomes when paid on `paymentDate` (a Brasília date; default the
 * date of `now`): the amount due that day, its fee (the plan's when the charge was created), its
 * Pix code, and the breakdown kept (`paid`). A date after the last payable day, or before the day
 * the charge was created, is refused on `paymentDate` (`400 VALIDATION_ERROR`). A charge paid
 * through the bank arrives with `paid` set already (`withBankBreakdown`: the received Pix's
 * `componentesValor`), and that is what is kept and charged.
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
  const paid = record.paid ?? presentAmountDue(due);
  return {
    amountCents: paid.finalCents,
    feeCents: dueDateFee(record, paid.finalCents),
    brCode: brCodeWithAmount(charge.brCode, paid.finalCents),
    dueDateCharge: { ...record, paid },
  };
}

// ---- Through the bank (issue 38 in production: `PUT /cobv/{txid}`; record 0053, "Production").

/** A fine's or a rebate's mode and value as the bank takes them (`modalidade`, `valorPerc` × 100). */
const flatAtBank = (flat: FlatTerms): BankTermValue => ({
  modality: flatModes[flat.mode],
  hundredths: flat.mode === "FIXED" ? flat.amountCents : flat.rateBps,
});

/** `hundredths` of a value given as an amount or a rate (cents and basis points are both the standard's hundredths). */
const hundredthsOf = (value: { amountCents: number } | { rateBps: number }): number =>
  "amountCents" in value ? value.amountCents : value.rateBps;

/** What `PUT /cobv/{txid}` is asked for a charge with a due date: its terms, the same on every retry. */
export function dueDateBankRequest(
  charge: TransactionRecord & { dueDateCharge: DueDateChargeRecord },
  txid: string,
): BankDueDateChargeRequest {
  const terms = termsOf(charge.dueDateCharge);
  const { discount } = terms;
  return {
    txid,
    amountCents: terms.amountCents,
    dueDate: terms.dueDate,
    daysPayableAfterDue: terms.daysPayableAfterDue,
    payer: {
      name: charge.customer.name,
      documentType: charge.customer.documentType,
      document: charge.customer.document,
      email: charge.customer.email,
    },
    description: charge.description.slice(0, 140),
    fine: terms.fine ? flatAtBank(terms.fine) : undefined,
    interest: terms.interest
      ? { modality: interestModes[terms.interest.mode].code, hundredths: hundredthsOf(terms.interest) }
      : undefined,
    rebate: terms.rebate ? flatAtBank(terms.rebate) : undefined,
    discount: !discount
      ? undefined
      : "dates" in discount
        ? {
            modality: discountModes[discount.mode].code,
            dates: discount.dates.map((entry) => ({ date: entry.date, hundredths: hundredthsOf(entry) })),
          }
        : { modality: discountModes[discount.mode].code, hundredths: hundredthsOf(discount) },
  };
}

/**
 * The amount a Pix received at `paidAt` must carry to pay `charge`: its amount, or for a charge
 * with a due date the amount due on the Brasília date of `paidAt` (null when not payable that day:
 * before its creation or after its last payable day).
 */
export function amountExpectedAt(charge: TransactionRecord, paidAt: string): number | null {
  if (!charge.dueDateCharge) return charge.amountCents;
  const date = brasiliaDate(paidAt);
  if (date < brasiliaDate(charge.createdAt)) return null;
  const due = amountDue(termsOf(charge.dueDateCharge), date);
  return due.payable ? due.finalCents : null;
}

/**
 * A charge with a due date about to be credited by a Pix received at `paidAt` for `amountCents`:
 * its `paid` breakdown is the bank's `componentesValor` (the days and the discount's date ours, for
 * the same date), so what is kept and sent in `transaction.paid` is what the bank says was paid.
 * Without components, ours for that date. `differs`: whether the bank's parts are not ours (the
 * total matched; the caller logs it). Any other charge is returned as is.
 */
export function withBankBreakdown(
  charge: TransactionRecord,
  received: { amountCents: number; components?: BankAmountComponents | null | undefined },
  paidAt: string,
): { charge: TransactionRecord; differs: boolean } {
  const record = charge.dueDateCharge;
  if (!record) return { charge, differs: false };
  const ours = presentAmountDue(amountDue(termsOf(record), brasiliaDate(paidAt)));
  const parts = received.components;
  const paid: Schemas["AmountDue"] = parts ? { ...ours, ...parts, finalCents: received.amountCents } : ours;
  const differs = (["originalCents", "rebateCents", "discountCents", "fineCents", "interestCents"] as const).some(
    (name) => paid[name] !== ours[name],
  );
  return { charge: { ...charge, dueDateCharge: { ...record, paid } }, differs };
}
