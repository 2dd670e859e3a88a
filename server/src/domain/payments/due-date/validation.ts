import { checkAmountCents } from "../../core/amounts.js";
import { fieldError } from "../../core/errors.js";
import { formatBRL } from "../../core/money.js";
import { amountLimits } from "../../core/policy.js";
import { amountDue, discountOn, percentOf, rebateOf } from "./amount-due.js";
import { isCalendarDate } from "./calendar.js";
import {
  type Amount,
  adjustedDueDate,
  type DiscountMode,
  type DiscountTerms,
  discountModes,
  type DueDateTerms,
  type DueDateTermsInput,
  dueDateLimits,
  type FlatTerms,
  flatModes,
  type InterestTerms,
  interestModes,
  lastPayableDate,
  type Rate,
  type ValueInput,
  type ValueKind,
} from "./terms.js";

// The refusals of a charge with a due date's terms (issue 38), each a `400 VALIDATION_ERROR` naming
// its field with a Portuguese message. The bounds: `dueDateLimits` (terms.ts) and record 0052.

function checkRate(path: string, rateBps: unknown, maxBps: number = dueDateLimits.maxRateBps): number {
  if (typeof rateBps !== "number" || !Number.isSafeInteger(rateBps) || rateBps < 1 || rateBps > maxBps) {
    throw fieldError(path, `deve ser um número inteiro de pontos-base de 1 a ${maxBps} (100 = 1%)`);
  }
  return rateBps;
}

/** The one value of `kind` a mode takes: the other one is refused, the missing one too. */
function checkValue(path: string, mode: string, kind: ValueKind, input: ValueInput): Amount | Rate {
  const [wanted, other] =
    kind === "amount" ? (["amountCents", "rateBps"] as const) : (["rateBps", "amountCents"] as const);
  if (input[other] !== undefined)
    throw fieldError(`${path}.${other}`, `não se usa na modalidade ${mode}; informe ${wanted}`);
  if (input[wanted] === undefined) throw fieldError(`${path}.${wanted}`, `é obrigatório na modalidade ${mode}`);
  if (kind === "rate") return { rateBps: checkRate(`${path}.rateBps`, input.rateBps) };
  checkAmountCents(input.amountCents as number, 1, `${path}.amountCents`);
  return { amountCents: input.amountCents as number };
}

/**
 * Checks terms before a charge is created, against `today` (the Brasília date): each value fits
 * its mode, the due date is not past, a discount date is not after the due date, no discount or
 * rebate reaches the amount, and no payable day owes more than the largest amount. Throws
 * `400 VALIDATION_ERROR` on the first field that fails, with a Portuguese message.
 */
export function checkDueDateTerms(input: DueDateTermsInput, today: string): DueDateTerms {
  checkAmountCents(input.amountCents, amountLimits.minChargeCents);
  const amountCents = input.amountCents;

  if (!isCalendarDate(input.dueDate)) throw fieldError("dueDate", "deve ser uma data válida no formato AAAA-MM-DD");
  if (input.dueDate < today) throw fieldError("dueDate", `não pode ser anterior a hoje (${today})`);
  const latest = `${Number(today.slice(0, 4)) + dueDateLimits.maxYearsAhead}${today.slice(4)}`;
  if (input.dueDate > latest) {
    throw fieldError("dueDate", `deve estar em até ${dueDateLimits.maxYearsAhead} anos a partir de hoje (${latest})`);
  }
  const daysPayableAfterDue = input.daysPayableAfterDue ?? dueDateLimits.defaultDaysPayableAfterDue;
  if (
    !Number.isSafeInteger(daysPayableAfterDue) ||
    daysPayableAfterDue < 0 ||
    daysPayableAfterDue > dueDateLimits.maxDaysPayableAfterDue
  ) {
    throw fieldError(
      "daysPayableAfterDue",
      `deve ser um número inteiro de 0 a ${dueDateLimits.maxDaysPayableAfterDue} (dias corridos após o vencimento)`,
    );
  }

  const terms: DueDateTerms = { amountCents, dueDate: input.dueDate, daysPayableAfterDue };

  if (input.rebate) {
    const { mode } = input.rebate;
    if (!Object.hasOwn(flatModes, mode)) throw fieldError("rebate.mode", "deve ser FIXED ou PERCENTAGE");
    const rebate = {
      mode,
      ...checkValue("rebate", mode, mode === "FIXED" ? "amount" : "rate", input.rebate),
    } as FlatTerms;
    const rebateCents = rebateOf(rebate, amountCents);
    if (rebateCents >= amountCents) {
      const field = rebate.mode === "FIXED" ? "rebate.amountCents" : "rebate.rateBps";
      throw fieldError(
        field,
        `o abatimento (${formatBRL(rebateCents)}) alcança o valor da cobrança (${formatBRL(amountCents)})`,
      );
    }
    terms.rebate = rebate;
  }
  const rebatedCents = amountCents - (terms.rebate ? rebateOf(terms.rebate, amountCents) : 0);

  if (input.fine) {
    const { mode } = input.fine;
    if (!Object.hasOwn(flatModes, mode)) throw fieldError("fine.mode", "deve ser FIXED ou PERCENTAGE");
    terms.fine = { mode, ...checkValue("fine", mode, mode === "FIXED" ? "amount" : "rate", input.fine) } as FlatTerms;
  }

  if (input.interest) {
    const { mode } = input.interest;
    if (!Object.hasOwn(interestModes, mode)) {
      throw fieldError("interest.mode", `deve ser um de ${Object.keys(interestModes).join(", ")}`);
    }
    const { value } = interestModes[mode];
    terms.interest = { mode, ...checkValue("interest", mode, value, input.interest) } as InterestTerms;
  }

  if (input.discount) terms.discount = checkDiscount(input.discount, terms, rebatedCents, today);

  // Interest grows with every day late: the last payable day owes the most, and it must still fit
  // a BR Code's amount (field 54).
  const last = lastPayableDate(terms.dueDate, daysPayableAfterDue);
  const largest = amountDue(terms, last).finalCents;
  if (largest > amountLimits.maxCents) {
    throw fieldError(
      terms.interest ? "interest" : "fine",
      `no último dia de pagamento (${last}) o valor devido (${formatBRL(largest)}) passaria do máximo (${formatBRL(amountLimits.maxCents)})`,
    );
  }
  return terms;
}

