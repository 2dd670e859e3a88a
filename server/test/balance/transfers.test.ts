import { describe, expect, test } from "vitest";
import { bankTransferIdOf, bankTransfersOf, defaultPayoutLimitCents } from "../../src/domain/balance/index.js";
import { DomainError } from "../../src/domain/core/errors.js";

// The split of a withdrawal paid out by the bank (issue 36 §1, record 0056): transfers of the
// connection's per-transfer limit, then the rest; at most 10; each with an id the bank takes.

describe("bankTransfersOf", () => {
  const amounts = (net: number, limit?: number) => bankTransfersOf(net, 80, limit).map((t) => t.amountCents);

  test("when the net amount is within the limit, then it is one transfer of all of it", () => {
    expect(amounts(2_420)).toEqual([2_420]);
    expect(amounts(defaultPayoutLimitCents)).toEqual([1_500_000]);
  });

  test("when the net amount is above the limit, then it is transfers of the limit and one of the rest, summing to it", () => {
    expect(amounts(25_000, 10_000)).toEqual([10_000, 10_000, 5_000]);
    expect(amounts(30_000, 10_000)).toEqual([10_000, 10_000, 10_000]);
    expect(amounts(1_500_001)).toEqual([1_500_000, 1]);
  });

  test("when more than 10 transfers would be needed, then it is refused naming the largest withdrawal, fee included", () => {
    expect(amounts(100_000, 10_000)).toHaveLength(10);
    let refused: unknown;
    try {
      bankTransfersOf(100_001, 80, 10_000);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe("REQUEST_ERROR");
    expect((refused as DomainError).message).toContain("R$ 1.000,80");
  });

  test("when transfers are made, then each is pending with its own id, which the bank takes as 23 letters and digits", () => {
    const transfers = bankTransfersOf(25_000, 80, 10_000);
    expect(new Set(transfers.map((t) => t.id)).size).toBe(3);
    for (const t of transfers) {
      expect(t).toMatchObject({ status: "PENDING", endToEndId: null, completedAt: null, sentAt: null });
      expect(bankTransferIdOf(t.id)).toMatch(/^trf[A-Za-z0-9]{20}$/);
    }
  });
});
