import { dueDateLimits } from "../../../../generated/rules";
import type { components } from "../../../../generated/dashboard-api";
import { parseDay } from "../../components/DateRangeFilter";
import { formatDay, formatMoney, parseMoneyInput } from "../../lib/format";

// A charge with a due date as the merchant types it (issue 38): the form's text fields turned into
// the API's terms (reais into cents, `2,5` % into 250 basis points, `dd/mm/aaaa` into ISO days),
// the server's field paths back onto the form's fields, and the terms and modes in plain
// Portuguese. Pure: the amounts themselves are always the server's (the preview route).

type PreviewBody = components["schemas"]["DueDateChargePreviewRequest"];
export type Terms = Omit<PreviewBody, "paymentDates">;
type FlatMode = NonNullable<Terms["fine"]>["mode"];
export type InterestMode = NonNullable<Terms["interest"]>["mode"];
export type DiscountMode = NonNullable<Terms["discount"]>["mode"];
export type DueDateCharge = components["schemas"]["PixService.DueDateCharge"];
export type AmountDue = components["schemas"]["PixService.AmountDue"];

export { dueDateLimits };

/** A fine's or a rebate's kinds, as the form offers them. */
export const flatModeLabel: Record<FlatMode, string> = {
  FIXED: "Valor fixo (R$)",
  PERCENTAGE: "Percentual (%)",
};

/** The standard's eight interest modes, as a person says them. */
export const interestModeLabel: Record<InterestMode, string> = {
  PERCENTAGE_PER_MONTH_CALENDAR_DAYS: "% ao mês, por dia corrido de atraso",
  PERCENTAGE_PER_YEAR_CALENDAR_DAYS: "% ao ano, por dia corrido de atraso",
  PERCENTAGE_PER_CALENDAR_DAY: "% ao dia, por dia corrido de atraso",
  AMOUNT_PER_CALENDAR_DAY: "R$ por dia corrido de atraso",
  PERCENTAGE_PER_MONTH_BUSINESS_DAYS: "% ao mês, por dia útil de atraso",
  PERCENTAGE_PER_YEAR_BUSINESS_DAYS: "% ao ano, por dia útil de atraso",
  PERCENTAGE_PER_BUSINESS_DAY: "% ao dia útil de atraso",
  AMOUNT_PER_BUSINESS_DAY: "R$ por dia útil de atraso",
};

/** The standard's six discount modes, as a person says them. */
export const discountModeLabel: Record<DiscountMode, string> = {
  AMOUNT_UNTIL_DATES: "R$ de desconto até cada data (até 3 datas)",
  PERCENTAGE_UNTIL_DATES: "% de desconto até cada data (até 3 datas)",
  AMOUNT_PER_CALENDAR_DAY: "R$ por dia corrido de antecipação",
  AMOUNT_PER_BUSINESS_DAY: "R$ por dia útil de antecipação",
  PERCENTAGE_PER_CALENDAR_DAY: "% por dia corrido de antecipação",
  PERCENTAGE_PER_BUSINESS_DAY: "% por dia útil de antecipação",
};

const amountModes = new Set<string>([
  "FIXED",
  "AMOUNT_PER_CALENDAR_DAY",
  "AMOUNT_PER_BUSINESS_DAY",
  "AMOUNT_UNTIL_DATES",
]);

/** Whether a mode's value is in reais (else a percentage). */
export const takesAmount = (mode: string): boolean => amountModes.has(mode);

/** Whether a discount mode has dates (else it is per day of payment before the due date). */
export const hasDates = (mode: string): boolean => mode.endsWith("_UNTIL_DATES");

/** A percentage typed by a person (`2`, `2,5`, `0,33 %`) in basis points (250); null when not 0,01 to 100. */
export function parsePercentInput(text: string): number | null {
  const t = text.replace(/%|\s/g, "").replace(",", ".");
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(t)) return null;
  const bps = Math.round(Number(t) * 100);
  return bps >= 1 && bps <= dueDateLimits.maxRateBps ? bps : null;
}

/** `2,5%` from 250 basis points. */
export const formatRate = (bps: number): string =>
  `${(bps / 100).toLocaleString("pt-BR", { maximumFractionDigits: 2 })}%`;

/** The form's text, one string per field (a discount's dates in `discountDate0..2` and `discountValue0..2`). */
export interface TermsForm {
  amount: string;
  dueDate: string;
  daysPayableAfterDue: string;
  fineMode: "" | FlatMode;
  fineValue: string;
  interestMode: "" | InterestMode;
  interestValue: string;
  rebateMode: "" | FlatMode;
  rebateValue: string;
  discountMode: "" | DiscountMode;
  discountValue: string;
  discountDate0: string;
  discountValue0: string;
  discountDate1: string;
  discountValue1: string;
  discountDate2: string;
  discountValue2: string;
}

