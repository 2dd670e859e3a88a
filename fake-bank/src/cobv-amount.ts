/**
 * The fake bank's own reckoning of what a payer owes on a `cobv` on a given date (issue 38): the
 * Central Bank's rules as its document describes them (`CobVValor`, `validadeAposVencimento`'s
 * worked examples, the Manual de Padrões para Iniciação do Pix's Equação 11), written here from
 * the standard and on purpose not imported from the service (server/src/domain/payments/due-date),
 * so that the two check each other: the service registers the terms, this bank computes the amount
 * and its `componentesValor`, and the service credits the Pix only when its own computation agrees.
 *
 * The rounding is the one the service documents (docs/decisions/0052): each part is an exact
 * fraction of cents rounded once, half up; the total is the sum of the rounded parts.
 */

/** The standard's `valor` of a cobv, as the bank keeps it: cents and basis points as integers. */
export interface CobvTerms {
  /** `valor.original`, cents. */
  original: number;
  /** `calendario.dataDeVencimento`. */
  dataDeVencimento: string;
  /** `calendario.validadeAposVencimento` (default 30). */
  validadeAposVencimento: number;
  /** `modalidade` and `valorPerc` × 100 (cents or basis points). */
  multa?: { modalidade: number; v: number };
  juros?: { modalidade: number; v: number };
  abatimento?: { modalidade: number; v: number };
  desconto?: { modalidade: number; v?: number; datas?: { data: string; v: number }[] };
}

/** What the payer owes on a date: `componentesValor` in cents and its total. */
export interface CobvAmount {
  original: number;
  abatimento: number;
  desconto: number;
  multa: number;
  juros: number;
  total: number;
}

// ---- The calendar: Saturdays, Sundays, the national holidays, and the days the financial system
// closes (Carnival Monday and Tuesday, Corpus Christi): Resolução CMN nº 4.880/2020.

const DAY = 86_400_000;
const ms = (date: string) => Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, +date.slice(8, 10));
const iso = (time: number) => new Date(time).toISOString().slice(0, 10);
const plusDays = (date: string, n: number) => iso(ms(date) + n * DAY);

/** Easter Sunday of `year` (Oudin's algorithm, the Gregorian calendar). */
function easterSunday(year: number): number {
  const century = Math.floor(year / 100);
  const golden = year % 19;
  const skipped = Math.floor((century - 17) / 25);
  let i = (century - Math.floor(century / 4) - Math.floor((century - skipped) / 3) + 19 * golden + 15) % 30;
  i -= Math.floor(i / 28) * (1 - Math.floor(i / 28) * Math.floor(29 / (i + 1)) * Math.floor((21 - golden) / 11));
  const j = (year + Math.floor(year / 4) + i + 2 - century + Math.floor(century / 4)) % 7;
  const l = i - j;
  const month = 3 + Math.floor((l + 40) / 44);
  const day = l + 28 - 31 * Math.floor(month / 4);
  return Date.UTC(year, month - 1, day);
}

const closedDays = new Map<number, Set<string>>();

function closed(year: number): Set<string> {
  let days = closedDays.get(year);
  if (days === undefined) {
    const easter = easterSunday(year);
    days = new Set(
      ["01-01", "04-21", "05-01", "09-07", "10-12", "11-02", "11-15", "12-25", ...(year >= 2024 ? ["11-20"] : [])].map(
        (md) => `${year}-${md}`,
      ),
    );
    // Carnival Monday (-48) and Tuesday (-47), Good Friday (-2), Corpus Christi (+60).
    for (const offset of [-48, -47, -2, 60]) days.add(iso(easter + offset * DAY));
    closedDays.set(year, days);
  }
  return days;
}

function openForBusiness(date: string): boolean {
  const weekday = new Date(ms(date)).getUTCDay();
  return weekday >= 1 && weekday <= 5 && !closed(+date.slice(0, 4)).has(date);
}

