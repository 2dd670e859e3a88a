import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { pino } from "pino";
import { expect, test } from "vitest";
import type { Role } from "../../src/domain/identity/model.js";
import { byId, expectStatus, operatorApi, type TestServer, testAdminToken } from "../harness.js";
import { rememberSecret } from "../support/audit.js";
import {
  type DashboardBrowser,
  dashboardBrowser,
  lastLinkToken,
  newPerson,
  signedUp,
  turnOnTwoFactor,
  withTwoFactor,
} from "../support/dashboard.js";
import { eachStore, serverOn } from "../support/stores.js";

// Issue 33 §6, §7, §10, §11, §12 (the identity's part) through the real HTTP stack on both stores:
// reset links end with a reset or a password change; no token in the request log; e-mail ownership
// before two-factor set-up, invitations and verification, and no control character in names;
// invitations revoked with their inviter; reset e-mails limited per address; expired sessions and
// e-mail links purged; the session list in pages. docs/decisions/0041-e-mail-links-ownership-and-identity-housekeeping.md.

const newPassword = "outra frase longa de senha";
let invited = 0;
const newAddress = () => `convidado.${process.pid}.${++invited}.${Date.now()}@loja.example.com.br`;
const tokenDigest = (token: string) => createHash("sha256").update(token).digest("hex");

/** Invites `email` with `role` from `browser` (stepped up): the answer. */
async function invite(browser: DashboardBrowser, email: string, role: Role) {
  return browser.api.POST("/dashboard/v1/team/invitations", { body: { email, role } });
}

/** Accepts the last invitation e-mailed to `email`, as a new browser: the answer. */
async function accept(server: TestServer, email: string) {
  const token = lastLinkToken(server, email);
  rememberSecret(token);
  const browser = dashboardBrowser(server.baseUrl);
  const answer = await browser.api.POST("/dashboard/v1/invitations/accept", {
    body: { token, name: "João Lima", password: "frase longa do novo membro" },
  });
  return { browser, answer, token };
}

/** An admin of the owner's account, with two-factor authentication on and stepped up. */
async function adminOf(server: TestServer, owner: DashboardBrowser) {
  const email = newAddress();
  expectStatus(await invite(owner, email, "admin"), 201);
  const { browser, answer } = await accept(server, email);
  expectStatus(answer, 201);
  await turnOnTwoFactor(server, browser, "frase longa do novo membro");
  return { browser, id: answer.body.user.id };
}

