import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, expect, test } from "vitest";
import { smtpMailer } from "../../src/mail.js";
import type { Mailer } from "../../src/domain/ports/mailer.js";
import type { Role } from "../../src/domain/identity/model.js";
import { bodyOf, byId, chargeBody, expectStatus, publicApi, type TestServer } from "../harness.js";
import { addMember, dashboardBrowser } from "../support/dashboard.js";
import { eachStore, serverOn } from "../support/stores.js";

// The e-mail notices (issue 37 §2) through the real HTTP interface, sent by the notices job's pass
// through the SMTP adapter to an SMTP server on 127.0.0.1, read back as it received them: each
// notice, the members' choices honoured, the payer's receipt, and a mail server that is down.

interface Received {
  to: string[];
  subject: string;
  text: string;
}

const received: Received[] = [];
let smtp: SMTPServer;
let smtpUrl = "";
/** While true, the servers' mailer points at a closed port (a mail server that is down). */
let mailServerDown = false;

/** Subject (RFC 2047 words decoded) and text (quoted-printable decoded) of a message as received. */
function readMessage(raw: string): { subject: string; text: string } {
  const [head = "", ...rest] = raw.split(/\r?\n\r?\n/);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const at = line.indexOf(":");
    if (at > 0) headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  const subject = (headers.subject ?? "").replace(
    /=\?utf-8\?([BQ])\?([^?]*)\?=\s*/gi,
    (_m, enc: string, data: string) =>
      enc.toUpperCase() === "B"
        ? Buffer.from(data, "base64").toString("utf8")
        : decodeURIComponent(data.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, "%$1")),
  );
  let body = rest.join("\n\n");
  if (/quoted-printable/i.test(headers["content-transfer-encoding"] ?? "")) {
    const bytes = body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, hex: string) => `%${hex}`);
    body = decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/g, "%25"));
  } else if (/base64/i.test(headers["content-transfer-encoding"] ?? "")) {
    body = Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  }
  return { subject, text: body.replace(/\r\n/g, "\n") };
}

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const message = readMessage(Buffer.concat(chunks).toString("utf8"));
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), ...message });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

/** The SMTP adapter, to the loopback server or, while `mailServerDown`, to a closed port. */
function switchableMailer(): Mailer {
  let up: ReturnType<typeof smtpMailer> | undefined;
  const down = smtpMailer("smtp://127.0.0.1:1");
  return {
    send: (message) => {
      up ??= smtpMailer(smtpUrl);
      return (mailServerDown ? down : up).send(message);
    },
  };
}

const to = (address: string) => received.filter((m) => m.to.includes(address));

