import type { Logger } from "pino";

/** How often the server forgets idempotency records past the window. */
const idempotencyPurgeIntervalMs = 15 * 60_000;

/**
 * Runs `purge` at once and then every `intervalMs`, in the background of the server process, on
 * whichever store it uses. A failed run (the database unreachable) is logged and tried again on
 * the next tick: it never stops the process. Runs never overlap. `stop()` waits for a run in
 * progress, so the store can be closed after it.
 */
export function startIdempotencyPurge(options: { purge: () => Promise<number>; logger: Logger; intervalMs?: number }): {
  stop(): Promise<void>;
} {
  const { purge, logger } = options;
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = purge()
      .then(
        (count) => {
          if (count > 0) logger.info({ purged: count }, "idempotency records past the 24 h window forgotten");
        },
        (error: unknown) => logger.warn({ err: error }, "idempotency purge failed; trying again on the next tick"),
      )
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, options.intervalMs ?? idempotencyPurgeIntervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
