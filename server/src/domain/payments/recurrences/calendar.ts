import type { Schemas } from "../../core/model.js";

/** The Brasília calendar day that contains an instant, `YYYY-MM-DD` (the recurrences' "today"). */
export { brasiliaDate } from "../../core/time.js";

// The calendar of recurrences (Pix Automático): dates are Brasília calendar days, `YYYY-MM-DD`,
// compared as strings; arithmetic runs on UTC midnights, where every day has 24 hours.

type Periodicity = Schemas["RecurrencePeriodicity"];

const dayMs = 86_400_000;
const monthsPerCycle: Record<Exclude<Periodicity, "WEEKLY">, number> = {
  MONTHLY: 1,
  QUARTERLY: 3,
  SEMIANNUAL: 6,
  ANNUAL: 12,
};

const utc = (date: string): number => Date.parse(`${date}T00:00:00.000Z`);
const fromUtc = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** `date` moved by `days` (negative: back). */
export const addDays = (date: string, days: number): string => fromUtc(utc(date) + days * dayMs);

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number => Math.round((utc(to) - utc(from)) / dayMs);

const daysInMonth = (year: number, month0: number): number => new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();

/** `date` moved by whole months, its day clamped to the month's last (31 Jan + 1 month = 28 or 29 Feb). */
function addMonths(date: string, months: number): string {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const total = year * 12 + (month - 1) + months;
  const y = Math.floor(total / 12);
  const m0 = total - y * 12;
  return fromUtc(Date.UTC(y, m0, Math.min(day, daysInMonth(y, m0))));
}

/** The date of cycle `n` (0 is `firstDate`): each counted from `firstDate`, so a 31st stays a month's end. */
export function cycleDate(firstDate: string, periodicity: Periodicity, n: number): string {
  return periodicity === "WEEKLY" ? addDays(firstDate, 7 * n) : addMonths(firstDate, monthsPerCycle[periodicity] * n);
}

/** The first cycle whose date is on or after `date`: its number and date. */
export function firstCycleFrom(firstDate: string, periodicity: Periodicity, date: string): { n: number; date: string } {
  if (date <= firstDate) return { n: 0, date: firstDate };
  let n =
    periodicity === "WEEKLY"
      ? Math.floor(daysBetween(firstDate, date) / 7)
      : Math.floor(monthsBetween(firstDate, date) / monthsPerCycle[periodicity]);
  n = Math.max(0, n - 1);
  while (cycleDate(firstDate, periodicity, n) < date) n++;
  return { n, date: cycleDate(firstDate, periodicity, n) };
}

function monthsBetween(from: string, to: string): number {
  const [y1, m1] = from.split("-").map(Number) as [number, number];
  const [y2, m2] = to.split("-").map(Number) as [number, number];
  return (y2 - y1) * 12 + (m2 - m1);
}

/** Whether `date` is one of the cycle dates from `firstDate`. */
export const isCycleDate = (firstDate: string, periodicity: Periodicity, date: string): boolean =>
  firstCycleFrom(firstDate, periodicity, date).date === date;

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

/**
 * National holidays (Leis 662/1949, 6.802/1980 and 14.759/2023: 1 Jan, 21 Apr, 1 May, 7 Sep,
 * 12 Oct, 2 Nov, 15 Nov, 20 Nov, 25 Dec) and the days the financial system does not open: Carnival
 * Monday and Tuesday, Good Friday and Corpus Christi. Local holidays of the payer's municipality are
 * not known here.
 */
const fixedHolidays = new Set(["01-01", "04-21", "05-01", "09-07", "10-12", "11-02", "11-15", "11-20", "12-25"]);
const movableHolidays = new Map<number, Set<string>>();

function isHoliday(date: string): boolean {
  if (fixedHolidays.has(date.slice(5))) return true;
  const year = Number(date.slice(0, 4));
  let movable = movableHolidays.get(year);
  if (!movable) {
    const sunday = easter(year);
    movable = new Set([addDays(sunday, -48), addDays(sunday, -47), addDays(sunday, -2), addDays(sunday, 60)]);
    movableHolidays.set(year, movable);
  }
  return movable.has(date);
}

/** Monday to Friday, and not a holiday of the financial system. */
export function isBusinessDay(date: string): boolean {
  const weekday = new Date(utc(date)).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !isHoliday(date);
}

/** `date` itself when a business day, else the next business day. */
export function nextBusinessDay(date: string): string {
  let day = date;
  while (!isBusinessDay(day)) day = addDays(day, 1);
  return day;
}

/** The instant the Brasília day after `date` starts (Brazil keeps -03:00 all year since 2019). */
export const endOfBrasiliaDay = (date: string): string => new Date(utc(addDays(date, 1)) + 3 * 3_600_000).toISOString();
