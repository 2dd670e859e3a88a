/** Sends e-mail to account owners. The default adapter (`server/src/mail.ts`) writes to the log. */
export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}
