import type { Logger } from "pino";
import type { Mailer } from "./domain/ports/mailer.js";

/** The sender of every message, unless `SMTP_URL` names one (`?from=`). */
const defaultFrom = "Pix Charging Service <nao-responda@pix.localhost>";

/**
 * The default mailer: writes each message to the log instead of sending it. With `hideLinks`
 * (production), the one-time tokens of its links are left out: a log must not hold a secret.
 */
export function logMailer(logger: Logger, options: { hideLinks?: boolean } = {}): Mailer {
  return {
    async send(message) {
      const text = options.hideLinks ? message.text.replace(/([?&]token=)[^\s&]+/g, "$1[omitido]") : message.text;
      logger.info({ mail: { ...message, text } }, "e-mail (not sent: log mailer)");
    },
  };
}

/**
 * The SMTP mailer (`SMTP_URL`, nodemailer): `smtp://user:password@host:587` (STARTTLS when the
 * server offers it), `smtps://…:465` (TLS from the start). The query may name the sender,
 * `?from=Loja%20<avisos@loja.example>`; nodemailer's own options (`?secure=true`) pass through.
 */
export function smtpMailer(smtpUrl: string): Mailer & { close(): void } {
  const url = new URL(smtpUrl);
  const from = url.searchParams.get("from") ?? defaultFrom;
  url.searchParams.delete("from");
  // nodemailer is loaded here, not at start-up: a server that logs its mail never reads it.
  const transport = import("nodemailer").then(({ default: nodemailer }) => nodemailer.createTransport(url.toString()));
  // A failure to load is each send's to report (the caller's), never an unhandled rejection.
  transport.catch(() => undefined);
  return {
    async send(message) {
      await (await transport).sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
    close: () =>
      void transport.then(
        (t) => t.close(),
        () => undefined,
      ),
  };
}