/** `date`, or the first business day after it. */
function onBusinessDay(date: string): string {
  let day = date;
  while (!openForBusiness(day)) day = plusDays(day, 1);
  return day;
}

/** Whole days from `a` to `b` (negative when `b` is earlier). */
const calendarDays = (a: string, b: string) => Math.round((ms(b) - ms(a)) / DAY);

/** Business days in the range (a, b]. */
function businessDays(a: string, b: string): number {
  let count = 0;
  for (let day = plusDays(a, 1); day <= b; day = plusDays(day, 1)) if (openForBusiness(day)) count++;
  return count;
}

// ---- The amount.

/** `numerator / denominator`, half up, as an integer (BigInt: cents × bps × days exceed 2^53). */
function halfUp(numerator: bigint, denominator: bigint): number {
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  return Number(remainder * 2n >= denominator ? quotient + 1n : quotient);
}

/** The due date in fact: moved to a business day, and the fine, interest and discounts with it. */
const effectiveDueDate = (terms: CobvTerms) => onBusinessDay(terms.dataDeVencimento);

/** The last day a payer may pay: `validadeAposVencimento` days after the due date in fact, on a business day. */
export const lastDay = (terms: CobvTerms) =>
  onBusinessDay(plusDays(effectiveDueDate(terms), terms.validadeAposVencimento));

/** The days of each period a rate of interest is spread over (juros modes 3, 4, 7, 8). */
const periodOfInterest: Record<number, number> = { 2: 1, 3: 30, 4: 365, 6: 1, 7: 21, 8: 252 };

/** What a payer owes on `date` (YYYY-MM-DD). */
export function owedOn(terms: CobvTerms, date: string): CobvAmount {
  const due = effectiveDueDate(terms);
  const original = terms.original;
  const abatimento =
    terms.abatimento === undefined
      ? 0
      : terms.abatimento.modalidade === 1
        ? terms.abatimento.v
        : halfUp(BigInt(original) * BigInt(terms.abatimento.v), 10_000n);
  const base = original - abatimento;

  let multa = 0;
  let juros = 0;
  if (date > due) {
    if (terms.multa !== undefined) {
      multa = terms.multa.modalidade === 1 ? terms.multa.v : halfUp(BigInt(base) * BigInt(terms.multa.v), 10_000n);
    }
    if (terms.juros !== undefined) {
      const { modalidade, v } = terms.juros;
      const days = modalidade <= 4 ? calendarDays(due, date) : businessDays(due, date);
      juros =
        modalidade === 1 || modalidade === 5
          ? v * days
          : halfUp(BigInt(base) * BigInt(v) * BigInt(days), 10_000n * BigInt(periodOfInterest[modalidade] ?? 1));
    }
  }

  let desconto = 0;
  if (terms.desconto !== undefined && date <= due) {
    const { modalidade, v = 0, datas = [] } = terms.desconto;
    if (modalidade === 1 || modalidade === 2) {
      const next = datas
        .map((entry) => ({ until: onBusinessDay(entry.data), v: entry.v }))
        .filter((entry) => date <= entry.until)
        .sort((x, y) => x.until.localeCompare(y.until))[0];
      if (next !== undefined) desconto = modalidade === 1 ? next.v : halfUp(BigInt(base) * BigInt(next.v), 10_000n);
    } else {
      // Days paid early: calendar days to the due date, or business days from the payment's day
      // (counted) to the due date (not counted).
      const days =
        modalidade === 3 || modalidade === 5
          ? calendarDays(date, due)
          : businessDays(plusDays(date, -1), plusDays(due, -1));
      desconto =
        modalidade === 3 || modalidade === 4 ? v * days : halfUp(BigInt(base) * BigInt(v) * BigInt(days), 10_000n);
    }
    // Never the whole amount: a Pix of 0 does not exist.
    desconto = Math.min(desconto, base - 1);
  }

  return { original, abatimento, desconto, multa, juros, total: base - desconto + multa + juros };
}
