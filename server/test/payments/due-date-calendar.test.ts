import Holidays from "date-holidays";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  addDays,
  bankHolidays,
  businessDaysBetween,
  isBusinessDay,
  isCalendarDate,
  nextBusinessDay,
} from "../../src/domain/payments/index.js";

// The business-day calendar of charges with a due date (record 0052): the national holidays and the
// days the financial system does not open (Resolução CMN nº 4.880/2020), Brasília calendar dates.

/**
 * The weekdays without banking hours of 2025–2030, as FEBRABAN's yearly calendars list them
 * (fixed national holidays falling Monday to Friday, Carnival Monday and Tuesday, Good Friday,
 * Corpus Christi). Easter: 2025-04-20, 2026-04-05, 2027-03-28, 2028-04-16, 2029-04-01, 2030-04-21.
 */
const weekdayHolidays: Record<number, string[]> = {
  2025: [
    "2025-01-01", // Wed, Confraternização Universal
    "2025-03-03", // Carnival Monday
    "2025-03-04", // Carnival Tuesday
    "2025-04-18", // Good Friday
    "2025-04-21", // Mon, Tiradentes
    "2025-05-01", // Thu, Dia do Trabalho
    "2025-06-19", // Corpus Christi
    "2025-11-20", // Thu, Consciência Negra
    "2025-12-25", // Thu, Natal
  ], // 7 Sep and 12 Oct fall on Sundays, 2 and 15 Nov on Sunday and Saturday
  2026: [
    "2026-01-01", // Thu
    "2026-02-16",
    "2026-02-17",
    "2026-04-03", // Good Friday
    "2026-04-21", // Tue
    "2026-05-01", // Fri
    "2026-06-04", // Corpus Christi
    "2026-09-07", // Mon
    "2026-10-12", // Mon
    "2026-11-02", // Mon
    "2026-11-20", // Fri
    "2026-12-25", // Fri
  ], // 15 Nov is a Sunday
  2027: [
    "2027-01-01", // Fri
    "2027-02-08",
    "2027-02-09",
    "2027-03-26", // Good Friday
    "2027-04-21", // Wed
    "2027-05-27", // Corpus Christi
    "2027-09-07", // Tue
    "2027-10-12", // Tue
    "2027-11-02", // Tue
    "2027-11-15", // Mon
  ], // 1 May, 20 Nov and 25 Dec are Saturdays
  2028: [
    "2028-02-28",
    "2028-02-29",
    "2028-04-14", // Good Friday
    "2028-04-21", // Fri
    "2028-05-01", // Mon
    "2028-06-15", // Corpus Christi
    "2028-09-07", // Thu
    "2028-10-12", // Thu
    "2028-11-02", // Thu
    "2028-11-15", // Wed
    "2028-11-20", // Mon
    "2028-12-25", // Mon
  ], // 1 Jan is a Saturday
  2029: [
    "2029-01-01", // Mon
    "2029-02-12",
    "2029-02-13",
    "2029-03-30", // Good Friday
    "2029-05-01", // Tue
    "2029-05-31", // Corpus Christi
    "2029-09-07", // Fri
    "2029-10-12", // Fri
    "2029-11-02", // Fri
    "2029-11-15", // Thu
    "2029-11-20", // Tue
    "2029-12-25", // Tue
  ], // 21 Apr is a Saturday
  2030: [
    "2030-01-01", // Tue
    "2030-03-04",
    "2030-03-05",
    "2030-04-19", // Good Friday
    "2030-05-01", // Wed
    "2030-06-20", // Corpus Christi
    "2030-11-15", // Fri
    "2030-11-20", // Wed
    "2030-12-25", // Wed
  ], // 21 Apr, 7 Sep, 12 Oct are Sundays and Saturdays; 2 Nov a Saturday
};

const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();
const everyDay = function* (from: string, to: string) {
  for (let day = from; day <= to; day = addDays(day, 1)) yield day;
};