function checkDiscount(
  input: NonNullable<DueDateTermsInput["discount"]>,
  terms: DueDateTerms,
  rebatedCents: number,
  today: string,
): DiscountTerms {
  const { mode } = input;
  if (!Object.hasOwn(discountModes, mode)) {
    throw fieldError("discount.mode", `deve ser um de ${Object.keys(discountModes).join(", ")}`);
  }
  const definition: (typeof discountModes)[DiscountMode] = discountModes[mode];
  const reaches = (path: string, cents: number, when: string) =>
    fieldError(
      path,
      `o desconto ${when} (${formatBRL(cents)}) alcança o valor da cobrança${terms.rebate ? " após o abatimento" : ""} (${formatBRL(rebatedCents)})`,
    );

  if (definition.per === "DATE") {
    for (const field of ["amountCents", "rateBps"] as const) {
      if (input[field] !== undefined) {
        throw fieldError(
          `discount.${field}`,
          `não se usa na modalidade ${mode}; informe o valor de cada data em dates`,
        );
      }
    }
    const dates = input.dates;
    if (!Array.isArray(dates) || dates.length === 0 || dates.length > dueDateLimits.maxDiscountDates) {
      throw fieldError(
        "discount.dates",
        `deve ter de 1 a ${dueDateLimits.maxDiscountDates} datas na modalidade ${mode}`,
      );
    }
    const seen = new Set<string>();
    const checked = dates.map((entry, i) => {
      const path = `discount.dates.${i}`;
      if (typeof entry !== "object" || entry === null) throw fieldError(path, "deve ser um objeto com date e o valor");
      if (!isCalendarDate(entry.date))
        throw fieldError(`${path}.date`, "deve ser uma data válida no formato AAAA-MM-DD");
      if (entry.date > terms.dueDate) {
        throw fieldError(`${path}.date`, `não pode ser posterior ao vencimento (${terms.dueDate})`);
      }
      if (seen.has(entry.date)) throw fieldError(`${path}.date`, "repete a data de outro desconto");
      seen.add(entry.date);
      const value = checkValue(path, mode, definition.value, entry);
      const cents = "amountCents" in value ? value.amountCents : percentOf(rebatedCents, value.rateBps);
      if (cents >= rebatedCents) {
        throw reaches(`${path}.${"amountCents" in value ? "amountCents" : "rateBps"}`, cents, `até ${entry.date}`);
      }
      return { date: entry.date, ...value };
    });
    // Paying earlier never costs more: a date's discount is at least the one of every later date.
    const byDate = [...checked].sort((a, b) => (a.date < b.date ? -1 : 1));
    for (let i = 1; i < byDate.length; i++) {
      const earlier = byDate[i - 1] as (typeof byDate)[number];
      const later = byDate[i] as (typeof byDate)[number];
      const size = (entry: typeof later) => ("amountCents" in entry ? entry.amountCents : entry.rateBps);
      if (size(later) > size(earlier)) {
        const field = "amountCents" in later ? "amountCents" : "rateBps";
        throw fieldError(
          `discount.dates.${checked.indexOf(later)}.${field}`,
          `o desconto até ${later.date} não pode ser maior que o desconto até ${earlier.date}, uma data anterior`,
        );
      }
    }
    return { mode, dates: checked } as DiscountTerms;
  }

  if (input.dates !== undefined) {
    throw fieldError("discount.dates", `não se usa na modalidade ${mode}; o desconto é por dia de antecipação`);
  }
  const value = checkValue("discount", mode, definition.value, input);
  const discount = { mode, ...value } as DiscountTerms;
  // The largest per-day discount is the one of a payment today: it must leave something to pay.
  const largest = discountOn(discount, rebatedCents, today, adjustedDueDate(terms.dueDate));
  if (largest.cents >= rebatedCents) {
    throw reaches(
      `discount.${"amountCents" in value ? "amountCents" : "rateBps"}`,
      largest.cents,
      `de ${largest.days} dias de antecipação, pago hoje,`,
    );
  }
  return discount;
}
