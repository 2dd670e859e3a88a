import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { smtpMailer } from "../../src/mail.js";
import { expectStatus, startTestServer, type TestServer } from "../harness.js";
import { dashboardBrowser, newPerson } from "../support/dashboard.js";

// The SMTP adapter of the Mailer port (`SMTP_URL`) against a real SMTP server on 127.0.0.1
// (smtp-server), not a mock of the adapter: what it sends is read back as the server received it.

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** The text of a message as received: headers unfolded, body's quoted-printable decoded. */
function readMessage(raw: string): { headers: Record<string, string>; text: string } {
  const [head = "", ...rest] = raw.split(/\r?\n\r?\n/);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const at = line.indexOf(":");
    if (at > 0) headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  let body = rest.join("\n\n");
  if (/quoted-printable/i.test(headers["content-transfer-encoding"] ?? "")) {
    const bytes = body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, hex: string) => `%${hex}`);
    body = decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/g, "%25"));
  }
  return { headers, text: body.replace(/\r\n/g, "\n") };
}

describe("the SMTP mailer against an SMTP server on loopback", () => {
  const received: Received[] = [];
  let smtp: SMTPServer;
  let smtpUrl: string;
  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString("utf8"),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    const { port } = smtp.server.address() as AddressInfo;
    smtpUrl = `smtp://127.0.0.1:${port}?from=${encodeURIComponent("Loja Exemplo <avisos@loja.example.com.br>")}`;
  });
  afterAll(() => new Promise<void>((resolve) => smtp.close(resolve)));

  test("when a message is sent, then the SMTP server receives it from SMTP_URL's sender, to its address, with its Portuguese text intact", async () => {
    const mailer = smtpMailer(smtpUrl);
    const text = "Olá, Maria.\nSaque de R$ 1.234,56 solicitado às 15h30 — confirmação nº 42.";

    await mailer.send({ to: "maria@loja.example.com.br", subject: "Saque solicitado", text });
    mailer.close();

    const message = received.at(-1)!;
    expect(message.from).toBe("avisos@loja.example.com.br");
    expect(message.to).toEqual(["maria@loja.example.com.br"]);
    const { headers, text: body } = readMessage(message.raw);
    expect(headers.subject).toBe("Saque solicitado");
    expect(headers.from).toBe("Loja Exemplo <avisos@loja.example.com.br>");
    expect(body.trim()).toBe(text);
  });

  test("when the SMTP server cannot be reached, then sending fails (the caller logs it) instead of passing silently", async () => {
    const mailer = smtpMailer("smtp://127.0.0.1:1");

    await expect(mailer.send({ to: "maria@loja.example.com.br", subject: "x", text: "x" })).rejects.toThrow();
    mailer.close();
  });

  describe("a server whose e-mails go through SMTP", () => {
    let server: TestServer;
    let mailer: ReturnType<typeof smtpMailer>;
    beforeAll(async () => {
      mailer = smtpMailer(smtpUrl);
      server = await startTestServer({ mailer });
    });
    afterAll(async () => {
      mailer.close();
      await server.close();
    });

    test("when a person signs up, then the confirmation e-mail reaches the SMTP server and its link confirms the address", async () => {
      const browser = dashboardBrowser(server.baseUrl);
      const person = newPerson();
      await browser.api.POST("/dashboard/v1/sign-up", { body: person });

      let mail: Received | undefined;
      for (let i = 0; i < 100 && !mail; i++) {
        mail = received.find((m) => m.to.includes(person.email));
        if (!mail) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const { headers, text } = readMessage(mail!.raw);
      const token = /https:\/\/pix\.example\.test\/painel\/confirmar-email\?token=([A-Za-z0-9_-]{43})/.exec(text)?.[1];
      const confirmed = await browser.api.POST("/dashboard/v1/email-confirmations", { body: { token: token! } });
      const session = await browser.api.GET("/dashboard/v1/session");

      expect(headers.subject).toBe("Confirme seu e-mail");
      expect(text).toContain("Olá, Maria Souza.");
      expect(confirmed.status).toBe(204);
      expectStatus(session, 200);
      expect(session.body.user.emailConfirmed).toBe(true);
    });
  });
});
