import type { Logger } from "pino";
import type { Mailer } from "./domain/ports/mailer.js";

/** The default mailer: writes each message to the log instead of sending it. */
export function logMailer(logger: Logger): Mailer {
  return {
    async send(message) {
      logger.info({ mail: message }, "e-mail (not sent: log mailer)");
    },
  };
}
