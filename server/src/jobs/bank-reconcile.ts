import type { Logger } from "pino";
import { every, type Job } from "./every.js";

/**
 * The reconciler's schedule (issue 35; docs/decisions, received Pix): every `intervalSeconds` it
 * keeps every Pix the bank received over the last `windowSeconds`. The window is several intervals
 * long, so each Pix is seen by several runs: a run that failed or a Pix the bank listed late is
 * covered by the next. Two processes running it at once credit nothing twice.
 */
export interface ReconcileSchedule {
  intervalSeconds: number;
  windowSeconds: number;
}

const defaultReconcileSchedule: ReconcileSchedule = { intervalSeconds: 300, windowSeconds: 3_600 };

export function startBankReconcile(options: {
  reconcile: { reconcile(window: { from: string; to: string }): Promise<{ counts: Record<string, number> } | null> };
  now: () => Date;
  logger: Logger;
  schedule?: ReconcileSchedule;
}): Job {
  const { reconcile, logger } = options;
  const schedule = options.schedule ?? defaultReconcileSchedule;
  return every(
    schedule.intervalSeconds * 1000,
    async () => {
      const to = options.now();
      const from = new Date(to.getTime() - schedule.windowSeconds * 1000);
      const run = await reconcile.reconcile({ from: from.toISOString(), to: to.toISOString() });
      if (run && (run.counts.credited ?? 0) + (run.counts.unmatched ?? 0) > 0) {
        logger.info(run.counts, "bank: reconciliation kept received Pix the callbacks missed");
      }
    },
    logger,
    "bank reconciliation failed",
  );
}
