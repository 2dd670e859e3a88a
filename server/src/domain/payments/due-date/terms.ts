import { addDays, nextBusinessDay } from "./calendar.js";

// The terms of a Pix charge with a due date (issue 38): the Central Bank's `CobVSolicitada`
// (generated/bank/pix-api.yaml: `calendario.dataDeVencimento`, `calendario.validadeAposVencimento`,
// `valor.multa`, `valor.juros`, `valor.abatimento`, `valor.desconto`) in our API's words: amounts in
// integer cents (`amountCents`), percentages in basis points (`rateBps`, 100 = 1 %: the standard's
// `valorPerc` has two decimals, so every percentage it can carry is a whole number of basis
// points), each `modalidade` a name. The amount due on a payment date is `amountDue`
// (amount-due.ts), checked by `checkDueDateTerms` (validation.ts); how it is computed and rounded: docs/decisions/0052-due-date-charge-amounts.md.

/** A fine (`multa`) or a rebate (`abatimento`): a fixed amount, or a percentage. The standard's codes 1 and 2. */
export const flatModes = { FIXED: 1, PERCENTAGE: 2 } as const;
export type FlatMode = keyof typeof flatModes;

/** What a mode's number is: an amount in cents, or a rate in basis points. */
export type ValueKind = "amount" | "rate";
type DayCount = "CALENDAR" | "BUSINESS";

/**
 * The standard's eight interest modes (`juros.modalidade`, codes 1–8): an amount or a percentage
 * per day, month or year, counted in calendar or business days. `periodDays` is the `n` of the
 * Central Bank's formula (Manual de Padrões para Iniciação do Pix, Equação 11): the rate of a
 * period is spread over its days, 30 and 365 calendar days or 21 and 252 business days.
 */
export const interestModes = {
  AMOUNT_PER_CALENDAR_DAY: { code: 1, value: "amount", periodDays: 1, days: "CALENDAR" },
  PERCENTAGE_PER_CALENDAR_DAY: { code: 2, value: "rate", periodDays: 1, days: "CALENDAR" },
  PERCENTAGE_PER_MONTH_CALENDAR_DAYS: { code: 3, value: "rate", periodDays: 30, days: "CALENDAR" },
  PERCENTAGE_PER_YEAR_CALENDAR_DAYS: { code: 4, value: "rate", periodDays: 365, days: "CALENDAR" },
  AMOUNT_PER_BUSINESS_DAY: { code: 5, value: "amount", periodDays: 1, days: "BUSINESS" },
  PERCENTAGE_PER_BUSINESS_DAY: { code: 6, value: "rate", periodDays: 1, days: "BUSINESS" },
  PERCENTAGE_PER_MONTH_BUSINESS_DAYS: { code: 7, value: "rate", periodDays: 21, days: "BUSINESS" },
  PERCENTAGE_PER_YEAR_BUSINESS_DAYS: { code: 8, value: "rate", periodDays: 252, days: "BUSINESS" },
} as const satisfies Record<string, { code: number; value: ValueKind; periodDays: number; days: DayCount }>;
export type InterestMode = keyof typeof interestModes;

/**
 * The standard's six discount modes (`desconto.modalidade`, codes 1–6): an amount or a percentage
 * until each of up to three dates (`descontoDataFixa`), or an amount or a percentage for each
 * calendar or business day paid before the due date.
 */
export const discountModes = {
  AMOUNT_UNTIL_DATES: { code: 1, value: "amount", per: "DATE" },
  PERCENTAGE_UNTIL_DATES: { code: 2, value: "rate", per: "DATE" },
  AMOUNT_PER_CALENDAR_DAY: { code: 3, value: "amount", per: "CALENDAR" },
  AMOUNT_PER_BUSINESS_DAY: { code: 4, value: "amount", per: "BUSINESS" },
  PERCENTAGE_PER_CALENDAR_DAY: { code: 5, value: "rate", per: "CALENDAR" },
  PERCENTAGE_PER_BUSINESS_DAY: { code: 6, value: "rate", per: "BUSINESS" },
} as const satisfies Record<string, { code: number; value: ValueKind; per: "DATE" | DayCount }>;
export type DiscountMode = keyof typeof discountModes;

