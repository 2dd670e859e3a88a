import type { Logger } from "pino";
import { every, type Job } from "./every.js";

/** How often the server forgets records past their time (idempotency records, expired sessions and e-mail links). */
const purgeIntervalMs = 15 * 60_000;

interface PurgeOptions {
  purge: () => Promise<number>;
  logger: Logger;
  intervalMs?: number;
}

/** Forgets idempotency records past the 24 h window, in the background (see `startPeriodicPurge`). */
export const startIdempotencyPurge = (options: PurgeOptions) =>
  startPeriodicPurge({ ...options, what: "idempotency records past the 24 h window" });

/**
 * Runs `purge` at once and then every `intervalMs` (see `every`), on whichever store the server
 * uses; `what` names what it forgets in the log.
 */
export function startPeriodicPurge(options: PurgeOptions & { what: string }): Job {
  const { purge, logger, what } = options;
  return every(
    options.intervalMs ?? purgeIntervalMs,
    async () => {
      const count = await purge();
      if (count > 0) logger.info({ purged: count }, `${what} forgotten`);
    },
    logger,
    `purge of ${what} failed`,
  );
}