for (const store of eachStore("identity_hardening")) {
  store.describe(`dashboard identity hardening on the ${store.name} store`, () => {
    const logLines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(...String(chunk).split("\n").filter(Boolean));
        done();
      },
    });
    const server = serverOn(store, { logger: pino({ level: "info" }, sink) });
    const anonymous = () => dashboardBrowser(server.baseUrl);
    const logIn = (email: string, password: string, browser = anonymous()) =>
      browser.api.POST("/dashboard/v1/session", { body: { email, password } });
    const askReset = (email: string) => anonymous().api.POST("/dashboard/v1/password-resets", { body: { email } });
    const completeReset = (token: string, password = newPassword) =>
      anonymous().api.POST("/dashboard/v1/password-resets/complete", { body: { token, password } });

    // §6

    test("when a newer reset link completed the reset, then an older one, unused and unexpired, is refused", async () => {
      const { person } = await signedUp(server);
      expectStatus(await askReset(person.email), 202);
      const older = lastLinkToken(server, person.email);
      server.clock.advance(60);
      expectStatus(await askReset(person.email), 202);
      const newer = lastLinkToken(server, person.email);

      const reset = await completeReset(newer);
      const again = await completeReset(older, "terceira frase longa de senha");

      expectStatus(reset, 204);
      expect(again.status).toBe(400);
      expect(again.body).toMatchObject({ code: "REQUEST_ERROR" });
      expectStatus(await logIn(person.email, newPassword), 201);
    });

    test("when the password is changed, then a reset link sent before is refused", async () => {
      const { browser, person } = await signedUp(server);
      expectStatus(await askReset(person.email), 202);
      const outstanding = lastLinkToken(server, person.email);

      const changed = await browser.api.POST("/dashboard/v1/me/password", {
        body: { currentPassword: person.password, newPassword },
      });
      const reset = await completeReset(outstanding, "frase longa de quem roubou o link");

      expectStatus(changed, 204);
      expect(reset.status).toBe(400);
      expectStatus(await logIn(person.email, newPassword), 201);
    });

    // §7

    test("when the e-mails' links are opened and secret-named parameters or a document are sent, then no log line holds a token, a key or the document", async () => {
      const owner = await withTwoFactor(server);
      const unconfirmed = await signedUp(server, {}, { confirmEmail: false });
      const confirmToken = lastLinkToken(server, unconfirmed.person.email);
      expectStatus(await askReset(owner.person.email), 202);
      const resetToken = lastLinkToken(server, owner.person.email);
      const invitee = newAddress();
      expectStatus(await invite(owner.browser, invitee, "viewer"), 201);
      const invitationToken = lastLinkToken(server, invitee);
      const apiSecret = "segredo-que-nao-pode-aparecer-no-log";
      const before = logLines.length;

      const opened = [
        `/painel/confirmar-email?token=${confirmToken}`,
        `/painel/redefinir-senha?token=${resetToken}`,
        `/painel/aceitar-convite?token=${invitationToken}&origem=email`,
        `/painel/redefinir-senha?${resetToken}`,
        `/dashboard/v1/session?token=${apiSecret}`,
        `/api/v1/transactions?limit=5&access_token=${apiSecret}`,
        `/api/v1/balance?api_key=${apiSecret}`,
        `/api/v1/balance?apiKey=${apiSecret}&key=${apiSecret}`,
        `/api/v1/customers?document=52998224725`,
      ];
      for (const path of opened) await (await fetch(`${server.baseUrl}${path}`)).arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 50));

      const written = logLines.slice(before);
      expect(written.length).toBeGreaterThanOrEqual(opened.length);
      for (const secret of [confirmToken, resetToken, invitationToken, apiSecret, "52998224725"]) {
        expect(written.filter((line) => line.includes(secret))).toEqual([]);
      }
      const urls = written.map((line) => (JSON.parse(line) as { req?: { url?: string } }).req?.url);
      expect(urls).toEqual(
        expect.arrayContaining([
          "/painel/redefinir-senha?token=[redacted]",
          "/painel/aceitar-convite?token=[redacted]&origem=[redacted]",
          "/api/v1/transactions?limit=5&access_token=[redacted]",
          "/api/v1/balance?api_key=[redacted]",
          "/api/v1/balance?apiKey=[redacted]&key=[redacted]",
          "/api/v1/customers?document=[redacted]",
        ]),
      );
    });

    // §10

    test("when a user has not confirmed its address, then two-factor set-up, invitations and verification answer 403 EMAIL_NOT_CONFIRMED; once confirmed, they go on", async () => {
      const { browser, person } = await signedUp(server, {}, { confirmEmail: false });

      const twoFactor = await browser.api.POST("/dashboard/v1/me/two-factor", {
        body: { currentPassword: person.password },
      });
      const invitation = await invite(browser, newAddress(), "viewer");
      const verification = await browser.api.POST("/dashboard/v1/account/verification", {
        body: { legalName: "Loja Exemplo Comércio de Roupas Ltda", document: "11.222.333/0001-81" },
      });

      for (const refused of [twoFactor, invitation, verification]) {
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ code: "EMAIL_NOT_CONFIRMED", message: expect.stringContaining("e-mail") });
      }
      const session = await browser.api.GET("/dashboard/v1/session");
      expectStatus(session, 200);
      expect(session.body.user.twoFactorEnabled).toBe(false);
      const token = lastLinkToken(server, person.email);
      rememberSecret(token);
      expectStatus(await anonymous().api.POST("/dashboard/v1/email-confirmations", { body: { token } }), 204);
      const afterConfirming = await browser.api.POST("/dashboard/v1/account/verification", {
        body: { legalName: "Loja Exemplo Comércio de Roupas Ltda", document: "11.222.333/0001-81" },
      });
      expectStatus(afterConfirming, 201);
      await turnOnTwoFactor(server, browser, person.password);
    });

    test("when an unconfirmed account whose second factor someone turned on is reset through the link, then the second factor is off and the address confirmed", async () => {
      const { person, session } = await signedUp(server, {}, { confirmEmail: false });
      // A squatter who turned two-factor authentication on before it needed a confirmed address.
      const squatted = await server.store.read.users.get(session.user.id);
      await server.store.transaction((tx) =>
        tx.users.update({
          ...squatted!,
          totpSecret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
          totpEnabledAt: server.clock.now().toISOString(),
          recoveryCodeDigests: [tokenDigest("AAAA-BBBB")],
        }),
      );
      expect((await logIn(person.email, person.password)).body).toMatchObject({ code: "TWO_FACTOR_REQUIRED" });
      expectStatus(await askReset(person.email), 202);

      const reset = await completeReset(lastLinkToken(server, person.email));
      const login = await logIn(person.email, newPassword);

      expectStatus(reset, 204);
      expectStatus(login, 201);
      expect(login.body.user).toMatchObject({ twoFactorEnabled: false, emailConfirmed: true });
    });

    test("when a reset of a confirmed account with a second factor completes, then the second factor stays on", async () => {
      const owner = await withTwoFactor(server);
      expectStatus(await askReset(owner.person.email), 202);

      expectStatus(await completeReset(lastLinkToken(server, owner.person.email)), 204);
      const login = await logIn(owner.person.email, newPassword);

      expect(login.status).toBe(401);
      expect(login.body).toMatchObject({ code: "TWO_FACTOR_REQUIRED" });
    });

    /** What the refusal of a person's name says (`UserName`, spec/dashboard/models.tsp). */
    const nameRule = "deve ter ao menos 2 caracteres além de espaços, sem quebra de linha nem caractere de controle";
    test.each([
      {
        name: "a sign-up's name with a line break",
        field: "name",
        value: "Maria Souza\r\nBcc: todos@example.com",
        message: nameRule,
      },
      {
        name: "a sign-up's business name with a line break",
        field: "businessName",
        value: "Loja\nClique aqui",
        message: "formato inválido",
      },
      { name: "a sign-up's name with a tab", field: "name", value: "Maria\tSouza", message: nameRule },
      { name: "a sign-up's name with a C1 control", field: "name", value: "Maria\u0085Souza", message: nameRule },
      { name: "a sign-up's name of one letter and a space", field: "name", value: "m ", message: nameRule },
      { name: "a sign-up's name of only spaces", field: "name", value: "   ", message: nameRule },
      {
        name: "a sign-up's name of one letter between no-break spaces",
        field: "name",
        value: "\u00a0m\u00a0",
        message: nameRule,
      },
    ])(
      "when $name is sent, then 400 VALIDATION_ERROR on it saying why, and no user",
      async ({ field, value, message }) => {
        const person = newPerson({ [field]: value });

        const answer = await anonymous().api.POST("/dashboard/v1/sign-up", { body: person });

        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ code: "VALIDATION_ERROR", errors: [{ path: field, message }] });
        expect((await logIn(person.email, person.password)).status).toBe(401);
      },
    );

    test("when a sign-up's name has spaces around it, then it is kept without them", async () => {
      const person = newPerson({ name: "  Zé  " });

      const answer = await anonymous().api.POST("/dashboard/v1/sign-up", { body: person });

      expectStatus(answer, 201);
      expect(answer.body.user.name).toBe("Zé");
    });

    test.each([
      { name: "holds a line break", invitee: "João\r\nLima", profile: "Maria\nSouza" },
      { name: "has one character besides spaces", invitee: " J ", profile: "M  " },
    ])(
      "when an invitee's name or a profile's name $name, then 400 VALIDATION_ERROR and nothing changes",
      async ({ invitee, profile }) => {
        const owner = await withTwoFactor(server);
        const email = newAddress();
        expectStatus(await invite(owner.browser, email, "viewer"), 201);
        const token = lastLinkToken(server, email);

        const accepted = await anonymous().api.POST("/dashboard/v1/invitations/accept", {
          body: { token, name: invitee, password: "frase longa do novo membro" },
        });
        const renamed = await owner.browser.api.PATCH("/dashboard/v1/me", { body: { name: profile } });

        expect(accepted.status).toBe(400);
        expect(accepted.body).toMatchObject({ code: "VALIDATION_ERROR", errors: [{ path: "name" }] });
        expect(renamed.status).toBe(400);
        expect(renamed.body).toMatchObject({ code: "VALIDATION_ERROR", errors: [{ path: "name" }] });
        const session = await owner.browser.api.GET("/dashboard/v1/session");
        expectStatus(session, 200);
        expect(session.body.user.name).toBe("Maria Souza");
        expectStatus((await accept(server, email)).answer, 201);
      },
    );

    test("when the operator opens or renames an account with a control character in its name or city, then 400 VALIDATION_ERROR", async () => {
      const operator = operatorApi(server.baseUrl, { token: testAdminToken });
      const { account } = await server.newAccount();

      const created = await operator.POST("/admin/v1/accounts", {
        body: { name: "Loja\r\nExemplo", ownerEmail: "dono@loja.example.com.br" },
      });
      const renamed = await operator.PATCH("/admin/v1/accounts/{id}", {
        ...byId(account.id),
        body: { name: "Loja\nExemplo" },
      });
      const city = await operator.PATCH("/admin/v1/accounts/{id}", {
        ...byId(account.id),
        body: { merchantCity: "SAO\tPAULO" },
      });

      for (const [answer, path] of [
        [created, "name"],
        [renamed, "name"],
        [city, "merchantCity"],
      ] as const) {
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ code: "VALIDATION_ERROR", errors: [{ path }] });
      }
      const read = await operator.GET("/admin/v1/accounts/{id}", byId(account.id));
      expectStatus(read, 200);
      expect(read.body.name).toBe(account.name);
    });

    // §11

    test("when an admin who invited is removed, then its waiting invitations no longer work", async () => {
      const owner = await withTwoFactor(server);
      const admin = await adminOf(server, owner.browser);
      const invitee = newAddress();
      expectStatus(await invite(admin.browser, invitee, "developer"), 201);

      expectStatus(await owner.browser.api.DELETE("/dashboard/v1/team/members/{id}", byId(admin.id)), 204);
      const accepted = await accept(server, invitee);

      expect(accepted.answer.status).toBe(400);
      const waiting = await owner.browser.api.GET("/dashboard/v1/team/invitations");
      expectStatus(waiting, 200);
      expect(waiting.body.data.map((i) => i.email)).not.toContain(invitee);
    });

    test("when an admin who invited is made developer, then its waiting invitations are revoked; another member's stay", async () => {
      const owner = await withTwoFactor(server);
      const admin = await adminOf(server, owner.browser);
      const byAdmin = newAddress();
      const byOwner = newAddress();
      expectStatus(await invite(admin.browser, byAdmin, "finance"), 201);
      expectStatus(await invite(owner.browser, byOwner, "viewer"), 201);

      const demoted = await owner.browser.api.PATCH("/dashboard/v1/team/members/{id}", {
        ...byId(admin.id),
        body: { role: "developer" },
      });

      expectStatus(demoted, 200);
      expect((await accept(server, byAdmin)).answer.status).toBe(400);
      expectStatus((await accept(server, byOwner)).answer, 201);
      const log = await owner.browser.api.GET("/dashboard/v1/audit-log", {
        params: { query: { action: "member.invitation_revoked" } },
      });
      expectStatus(log, 200);
      expect(log.body.data[0]).toMatchObject({
        actor: { type: "user", userId: owner.session.user.id },
        changes: { email: { from: byAdmin, to: null } },
      });
    });

    test("when an owner who invited an owner and an admin is made admin, then only the owner's invitation is revoked", async () => {
      const first = await withTwoFactor(server);
      const secondEmail = newAddress();
      expectStatus(await invite(first.browser, secondEmail, "owner"), 201);
      const second = await accept(server, secondEmail);
      expectStatus(second.answer, 201);
      await turnOnTwoFactor(server, second.browser, "frase longa do novo membro");
      const asOwner = newAddress();
      const asAdmin = newAddress();
      expectStatus(await invite(second.browser, asOwner, "owner"), 201);
      expectStatus(await invite(second.browser, asAdmin, "admin"), 201);

      const demoted = await first.browser.api.PATCH("/dashboard/v1/team/members/{id}", {
        ...byId(second.answer.body.user.id),
        body: { role: "admin" },
      });

      expectStatus(demoted, 200);
      expect((await accept(server, asOwner)).answer.status).toBe(400);
      expectStatus((await accept(server, asAdmin)).answer, 201);
    });

    // §12

    test("when a reset is asked five times in an hour, then three e-mails go, every answer is the same 202, and an hour later one more goes", async () => {
      const { person } = await signedUp(server);
      const sent = () =>
        server.mail.filter((m) => m.to === person.email && m.subject === "Redefinição de senha").length;

      const answers = [];
      for (let i = 0; i < 5; i++) answers.push((await askReset(person.email)).status);
      const withinHour = sent();
      server.clock.advance(3600);
      const later = await askReset(person.email);

      expect(answers).toEqual([202, 202, 202, 202, 202]);
      expect(withinHour).toBe(3);
      expect(later.status).toBe(202);
      expect(sent()).toBe(4);
      expectStatus(await completeReset(lastLinkToken(server, person.email)), 204);
    });

    test("when sessions and e-mail links are past their expiry, then the purge deletes them and keeps what still works", async () => {
      const { browser, person } = await signedUp(server, {}, { confirmEmail: false });
      const oldConfirmation = lastLinkToken(server, person.email);
      const listed = await browser.api.GET("/dashboard/v1/sessions");
      expectStatus(listed, 200);
      const oldSessionId = listed.body.data[0]?.id;
      server.clock.advance(31 * 24 * 3600);
      const fresh = anonymous();
      expectStatus(await logIn(person.email, person.password, fresh), 201);
      expectStatus(await askReset(person.email), 202);
      const liveReset = lastLinkToken(server, person.email);

      const purged = await server.domain.users.purgeExpired();

      expect(purged).toBeGreaterThanOrEqual(2);
      expect(await server.store.read.sessions.get(oldSessionId!)).toBeNull();
      expect(await server.store.read.emailTokens.get(tokenDigest(oldConfirmation))).toBeNull();
      expectStatus(await fresh.api.GET("/dashboard/v1/session"), 200);
      expectStatus(await completeReset(liveReset), 204);
    });

    test("when a user has more sessions than a page, then the list pages them newest first, without the ended ones", async () => {
      const { browser, person } = await signedUp(server);
      const browsers = [browser];
      for (let i = 0; i < 3; i++) {
        server.clock.advance(1);
        const other = anonymous();
        expectStatus(await logIn(person.email, person.password, other), 201);
        browsers.push(other);
      }
      const ended = browsers[1]!;
      expectStatus(await ended.api.DELETE("/dashboard/v1/session"), 204);

      const first = await browser.api.GET("/dashboard/v1/sessions", { params: { query: { limit: 2 } } });
      expectStatus(first, 200);
      const second = await browser.api.GET("/dashboard/v1/sessions", {
        params: { query: { limit: 2, startingAfter: first.body.data.at(-1)!.id } },
      });
      const unknown = await browser.api.GET("/dashboard/v1/sessions", {
        params: { query: { startingAfter: "ses_naoexiste" } },
      });

      expectStatus(second, 200);
      expect(first.body.hasMore).toBe(true);
      expect(second.body.hasMore).toBe(false);
      const listed = [...first.body.data, ...second.body.data];
      expect(listed).toHaveLength(3);
      expect(listed.map((s) => s.createdAt)).toEqual([...listed.map((s) => s.createdAt)].sort().reverse());
      expect(listed.filter((s) => s.current)).toHaveLength(1);
      expect(listed.at(-1)?.current).toBe(true);
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ code: "VALIDATION_ERROR", errors: [{ path: "startingAfter" }] });
    });
  });
}