/**
 * The bounds of the terms, written once in the spec (spec/due-date-charges.tsp) and read back by
 * `npm run generate`. The standard only refuses a negative `validadeAposVencimento`; the rest is
 * ours (record 0052).
 */
export { dueDateLimits } from "../../core/policy.js";

/** A value given as an amount or as a rate: which one depends on the mode. */
export interface ValueInput {
  amountCents?: number | undefined;
  rateBps?: number | undefined;
}

/** The terms as a request gives them: every value optional, checked against its mode by `checkDueDateTerms`. */
export interface DueDateTermsInput {
  /** The original amount (`valor.original`). */
  amountCents: number;
  /** The due date, a Brasília calendar date `YYYY-MM-DD`, payable all that day (`calendario.dataDeVencimento`). */
  dueDate: string;
  /** Calendar days the charge stays payable after the due date (`calendario.validadeAposVencimento`). */
  daysPayableAfterDue?: number | undefined;
  fine?: ({ mode: FlatMode } & ValueInput) | undefined;
  interest?: ({ mode: InterestMode } & ValueInput) | undefined;
  rebate?: ({ mode: FlatMode } & ValueInput) | undefined;
  discount?: ({ mode: DiscountMode; dates?: ({ date: string } & ValueInput)[] | undefined } & ValueInput) | undefined;
}

export type Amount = { amountCents: number };
export type Rate = { rateBps: number };
type WithValue<M extends string, Kind extends ValueKind> = { mode: M } & (Kind extends "amount" ? Amount : Rate);

/** A fine or a rebate, checked: a fixed amount, or a percentage of the original amount (rebate) or of the rebated amount (fine). */
export type FlatTerms = WithValue<"FIXED", "amount"> | WithValue<"PERCENTAGE", "rate">;
export type InterestTerms = {
  [M in InterestMode]: WithValue<M, (typeof interestModes)[M]["value"]>;
}[InterestMode];
export type DiscountTerms =
  | { mode: "AMOUNT_UNTIL_DATES"; dates: ({ date: string } & Amount)[] }
  | { mode: "PERCENTAGE_UNTIL_DATES"; dates: ({ date: string } & Rate)[] }
  | WithValue<"AMOUNT_PER_CALENDAR_DAY" | "AMOUNT_PER_BUSINESS_DAY", "amount">
  | WithValue<"PERCENTAGE_PER_CALENDAR_DAY" | "PERCENTAGE_PER_BUSINESS_DAY", "rate">;

/** Terms that passed `checkDueDateTerms`: every value present, fitting its mode and within bounds. */
export interface DueDateTerms {
  amountCents: number;
  dueDate: string;
  daysPayableAfterDue: number;
  fine?: FlatTerms | undefined;
  interest?: InterestTerms | undefined;
  rebate?: FlatTerms | undefined;
  discount?: DiscountTerms | undefined;
}

/** `rateBps` as the standard's `valorPerc`: 250 → "2.50". */
export const rateBpsToPercent = (rateBps: number): string =>
  `${Math.trunc(rateBps / 100)}.${String(rateBps % 100).padStart(2, "0")}`;

/** The standard's `valorPerc` of a percentage as basis points: "2.50" → 250. */
export function percentToRateBps(valorPerc: string): number {
  const match = /^(\d{1,10})\.(\d{2})$/.exec(valorPerc);
  if (!match) throw new RangeError(`not a valorPerc: ${valorPerc}`);
  return Number(match[1]) * 100 + Number(match[2]);
}

/** The date a charge due on `dueDate` is due in fact: the due date, or the next business day (fine, interest and discounts move with it). */
export const adjustedDueDate = (dueDate: string): string => nextBusinessDay(dueDate);

/**
 * The last day the charge can be paid: `daysPayableAfterDue` calendar days after the adjusted due
 * date, moved to the next business day when it is not one (the standard's Exemplos A to G).
 */
export const lastPayableDate = (dueDate: string, daysPayableAfterDue: number): string =>
  nextBusinessDay(addDays(adjustedDueDate(dueDate), daysPayableAfterDue));
