// The business-day calendar of Pix charges with a due date (issue 38), and of the recurrences'
// settlement dates. Dates are Brasília (America/Sao_Paulo) calendar days, `YYYY-MM-DD`, compared as
// strings; arithmetic runs on UTC midnights, where every day has 24 hours.
//
// A day is not a business day when it is a Saturday, a Sunday, a national holiday or one of the
// days the financial system does not open: the Conselho Monetário Nacional's Resolução CMN nº 4.880
// of 23 December 2020 (https://www.bcb.gov.br/estabilidadefinanceira/exibenormativo?tipo=Resolução%20CMN&numero=4880)
// holds as no business day for operations in the financial market Saturdays, Sundays and national
// holidays, and also Carnival Monday and Tuesday and Corpus Christi; FEBRABAN publishes the same
// days every year as the days without banking hours. The national holidays are those of Lei nº
// 662/1949 as rewritten by Lei nº 10.607/2002 (1 Jan, 21 Apr, 1 May, 7 Sep, 2 Nov, 15 Nov, 25 Dec),
// Lei nº 6.802/1980 (12 Oct) and Lei nº 14.759/2023 (20 Nov, from 2024), and Good Friday, which the
// federal government's yearly calendar keeps as a national holiday. The last day of the year has no
// service to the public (Resolução nº 2.596/1999) but is a business day: the standard's Exemplo D
// (generated/bank/pix-api.yaml, `validadeAposVencimento`) counts 2020-12-31 as a day of validity.
// Local (state and municipal) holidays of the payer's city are not known here.
//
// Why our own and not a package: the one package that knows these bank days (date-holidays, type
// "bank") costs about 0.3 s and moment-timezone to load, over half of the server's start-up budget
// (docs/benchmarks.md); @brazilian-utils/brazilian-utils omits Carnival Monday. The test
// server/test/payments/due-date-calendar.test.ts checks these days against the real calendars of
// 2025–2030 and against date-holidays' (a development dependency) up to 2099.

const dayMs = 86_400_000;

const utc = (date: string): number => Date.parse(`${date}T00:00:00.000Z`);
const fromUtc = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** `date` moved by `days` (negative: back). */
export const addDays = (date: string, days: number): string => fromUtc(utc(date) + days * dayMs);

/** Whole calendar days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number => Math.round((utc(to) - utc(from)) / dayMs);

/** Whether `date` is a real calendar date written `YYYY-MM-DD` (no 2026-02-30), years 2000 to 2999. */
export const isCalendarDate = (date: string): boolean =>
  /^2\d{3}-\d{2}-\d{2}$/.test(date) && !Number.isNaN(utc(date)) && fromUtc(utc(date)) === date;

/** Easter Sunday of `year` (the Gregorian computus of Meeus, Jones and Butcher). */
function easter(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return fromUtc(Date.UTC(year, month - 1, day));
}

const fixedHolidays = ["01-01", "04-21", "05-01", "09-07", "10-12", "11-02", "11-15", "12-25"];
/** Dia Nacional de Zumbi e da Consciência Negra, a national holiday from 2024 (Lei nº 14.759/2023). */
const blackConsciousnessDaySince = 2024;

const holidaysByYear = new Map<number, ReadonlySet<string>>();

/** The days of `year` that are not business days although Monday to Friday can fall on them. */
export function bankHolidays(year: number): ReadonlySet<string> {
  let days = holidaysByYear.get(year);
  if (!days) {
    const sunday = easter(year);
    const fixed = fixedHolidays.map((monthDay) => `${year}-${monthDay}`);
    if (year >= blackConsciousnessDaySince) fixed.push(`${year}-11-20`);
    // Carnival Monday and Tuesday, Good Friday, Corpus Christi.
    const movable = [addDays(sunday, -48), addDays(sunday, -47), addDays(sunday, -2), addDays(sunday, 60)];
    days = new Set([...fixed, ...movable].sort());
    holidaysByYear.set(year, days);
  }
  return days;
}

const isWeekday = (date: string): boolean => {
  const weekday = new Date(utc(date)).getUTCDay();
  return weekday !== 0 && weekday !== 6;
};

/** Monday to Friday, and not a holiday of the financial system. */
export const isBusinessDay = (date: string): boolean =>
  isWeekday(date) && !bankHolidays(Number(date.slice(0, 4))).has(date);

/** `date` itself when a business day, else the next business day. */
export function nextBusinessDay(date: string): string {
  let day = date;
  while (!isBusinessDay(day)) day = addDays(day, 1);
  return day;
}

/**
 * The business days after `from` up to `to` included: 0 when `to` is not after `from`. From a
 * Friday to the next Monday, 1; from a Friday to the Saturday after it, 0. Counted by weeks and by
 * the holidays in between, so a range of years costs no more than a few.
 */
export function businessDaysBetween(from: string, to: string): number {
  const days = daysBetween(from, to);
  if (days <= 0) return 0;
  let count = Math.floor(days / 7) * 5;
  for (let day = addDays(from, Math.floor(days / 7) * 7 + 1); day <= to; day = addDays(day, 1)) {
    if (isWeekday(day)) count++;
  }
  for (let year = Number(from.slice(0, 4)); year <= Number(to.slice(0, 4)); year++) {
    for (const holiday of bankHolidays(year)) if (holiday > from && holiday <= to && isWeekday(holiday)) count--;
  }
  return count;
}
