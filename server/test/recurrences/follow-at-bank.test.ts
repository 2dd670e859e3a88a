import { describe, expect, test } from "vitest";
import { listedForSeconds, nextFollowAt } from "../../src/domain/payments/index.js";

// When a recurrence or a cycle charge still open at the bank is read again by its own task
// (record 0054): never while the reconciler's listings cover it, then less and less often as it ages.

const at = "2026-11-28T12:00:00.000Z";
const ago = (seconds: number) => new Date(Date.parse(at) - seconds * 1000).toISOString();
const secondsUntil = (iso: string) => (Date.parse(iso) - Date.parse(at)) / 1000;

describe("the follow-up read of a subject at the bank", () => {
  test("when a recurrence is inside its listing's window, then its own read waits until it leaves the window", () => {
    const createdAt = ago(3_600);
    expect(secondsUntil(nextFollowAt({ id: "rec_a", createdAt }, at, 300))).toBe(listedForSeconds.recurrence - 3_600);
    expect(secondsUntil(nextFollowAt({ id: "txn_a", createdAt }, at, 300))).toBe(listedForSeconds.cycleCharge - 3_600);
  });

  test("when it is about to leave the window, then the read is at least the reconciler's interval away", () => {
    const createdAt = ago(listedForSeconds.recurrence - 10);
    expect(secondsUntil(nextFollowAt({ id: "rec_a", createdAt }, at, 300))).toBe(300);
  });

  test("when it is older than the window, then the pause grows with its age, from the interval up to a day", () => {
    const pauses = [0, 3_600, 86_400, 4 * 86_400, 30 * 86_400].map((out) =>
      secondsUntil(nextFollowAt({ id: "rec_a", createdAt: ago(listedForSeconds.recurrence + out) }, at, 300)),
    );
    expect(pauses).toEqual([300, 900, 21_600, 86_400, 86_400]);
    expect(
      secondsUntil(nextFollowAt({ id: "txn_a", createdAt: ago(listedForSeconds.cycleCharge + 7_200) }, at, 300)),
    ).toBe(1_800);
  });
});