describe("the business days of 2025–2030", () => {
  test.each(Object.entries(weekdayHolidays).map(([year, dates]) => ({ year: Number(year), dates })))(
    "when every day of $year is asked, then exactly the weekends and its bank holidays are not business days",
    ({ year, dates }) => {
      const notBusiness = [...everyDay(`${year}-01-01`, `${year}-12-31`)].filter(
        (day) => weekday(day) !== 0 && weekday(day) !== 6 && !isBusinessDay(day),
      );
      expect(notBusiness).toEqual(dates);
      for (const day of everyDay(`${year}-01-01`, `${year}-12-31`)) {
        if (weekday(day) === 0 || weekday(day) === 6) expect(isBusinessDay(day)).toBe(false);
      }
    },
  );

  test("when the Black Consciousness Day of a year before 2024 is asked, then it was a business day (Lei 14.759/2023)", () => {
    expect(isBusinessDay("2023-11-20")).toBe(true);
    expect(isBusinessDay("2024-11-20")).toBe(false);
  });

  test("when the last day of the year and Ash Wednesday are asked, then both are business days (no service to the public, but the market opens)", () => {
    expect(isBusinessDay("2026-12-31")).toBe(true);
    expect(isBusinessDay("2026-02-18")).toBe(true);
    expect(isBusinessDay("2026-12-24")).toBe(true);
  });
});

describe("against date-holidays' Brazilian bank calendar", () => {
  // date-holidays lists the public holidays and, typed "bank", the days Resolução CMN 4.880 closes the
  // market (Carnival Monday and Tuesday, Corpus Christi). Its election days are Sundays.
  const reference = new Holidays("BR");

  test("when the years 2024 to 2099 are compared, then the weekday bank holidays are the same", () => {
    for (let year = 2024; year <= 2099; year++) {
      const theirs = reference
        .getHolidays(year)
        .filter((holiday) => holiday.type === "public" || holiday.type === "bank")
        .map((holiday) => holiday.date.slice(0, 10))
        .filter((date) => weekday(date) !== 0 && weekday(date) !== 6);
      const ours = [...bankHolidays(year)].filter((date) => weekday(date) !== 0 && weekday(date) !== 6);
      expect(ours, String(year)).toEqual([...new Set(theirs)].sort());
    }
  });
});

describe("moving and counting", () => {
  test.each([
    { date: "2026-10-10", next: "2026-10-13", why: "a Saturday before the 12 October holiday" },
    { date: "2026-02-14", next: "2026-02-18", why: "the Saturday before Carnival, to Ash Wednesday" },
    { date: "2026-04-03", next: "2026-04-06", why: "Good Friday, then the weekend" },
    { date: "2020-12-25", next: "2020-12-28", why: "Christmas 2020, a Friday (the standard's Exemplos B–E)" },
    { date: "2021-08-28", next: "2021-08-30", why: "a Saturday (the standard's Exemplo G)" },
    { date: "2026-12-31", next: "2026-12-31", why: "the last day of the year, a business day" },
  ])("when $date ($why) is moved to a business day, then it is $next", ({ date, next }) => {
    expect(nextBusinessDay(date)).toBe(next);
  });

  test.each([
    { from: "2026-11-27", to: "2026-11-30", days: 1, why: "Friday to Monday" },
    { from: "2026-11-27", to: "2026-11-28", days: 0, why: "Friday to Saturday" },
    { from: "2026-11-27", to: "2026-11-27", days: 0, why: "the same day" },
    { from: "2026-11-30", to: "2026-11-27", days: 0, why: "backwards" },
    { from: "2026-02-13", to: "2026-02-20", days: 3, why: "over Carnival (Wed, Thu, Fri)" },
    { from: "2026-12-01", to: "2026-12-31", days: 21, why: "December 2026 after the 1st: 22 weekdays less Christmas" },
  ])("when the business days from $from to $to ($why) are counted, then they are $days", ({ from, to, days }) => {
    expect(businessDaysBetween(from, to)).toBe(days);
  });

  test("when any range up to ten years is counted, then the count is the business days in it, one by one", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30_000 }), fc.integer({ min: -10, max: 3_700 }), (start, length) => {
        const from = addDays("2000-01-01", start);
        const to = addDays(from, length);
        let oneByOne = 0;
        for (let day = addDays(from, 1); day <= to; day = addDays(day, 1)) if (isBusinessDay(day)) oneByOne++;
        expect(businessDaysBetween(from, to)).toBe(oneByOne);
      }),
      { numRuns: 200 },
    );
  });

  test("when dates are checked, then only real YYYY-MM-DD dates pass", () => {
    expect(isCalendarDate("2028-02-29")).toBe(true);
    expect(isCalendarDate("2027-02-29")).toBe(false);
    expect(isCalendarDate("2026-13-01")).toBe(false);
    expect(isCalendarDate("2026-1-01")).toBe(false);
    expect(isCalendarDate("26-01-01")).toBe(false);
    expect(isCalendarDate("2026-01-01T00:00:00Z")).toBe(false);
  });
});
