import type { Logger } from "pino";
import { every, type Job } from "./every.js";

/** How often the server process sends the e-mail notices owed (issue 37 §2). */
const noticeIntervalMs = 5_000;
/** How often it queues the daily summaries (each once per member and day, whichever tick queues it). */
const summaryIntervalMs = 10 * 60_000;

/**
 * The e-mail notices in the background of every process (docs/decisions/0057-e-mail-notices.md):
 * every `intervalMs` the notices owed are claimed and sent (two processes never claim the same
 * one), and every ten minutes the summaries of the Brasília day before are queued for the members
 * who chose them. A mail server that is down costs nothing but a log line and a later attempt.
 */
export function startNotices(options: {
  notices: {
    sendDue(): Promise<{ sent: number; failed: number }>;
    queueDailySummaries(): Promise<number>;
  };
  logger: Logger;
  intervalMs?: number;
}): Job {
  const { notices, logger } = options;
  const sending = every(
    options.intervalMs ?? noticeIntervalMs,
    async () => {
      const counts = await notices.sendDue();
      if (counts.sent > 0 || counts.failed > 0) logger.info(counts, "e-mail notices sent");
    },
    logger,
    "e-mail notices not sent",
  );
  const summaries = every(
    summaryIntervalMs,
    async () => {
      const queued = await notices.queueDailySummaries();
      if (queued > 0) logger.info({ queued }, "daily summaries queued");
    },
    logger,
    "daily summaries not queued",
  );
  return { stop: async () => void (await Promise.all([sending.stop(), summaries.stop()])) };
}