for (const store of eachStore("e-mail-notices")) {
  store.describe(`e-mail notices on the ${store.name} store`, () => {
    const server: TestServer = serverOn(store, { mailer: switchableMailer() });
    const secrets: string[] = [];

    /** A confirmed member of the account, logged in (its browser sends `userAgent`). */
    async function memberOf(accountId: string, role: Role, userAgent = "Mozilla/5.0 (X11; Linux) Firefox/133.0") {
      const { email, password } = await addMember(server, accountId, role);
      secrets.push(password);
      const browser = dashboardBrowser(server.baseUrl, { "user-agent": userAgent });
      const session = await browser.api.POST("/dashboard/v1/session", { body: { email, password } });
      expectStatus(session, 201);
      return { email, password, browser };
    }

    async function account() {
      const made = await server.newAccount();
      secrets.push(made.testKey);
      return { ...made, api: publicApi(server.baseUrl, { key: made.testKey }) };
    }

    const noSecretIn = (mail: Received) => {
      for (const secret of secrets) expect(mail.text).not.toContain(secret);
      expect(mail.text).not.toMatch(/token=|sk_test_|sk_live_/);
    };

    test("when members read and change their notices, then each role has its defaults, a change is kept and audited, and a wrong value answers 400", async () => {
      const { account: acc } = await account();
      const admin = await memberOf(acc.id, "admin");
      const developer = await memberOf(acc.id, "developer");

      const adminDefaults = await bodyOf(admin.browser.api.GET("/dashboard/v1/me/notices"), 200);
      const developerDefaults = await bodyOf(developer.browser.api.GET("/dashboard/v1/me/notices"), 200);
      const changed = await bodyOf(
        admin.browser.api.PATCH("/dashboard/v1/me/notices", { body: { payments: "daily", disputes: false } }),
        200,
      );
      const wrong = await admin.browser.api.PATCH("/dashboard/v1/me/notices", {
        body: { payments: "sometimes" } as never,
      });
      const audit = await bodyOf(admin.browser.api.GET("/dashboard/v1/audit-log", { params: { query: {} } }), 200);

      expect(adminDefaults).toEqual({
        payments: "each",
        withdrawals: true,
        disputes: true,
        newDevice: true,
        chosen: false,
      });
      expect(developerDefaults).toEqual({
        payments: "off",
        withdrawals: false,
        disputes: false,
        newDevice: true,
        chosen: false,
      });
      expect(changed).toEqual({ payments: "daily", withdrawals: true, disputes: false, newDevice: true, chosen: true });
      expect(await bodyOf(admin.browser.api.GET("/dashboard/v1/me/notices"), 200)).toEqual(changed);
      expect(wrong.status).toBe(400);
      const entry = audit.data.find((e) => e.action === "user.notices_updated");
      expect(entry?.changes).toEqual({ payments: { from: "each", to: "daily" }, disputes: { from: true, to: false } });
    });

    test("when a checkout's charge is paid, then a member who wants each payment and the payer receive their e-mails in Portuguese, marked TESTE, and a member who opted out gets nothing", async () => {
      const { account: acc, api } = await account();
      const admin = await memberOf(acc.id, "admin");
      const finance = await memberOf(acc.id, "finance");
      expectStatus(await finance.browser.api.PATCH("/dashboard/v1/me/notices", { body: { payments: "off" } }), 200);
      const link = await bodyOf(
        api.POST("/api/v1/payment-links", {
          body: { amountCents: 4990, description: "Bolo de cenoura com cobertura" },
        }),
        201,
      );
      const form = await fetch(`${server.baseUrl}/checkout/${link.id}`);
      const cookie = (form.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
      const hidden = Object.fromEntries(
        [...(await form.text()).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
          m[1],
          m[2],
        ]),
      );
      const payer = `pagador.${store.name === "memory" ? "m" : "p"}.${Date.now()}@example.com.br`;
      const submitted = await fetch(`${server.baseUrl}/checkout/${link.id}`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          ...hidden,
          name: "Ana Beatriz Costa",
          email: payer,
          phone: "11987654321",
          document: "52998224725",
        }).toString(),
      });
      expect(submitted.status).toBe(303);
      const [charge] = (
        await bodyOf(api.GET("/api/v1/transactions", { params: { query: { paymentLinkId: link.id } } }), 200)
      ).data;
      expectStatus(await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge!.id)), 200);

      await server.domain.notices.sendDue();

      const [notice, ...more] = to(admin.email);
      expect(more).toEqual([]);
      expect(notice?.subject).toBe("[TESTE] Pagamento recebido: R$ 49,90");
      expect(notice?.text).toContain("MODO DE TESTE — nenhum dinheiro real foi movimentado.");
      expect(notice?.text).toContain("Loja Exemplo Ltda recebeu um pagamento Pix.");
      expect(notice?.text).toContain("Descrição: Bolo de cenoura com cobertura");
      expect(notice?.text).toContain(`/painel/teste/transacoes/${charge!.id}`);
      expect(to(finance.email)).toEqual([]);
      const [receipt] = to(payer);
      expect(receipt?.subject).toBe("[TESTE] Comprovante do seu Pix para Loja Exemplo Ltda: R$ 49,90");
      expect(receipt?.text).toContain("COMPROVANTE DE PAGAMENTO PIX");
      expect(receipt?.text).toContain("Valor: R$ 49,90");
      expect(receipt?.text).toContain("Pagador: Ana Beatriz Costa — CPF ***.982.247-**");
      expect(receipt?.text).toContain(`ID da transação no recebedor: ${charge!.id}`);
      expect(receipt?.text).toMatch(/Data e hora: \d{2}\/\d{2}\/\d{4} às \d{2}:\d{2}:\d{2} \(horário de Brasília\)/);
      for (const mail of [notice!, receipt!]) noSecretIn(mail);
    });

    test("when withdrawals end partly paid and failed and a payment is contested, then the members who chose them hear of each", async () => {
      const { account: acc, api } = await account();
      const admin = await memberOf(acc.id, "admin");
      const funds = await bodyOf(api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 20_080 }) }), 201);
      const charge = await bodyOf(api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 1_000 }) }), 201);
      for (const paid of [funds, charge]) {
        expectStatus(await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(paid.id)), 200);
      }
      server.clock.advance(86_400);
      const withdraw = (pixKey: string) =>
        bodyOf(api.POST("/api/v1/withdrawals", { body: { amountCents: 5000, pixKey, pixKeyType: "EMAIL" } }), 201);
      expectStatus(await api.POST("/api/v1/sandbox/transactions/{id}/dispute", { ...byId(charge.id), body: {} }), 201);
      const partial = await withdraw("parcial@sandbox.pix");
      const failed = await withdraw("falha@sandbox.pix");

      await server.domain.notices.sendDue();

      const subjects = to(admin.email).map((m) => m.subject);
      expect(subjects).toContain("[TESTE] Saque pago em parte: R$ 50,00");
      expect(subjects).toContain("[TESTE] Saque não realizado: R$ 50,00");
      expect(subjects).toContain("[TESTE] Contestação aberta: R$ 10,00");
      const partly = to(admin.email).find((m) => m.text.includes(partial.id));
      expect(partly?.text).toContain("Devolvido ao saldo:");
      expect(to(admin.email).find((m) => m.text.includes(failed.id))?.text).toContain("Motivo: Sandbox");
      for (const mail of to(admin.email)) noSecretIn(mail);
    });

    test("when a member logs in from a browser it never used, then it hears of it; from one it used, or when it opted out, it does not", async () => {
      const { account: acc } = await account();
      const admin = await memberOf(acc.id, "admin", "Firefox no notebook");
      const quiet = await memberOf(acc.id, "viewer", "Firefox no notebook");
      expectStatus(await quiet.browser.api.PATCH("/dashboard/v1/me/notices", { body: { newDevice: false } }), 200);
      const logIn = async (who: { email: string; password: string }, userAgent: string) =>
        expectStatus(
          await dashboardBrowser(server.baseUrl, { "user-agent": userAgent }).api.POST("/dashboard/v1/session", {
            body: { email: who.email, password: who.password },
          }),
          201,
        );

      await logIn(admin, "Safari no celular");
      await logIn(admin, "Firefox no notebook");
      await logIn(quiet, "Safari no celular");
      await server.domain.notices.sendDue();

      const [notice, ...more] = to(admin.email);
      expect(more).toEqual([]);
      expect(notice?.subject).toBe("Entrada de um dispositivo novo no painel");
      expect(notice?.text).toContain("Navegador: Safari no celular");
      expect(notice?.text).toContain("Endereço IP: 127.0.0.1");
      expect(notice?.text).toContain("Não foi você? Troque sua senha");
      noSecretIn(notice!);
      expect(to(quiet.email)).toEqual([]);
    });

    test("when the mail server is down, then the payment still answers 200 and its notice arrives once the server is back", async () => {
      const { account: acc, api } = await account();
      const admin = await memberOf(acc.id, "admin");
      const charge = await bodyOf(api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 1234 }) }), 201);
      mailServerDown = true;
      try {
        expectStatus(await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id)), 200);
        const pass = await server.domain.notices.sendDue();
        expect(pass.failed).toBeGreaterThan(0);
        expect(to(admin.email)).toEqual([]);
      } finally {
        mailServerDown = false;
      }
      server.clock.advance(61);
      await server.domain.notices.sendDue();

      expect(to(admin.email).map((m) => m.subject)).toEqual(["[TESTE] Pagamento recebido: R$ 12,34"]);
    });

    test("when a member chose the daily summary, then it gets no e-mail per payment but one the next day listing them, once", async () => {
      const { account: acc, api } = await account();
      const daily = await memberOf(acc.id, "owner");
      expectStatus(await daily.browser.api.PATCH("/dashboard/v1/me/notices", { body: { payments: "daily" } }), 200);
      const day = server.clock.now();
      for (const [amountCents, description] of [
        [1500, "Pão de queijo"],
        [2750, "Café coado"],
      ] as const) {
        const charge = await bodyOf(
          api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents, description }) }),
          201,
        );
        expectStatus(await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id)), 200);
      }
      await server.domain.notices.sendDue();
      expect(to(daily.email)).toEqual([]);

      server.clock.advance(86_400);
      expect(await server.domain.notices.queueDailySummaries()).toBeGreaterThan(0);
      await server.domain.notices.sendDue();
      expect(await server.domain.notices.queueDailySummaries()).toBe(0);
      await server.domain.notices.sendDue();

      const [summary, ...more] = to(daily.email);
      expect(more).toEqual([]);
      const date = new Intl.DateTimeFormat("pt-BR", { timeZone: "America/Sao_Paulo" }).format(day);
      expect(summary?.subject).toBe(`[TESTE] Resumo do dia ${date}: pagamentos recebidos`);
      expect(summary?.text).toContain("TESTE (nenhum dinheiro real)");
      expect(summary?.text).toContain("2 pagamentos, R$ 42,50 no total");
      expect(summary?.text).toContain("Pão de queijo");
      expect(summary?.text).toContain("Café coado");
      noSecretIn(summary!);
    });
  });
}
