import type { Logger } from "pino";
import { every, type Job } from "./every.js";

/** How often the request logs waiting in this process are written (a full batch does not wait for it). */
const flushIntervalMs = 1_000;
/** How often the days are kept: the next days made ready, the days past the window dropped whole. */
const daysIntervalMs = 60 * 60_000;

/**
 * The request logs in the background of every server process (docs/decisions/0058-request-logs.md):
 * every second what waits is written in batches, every hour the days ahead are made and the days
 * older than seven dropped (PostgreSQL: `DROP TABLE` of their partitions). `stop()` writes what
 * still waits (the shutdown's last flush) after the server stopped answering.
 */
export function startRequestLogs(options: {
  requestLogs: { flush(): Promise<void>; maintainDays(): Promise<string[]> };
  logger: Logger;
}): Job {
  const { requestLogs, logger } = options;
  const flushing = every(flushIntervalMs, () => requestLogs.flush(), logger, "request logs not written");
  const days = every(
    daysIntervalMs,
    async () => {
      const dropped = await requestLogs.maintainDays();
      if (dropped.length > 0) logger.info({ dropped }, "request logs' old days dropped");
    },
    logger,
    "request logs' days not kept",
  );
  return {
    async stop() {
      await Promise.all([flushing.stop(), days.stop()]);
      await requestLogs.flush();
    },
  };
}
