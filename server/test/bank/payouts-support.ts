// What the payout adapters' tests share: the check that every request the adapter sent was valid
// against its document (and every answer, the bank's own check). The connection is
// support/fake-bank-credentials.ts.
import { expect } from "vitest";
import type { FakeBank } from "../../../fake-bank/src/bank.js";

/**
 * Every payout request in the bank's log (`route`) was valid against the document, and checked:
 * its answer went through the document's response check (`responseValid` true), unless the answer
 * was lost on purpose.
 */
export function expectEveryPayoutRequestValid(bank: FakeBank, route: RegExp): void {
  const payouts = bank.requests().filter((r) => route.test(r.path));
  expect(payouts.length).toBeGreaterThan(0);
  const wrong = payouts.filter((r) => !r.requestValid || (r.fault === undefined && r.responseValid !== true));
  expect(wrong, JSON.stringify(wrong, null, 2)).toEqual([]);
}

/** Waits until `check` holds (the fake bank settles transfers after a delay). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 3_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("the condition did not hold in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
