import type { Logger } from "pino";

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
 * Runs `purge` at once and then every `intervalMs`, in the background of the server process, on
 * whichever store it uses; `what` names what it forgets in the log. A failed run (the database
 * unreachable) is logged and tried again on the next tick: it never stops the process. Runs never
 * overlap. `stop()` waits for a run in progress, so the store can be closed after it.
 */
export function startPeriodicPurge(options: PurgeOptions & { what: string }): {
  stop(): Promise<void>;
} {
  const { purge, logger, what } = options;
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = purge()
      .then(
        (count) => {
          if (count > 0) logger.info({ purged: count }, `${what} forgotten`);
        },
        (error: unknown) => logger.warn({ err: error }, `purge of ${what} failed; trying again on the next tick`),
      )
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, options.intervalMs ?? purgeIntervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
