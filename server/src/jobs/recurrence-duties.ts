import type { Logger } from "pino";
import { every, type Job } from "./every.js";

/** How often the server process does what time does to recurrences (docs/decisions/0033-pix-automatico-recurrences.md). */
const recurrenceDutiesIntervalMs = 60_000;

/**
 * Runs the recurrences' background pass at once and then every `intervalMs` (see `every`): expiries
 * to write, automatic cycle charges to send.
 */
export function startRecurrenceDuties(options: {
  duties: { expireDue(): Promise<number>; sendAutomaticCharges(): Promise<number> };
  logger: Logger;
  intervalMs?: number;
}): Job {
  const { duties, logger } = options;
  return every(
    options.intervalMs ?? recurrenceDutiesIntervalMs,
    async () => {
      const expired = await duties.expireDue();
      const sent = await duties.sendAutomaticCharges();
      if (expired + sent > 0) logger.info({ expired, sent }, "recurrences: expiries written, cycle charges sent");
    },
    logger,
    "recurrence duties failed",
  );
}