export const emptyTermsForm: TermsForm = {
  amount: "",
  dueDate: "",
  daysPayableAfterDue: String(dueDateLimits.defaultDaysPayableAfterDue),
  fineMode: "",
  fineValue: "",
  interestMode: "",
  interestValue: "",
  rebateMode: "",
  rebateValue: "",
  discountMode: "",
  discountValue: "",
  discountDate0: "",
  discountValue0: "",
  discountDate1: "",
  discountValue1: "",
  discountDate2: "",
  discountValue2: "",
};

export type TermsField = keyof TermsForm;
const money = "digite um valor em reais, como 10,00";
const percent = "digite um percentual de 0,01 a 100, como 2 ou 2,5";
const date = "digite uma data como 13/12/2030";

/** A value of `mode`: cents for an amount mode, basis points for a percentage one. */
function valueOf(mode: string, text: string, field: TermsField, wrong: Partial<Record<TermsField, string>>) {
  if (takesAmount(mode)) {
    const cents = parseMoneyInput(text);
    if (cents === null) wrong[field] = money;
    return cents === null ? {} : { amountCents: cents };
  }
  const bps = parsePercentInput(text);
  if (bps === null) wrong[field] = percent;
  return bps === null ? {} : { rateBps: bps };
}

/**
 * The API's terms of what was typed, and what the form itself refuses before asking the server
 * (money, percentages and dates as a person types them). `terms` is null while anything is wrong
 * or the amount or the due date is missing.
 */
export function termsFromForm(form: TermsForm): { terms: Terms | null; wrong: Partial<Record<TermsField, string>> } {
  const wrong: Partial<Record<TermsField, string>> = {};
  const amountCents = parseMoneyInput(form.amount);
  if (form.amount.trim() && amountCents === null) wrong.amount = money;
  const dueDate = parseDay(form.dueDate);
  if (form.dueDate.trim() && dueDate === null) wrong.dueDate = date;
  const daysText = form.daysPayableAfterDue.trim();
  const days = /^\d{1,3}$/.test(daysText) ? Number(daysText) : null;
  if (days === null || days > dueDateLimits.maxDaysPayableAfterDue) {
    wrong.daysPayableAfterDue = `digite um número de dias de 0 a ${dueDateLimits.maxDaysPayableAfterDue}`;
  }
  const terms: Terms = { amountCents: amountCents ?? 0, dueDate: dueDate ?? "", daysPayableAfterDue: days ?? 0 };
  if (form.fineMode)
    terms.fine = { mode: form.fineMode, ...valueOf(form.fineMode, form.fineValue, "fineValue", wrong) };
  if (form.interestMode) {
    terms.interest = {
      mode: form.interestMode,
      ...valueOf(form.interestMode, form.interestValue, "interestValue", wrong),
    };
  }
  if (form.rebateMode) {
    terms.rebate = { mode: form.rebateMode, ...valueOf(form.rebateMode, form.rebateValue, "rebateValue", wrong) };
  }
  if (form.discountMode) {
    const mode = form.discountMode;
    if (hasDates(mode)) {
      const dates: NonNullable<NonNullable<Terms["discount"]>["dates"]> = [];
      for (const i of [0, 1, 2] as const) {
        const dayText = form[`discountDate${i}`].trim();
        const valueText = form[`discountValue${i}`].trim();
        if (!dayText && !valueText) continue;
        const day = parseDay(dayText);
        if (day === null) wrong[`discountDate${i}`] = date;
        const value = valueOf(mode, valueText, `discountValue${i}`, wrong);
        if (day !== null) dates.push({ date: day, ...value });
      }
      if (dates.length === 0 && !wrong.discountDate0) wrong.discountDate0 = "informe ao menos uma data de desconto";
      terms.discount = { mode, dates };
    } else {
      terms.discount = { mode, ...valueOf(mode, form.discountValue, "discountValue", wrong) };
    }
  }
  const complete = amountCents !== null && dueDate !== null;
  return { terms: complete && Object.keys(wrong).length === 0 ? terms : null, wrong };
}

/**
 * The form's field for a path of the server's refusal (`discount.dates.1.amountCents` →
 * `discountValue1`); null for a path the terms fields do not show.
 */
