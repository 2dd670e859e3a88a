import { describe, expect, test } from "vitest";
import { dayRangeQuery, isDay, nextDay, oneOf, withFilters } from "../src/lib/filters";

// Filters live in the address in the dashboard's own words (issue 26): Brasília days in, the API's
// instants out, and a filter change starts the list over.

describe("filters in the address", () => {
  test("when a range of Brasília days is asked, then the API gets the first day's start and the day after the last", () => {
    expect(dayRangeQuery("2026-11-01", "2026-11-30")).toEqual({
      createdFrom: "2026-11-01T03:00:00.000Z",
      createdTo: "2026-12-01T03:00:00.000Z",
    });
    expect(dayRangeQuery(undefined, "2026-12-31")).toEqual({ createdTo: "2027-01-01T03:00:00.000Z" });
    expect(dayRangeQuery("2026-02-30", "ontem")).toEqual({});
    expect(nextDay("2028-02-28")).toBe("2028-02-29");
    expect(isDay("2026-11-24")).toBe(true);
    expect(isDay("2026-13-01")).toBe(false);
  });

  test("when the address is read, then only a known value is taken, and a change drops the page's cursor", () => {
    const search = new URLSearchParams("status=PAID&acao=bogus&apos=txn_1");
    expect(oneOf(search, "status", ["PAID", "EXPIRED"] as const)).toBe("PAID");
    expect(oneOf(search, "acao", ["member.invited"] as const)).toBeUndefined();
    expect(withFilters(search, { status: "EXPIRED", de: "2026-11-01" }).toString()).toBe(
      "status=EXPIRED&acao=bogus&de=2026-11-01",
    );
    expect(withFilters(search, { status: "" }).toString()).toBe("acao=bogus");
  });
});
