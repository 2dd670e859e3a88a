import type { Logger } from "pino";
import { every, type Job } from "./every.js";

/** How often the server process does the work owed to the bank (issue 35): pending registrations, removals, refunds. */
const bankWorkIntervalMs = 5_000;

/**
 * Runs the bank tasks due (`bankWork.runDue`) at once and then every `intervalMs` (see `every`).
 * Every process runs it: each task is claimed by one at a time. Nothing happens without a bank.
 */
export function startBankWork(options: {
  work: { runDue(limit?: number): Promise<number> };
  logger: Logger;
  intervalMs?: number;
}): Job {
  const { work, logger } = options;
  return every(
    options.intervalMs ?? bankWorkIntervalMs,
    async () => {
      // A full batch may mean more are due: go on until a batch comes back short.
      for (let claimed = await work.runDue(); claimed >= 50; claimed = await work.runDue()) {
        logger.debug({ claimed }, "bank: a full batch of tasks done");
      }
    },
    logger,
    "bank tasks failed",
  );
}
