import type { Logger } from "pino";

/** How often the server process does what time does to recurrences (docs/decisions/0033-pix-automatico-recurrences.md). */
const recurrenceDutiesIntervalMs = 60_000;

/**
 * Runs the recurrences' background pass at once and then every `intervalMs`: expiries to write,
 * automatic cycle charges to send. A failed run (the database unreachable) is logged and tried
 * again on the next tick; runs never overlap; `stop()` waits for a run in progress.
 */
export function startRecurrenceDuties(options: {
  duties: { expireDue(): Promise<number>; sendAutomaticCharges(): Promise<number> };
  logger: Logger;
  intervalMs?: number;
}): { stop(): Promise<void> } {
  const { duties, logger } = options;
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = (async () => {
      const expired = await duties.expireDue();
      const sent = await duties.sendAutomaticCharges();
      if (expired + sent > 0) logger.info({ expired, sent }, "recurrences: expiries written, cycle charges sent");
    })()
      .catch((error: unknown) => logger.warn({ err: error }, "recurrence duties failed; trying again on the next tick"))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, options.intervalMs ?? recurrenceDutiesIntervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
