import type { Schemas } from "../../core/model.js";
import { addDays, daysBetween } from "../due-date/calendar.js";

/** The Brasília calendar day that contains an instant, `YYYY-MM-DD` (the recurrences' "today"). */
export { brasiliaDate } from "../../core/time.js";
/** Day arithmetic and the business days of the financial system, shared with charges with a due date. */
export { addDays, daysBetween, isBusinessDay, nextBusinessDay } from "../due-date/calendar.js";

// The calendar of recurrences (Pix Automático): dates are Brasília calendar days, `YYYY-MM-DD`,
// compared as strings; arithmetic runs on UTC midnights, where every day has 24 hours.

type Periodicity = Schemas["RecurrencePeriodicity"];

const monthsPerCycle: Record<Exclude<Periodicity, "WEEKLY">, number> = {
  MONTHLY: 1,
  QUARTERLY: 3,
  SEMIANNUAL: 6,
  ANNUAL: 12,
};

const utc = (date: string): number => Date.parse(`${date}T00:00:00.000Z`);
const fromUtc = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

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

/** The instant the Brasília day after `date` starts (Brazil keeps -03:00 all year since 2019). */
export const endOfBrasiliaDay = (date: string): string => new Date(utc(addDays(date, 1)) + 3 * 3_600_000).toISOString();
