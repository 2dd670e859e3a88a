import { describe, expect, test } from "vitest";
import {
  brasiliaDate,
  cycleDate,
  endOfBrasiliaDay,
  firstCycleFrom,
  isBusinessDay,
  isCycleDate,
  nextBusinessDay,
} from "../../src/domain/payments/index.js";

// The calendar of recurrences (Pix Automático): cycle dates per periodicity, the business days of
// the financial system, and the Brasília day.

describe("cycle dates", () => {
  test.each([
    { periodicity: "WEEKLY" as const, first: "2026-10-04", n: 3, date: "2026-10-25" },
    { periodicity: "MONTHLY" as const, first: "2026-01-31", n: 1, date: "2026-02-28" },
    { periodicity: "MONTHLY" as const, first: "2026-01-31", n: 2, date: "2026-03-31" },
    { periodicity: "MONTHLY" as const, first: "2027-12-31", n: 2, date: "2028-02-29" },
    { periodicity: "QUARTERLY" as const, first: "2026-11-30", n: 1, date: "2027-02-28" },
    { periodicity: "SEMIANNUAL" as const, first: "2026-08-31", n: 1, date: "2027-02-28" },
    { periodicity: "ANNUAL" as const, first: "2028-02-29", n: 1, date: "2029-02-28" },
  ])(
    "when cycle $n of a $periodicity recurrence from $first is asked, then it is $date",
    ({ periodicity, first, n, date }) => {
      expect(cycleDate(first, periodicity, n)).toBe(date);
      expect(isCycleDate(first, periodicity, date)).toBe(true);
      expect(firstCycleFrom(first, periodicity, date)).toEqual({ n, date });
    },
  );

  test("when a date falls between cycles, then it is no cycle date and the next cycle follows it", () => {
    expect(isCycleDate("2026-01-31", "MONTHLY", "2026-02-27")).toBe(false);
    expect(firstCycleFrom("2026-01-31", "MONTHLY", "2026-02-27")).toEqual({ n: 1, date: "2026-02-28" });
    expect(firstCycleFrom("2026-10-04", "WEEKLY", "2026-10-01")).toEqual({ n: 0, date: "2026-10-04" });
    expect(isCycleDate("2026-10-04", "WEEKLY", "2026-10-03")).toBe(false);
  });
});

describe("business days", () => {
  test.each([
    { date: "2026-10-10", next: "2026-10-13", why: "a Saturday before the 12 October holiday" },
    { date: "2026-02-16", next: "2026-02-18", why: "Carnival Monday and Tuesday (Easter 2026: 5 April)" },
    { date: "2026-04-03", next: "2026-04-06", why: "Good Friday, then the weekend" },
    { date: "2026-06-04", next: "2026-06-05", why: "Corpus Christi" },
    { date: "2026-11-20", next: "2026-11-23", why: "Black Consciousness Day (national since 2024), a Friday" },
    { date: "2026-12-25", next: "2026-12-28", why: "Christmas, a Friday" },
    { date: "2026-10-07", next: "2026-10-07", why: "an ordinary Wednesday" },
  ])("when $date ($why) is moved to a business day, then it is $next", ({ date, next }) => {
    expect(nextBusinessDay(date)).toBe(next);
    expect(isBusinessDay(next)).toBe(true);
  });
});

describe("the Brasília day", () => {
  test("when an instant before 03:00 UTC is read, then it is still the day before in Brasília; a day ends at 03:00 UTC", () => {
    expect(brasiliaDate(new Date("2026-10-05T02:59:59.999Z"))).toBe("2026-10-04");
    expect(brasiliaDate(new Date("2026-10-05T03:00:00.000Z"))).toBe("2026-10-05");
    expect(endOfBrasiliaDay("2026-10-04")).toBe("2026-10-05T03:00:00.000Z");
  });
});