export function termsFieldOf(path: string): TermsField | "chosenDate" | null {
  const dated = /^discount\.dates\.(\d)(?:\.(\w+))?$/.exec(path);
  if (dated) {
    const i = Number(dated[1]);
    if (i > 2) return "discountDate0";
    return dated[2] === "date" || dated[2] === undefined
      ? `discountDate${i as 0 | 1 | 2}`
      : `discountValue${i as 0 | 1 | 2}`;
  }
  const [head, tail] = path.split(".");
  switch (head) {
    case "amountCents":
      return "amount";
    case "dueDate":
      return "dueDate";
    case "daysPayableAfterDue":
      return "daysPayableAfterDue";
    case "fine":
      return tail === "mode" ? "fineMode" : "fineValue";
    case "interest":
      return tail === "mode" ? "interestMode" : "interestValue";
    case "rebate":
      return tail === "mode" ? "rebateMode" : "rebateValue";
    case "discount":
      return tail === "mode" ? "discountMode" : tail === "dates" ? "discountDate0" : "discountValue";
    case "paymentDates":
      return "chosenDate";
    default:
      return null;
  }
}

/** A fine or a rebate in words: `2%` or `R$ 10,00`. */
const flatInWords = (flat: { amountCents?: number; rateBps?: number }) =>
  flat.rateBps !== undefined ? formatRate(flat.rateBps) : formatMoney(flat.amountCents ?? 0);

/** Interest in words: `1% ao mês, por dia corrido de atraso`, `R$ 0,50 por dia útil de atraso`. */
function interestInWords(interest: NonNullable<Terms["interest"]>): string {
  const label = interestModeLabel[interest.mode];
  return interest.rateBps !== undefined
    ? `${formatRate(interest.rateBps)} ${label.replace(/^% /, "")}`
    : `${formatMoney(interest.amountCents ?? 0)} ${label.replace(/^R\$ /, "")}`;
}

/** A discount in words: each date's (`R$ 10,00 até 11/12/2030`) or the per-day one. */
function discountInWords(discount: NonNullable<Terms["discount"]>): string {
  if (discount.dates) {
    return discount.dates.map((d) => `${flatInWords(d)} até ${formatDay(d.date)}`).join("; ");
  }
  const label = discountModeLabel[discount.mode];
  return `${flatInWords(discount)} ${label.replace(/^(%|R\$) /, "")}`;
}

/** The terms in the words of the transaction's page: [label, value] pairs, only those set. */
export function termsInWords(charge: DueDateCharge): [string, string][] {
  const t = charge.terms;
  const due =
    charge.adjustedDueDate !== t.dueDate
      ? `${formatDay(t.dueDate)} (dia não útil: vale ${formatDay(charge.adjustedDueDate)})`
      : formatDay(t.dueDate);
  const rows: [string, string][] = [
    ["Vencimento", due],
    ["Pagável até", `${formatDay(charge.lastPayableDate)} (${t.daysPayableAfterDue} dias após o vencimento)`],
    ["Valor original", formatMoney(t.amountCents)],
  ];
  if (t.fine) rows.push(["Multa", `${flatInWords(t.fine)}, uma vez, se pago depois do vencimento`]);
  if (t.interest) rows.push(["Juros", interestInWords(t.interest)]);
  if (t.rebate) rows.push(["Abatimento", `${flatInWords(t.rebate)}, sempre`]);
  if (t.discount) rows.push(["Desconto", discountInWords(t.discount)]);
  return rows;
}

/**
 * What the list says of a charge with a due date beside its status: `Vencida` while it waits past
 * its due date (by the server's today, `amountDue.daysLate`), nothing otherwise (an expired one's
 * status already reads `Expirada`).
 */
export function overdueBadge(t: { status: string; dueDateCharge?: DueDateCharge | undefined }): "Vencida" | null {
  return t.status === "WAITING_PAYMENT" && (t.dueDateCharge?.amountDue?.daysLate ?? 0) > 0 ? "Vencida" : null;
}

/** The breakdown's lines, in the order a payer reads them: [label, signed cents]; zero lines left out but the original and the total. */
export function breakdownLines(due: AmountDue): { label: string; cents: number; sign: "" | "−" | "+" }[] {
  const lines: { label: string; cents: number; sign: "" | "−" | "+" }[] = [
    { label: "Valor original", cents: due.originalCents, sign: "" },
  ];
  if (due.rebateCents) lines.push({ label: "Abatimento", cents: due.rebateCents, sign: "−" });
  if (due.discountCents) {
    const until = due.discountUntil ? ` até ${formatDay(due.discountUntil)}` : "";
    lines.push({ label: `Desconto${until}`, cents: due.discountCents, sign: "−" });
  }
  if (due.fineCents) lines.push({ label: "Multa", cents: due.fineCents, sign: "+" });
  if (due.interestCents) {
    const days = `${due.interestDays} ${due.interestDays === 1 ? "dia" : "dias"}`;
    lines.push({ label: `Juros (${days})`, cents: due.interestCents, sign: "+" });
  }
  return lines;
}
