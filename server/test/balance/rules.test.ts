import { describe, expect, test } from "vitest";
import {
  balanceTotals,
  dailyLimitUsedCents,
  isPending,
  ledgerSums,
  remainingOfDailyLimit,
} from "../../src/domain/balance/index.js";

// The rules both stores call (PostgreSQL computes the same sums in SQL, see the store
// conformance suite, which runs both stores through one set of cases).

const now = "2026-10-04T12:00:00.000Z";
const entry = (bucket: "available" | "blocked", amountCents: number, releaseAt: string | null = null) => ({
  bucket,
  amountCents,
  releaseAt,
});

describe("balance rules", () => {
  test("when entries are released, pending, blocked or negative, then each bucket sums its own", () => {
    const sums = ledgerSums(
      [
        entry("available", 10_000),
        entry("available", 5_000, "2026-10-04T12:00:00.001Z"),
        entry("available", 2_000, now),
        entry("available", -3_000),
        entry("blocked", 4_000, "2026-12-01T00:00:00.000Z"),
        entry("blocked", -1_000),
      ],
      now,
    );

    expect(sums).toEqual({ availableTotalCents: 14_000, pendingCents: 5_000, blockedCents: 3_000 });
    expect(balanceTotals(sums)).toEqual({ availableCents: 9_000, pendingCents: 5_000, blockedCents: 3_000 });
  });

  test("when the release instant is now, then the entry is no longer pending; a blocked entry never is", () => {
    expect(isPending(entry("available", 1, now), now)).toBe(false);
    expect(isPending(entry("available", 1, "2026-10-04T12:00:00.001Z"), now)).toBe(true);
    expect(isPending(entry("blocked", 1, "2026-10-04T12:00:00.001Z"), now)).toBe(false);
  });

  test("when part of a withdrawal came back, then only the rest uses the daily limit, and the remainder never goes below 0", () => {
    expect(dailyLimitUsedCents({ amountCents: 10_000, returnedAmountCents: 2_500 })).toBe(7_500);
    expect(remainingOfDailyLimit(10_000, 7_500)).toBe(2_500);
    expect(remainingOfDailyLimit(10_000, 12_000)).toBe(0);
  });
});
