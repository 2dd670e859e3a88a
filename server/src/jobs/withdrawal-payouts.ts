import type { Logger } from "pino";
import { every, type Job } from "./every.js";

/** How often the server process follows the withdrawals paid out by the bank (issue 36 §1). */
const payoutIntervalMs = 5_000;

/**
 * Passes over every production withdrawal still `PENDING` at the bank (`followPending`) at once and
 * then every `intervalMs` (see `every`): ends the ones whose transfers the bank settled, reads back
 * a transfer whose answer was lost (a process killed between the bank's answer and our write), and
 * sends what waited for the platform's balance once it allows. Every process runs it: a transfer's
 * id is the same in all of them, so two passes never pay twice. Nothing happens without a bank.
 */
export function startWithdrawalPayouts(options: {
  payouts: { followPending(): Promise<{ followed: number; ended: number; waitingForBalance: number }> };
  logger: Logger;
  intervalMs?: number;
}): Job {
  const { payouts, logger } = options;
  return every(
    options.intervalMs ?? payoutIntervalMs,
    async () => {
      const counts = await payouts.followPending();
      if (counts.ended > 0 || counts.waitingForBalance > 0) logger.info(counts, "bank: withdrawals followed");
    },
    logger,
    "bank withdrawals not followed",
  );
}
