import { expect, test } from "vitest";
import { failedStepUps } from "../../src/domain/core/policy.js";
import { expectStatus } from "../harness.js";
import { eachStore, serverOn } from "../support/stores.js";
import {
  addMember,
  codeOf,
  type DashboardBrowser,
  dashboardBrowser,
  signedUp,
  withTwoFactor,
} from "../support/dashboard.js";

// Two-factor authentication of the dashboard (issue 25) through the real HTTP stack on both stores:
// turning it on, log-in with the code or a recovery code, step-up before dangerous operations, and
// the owner's rule that every member use it.

const logIn = (browser: DashboardBrowser, email: string, password: string, code?: string) =>
  browser.api.POST("/dashboard/v1/session", { body: { email, password, ...(code ? { code } : {}) } });

for (const store of eachStore("dashboard_two_factor")) {
  store.describe(`dashboard two-factor authentication on the ${store.name} store`, () => {
    const server = serverOn(store);

    // Issue 33 changed this on purpose: confirming no longer steps the session up, and the user is e-mailed.
    test("when a user sets it up with its password, then a wrong code changes nothing, the right one turns it on with ten recovery codes without a step-up, and the user is e-mailed", async () => {
      const { browser, person } = await signedUp(server);
      const started = await browser.api.POST("/dashboard/v1/me/two-factor", {
        body: { currentPassword: person.password },
      });
      expectStatus(started, 200);
      expect(started.body.otpauthUri).toMatch(/^otpauth:\/\/totp\/Pix%20Charging%20Service:maria.*secret=[A-Z2-7]+/);

      const wrong = await browser.api.POST("/dashboard/v1/me/two-factor/confirm", { body: { code: "000000" } });
      const stillOff = await browser.api.GET("/dashboard/v1/session");
      const right = await browser.api.POST("/dashboard/v1/me/two-factor/confirm", {
        body: { code: codeOf(server, started.body.secret) },
      });

      expectStatus(wrong, 400);
      expect(wrong.body.errors).toEqual([{ path: "code", message: "código incorreto ou expirado" }]);
      expectStatus(stillOff, 200);
      expect(stillOff.body.user.twoFactorEnabled).toBe(false);
      expectStatus(right, 200);
      expect(right.body.recoveryCodes).toHaveLength(10);
      expect(new Set(right.body.recoveryCodes).size).toBe(10);
      const session = await browser.api.GET("/dashboard/v1/session");
      expectStatus(session, 200);
      expect(session.body.user.twoFactorEnabled).toBe(true);
      expect(session.body.stepUpExpiresAt).toBeNull();
      const gated = await browser.api.POST("/dashboard/v1/me/two-factor/recovery-codes");
      expectStatus(gated, 403);
      expect(gated.body.code).toBe("STEP_UP_REQUIRED");
      const mails = server.mail.filter(
        (m) => m.to === person.email && m.subject === "Verificação em duas etapas ativada",
      );
      expect(mails).toHaveLength(1);
      expect(mails[0]!.text).toContain("A verificação em duas etapas acaba de ser ativada");
      expect(mails[0]!.text).toContain("/painel/recuperar-senha");
      for (const secret of [started.body.secret, ...right.body.recoveryCodes])
        expect(mails[0]!.text).not.toContain(secret);
    });

    test("when the set-up starts without the password or with a wrong one, then 400 on currentPassword and no secret is made", async () => {
      const { browser } = await signedUp(server);

      const bare = await browser.api.POST("/dashboard/v1/me/two-factor", { body: {} as never });
      const wrong = await browser.api.POST("/dashboard/v1/me/two-factor", {
        body: { currentPassword: "senha que não é a dela" },
      });
      const confirm = await browser.api.POST("/dashboard/v1/me/two-factor/confirm", { body: { code: "123456" } });

      expectStatus(bare, 400);
      expect(bare.body.errors?.map((e) => e.path)).toEqual(["currentPassword"]);
      expectStatus(wrong, 400);
      expect(wrong.body.errors).toEqual([{ path: "currentPassword", message: "não confere com a senha atual" }]);
      expect("secret" in (wrong.body as object)).toBe(false);
      expectStatus(confirm, 400);
      expect(confirm.body.code).toBe("REQUEST_ERROR");
      const session = await browser.api.GET("/dashboard/v1/session");
      expectStatus(session, 200);
      expect(session.body.user.twoFactorEnabled).toBe(false);
    });

    test("when such a user logs in, then the code is asked, a wrong or replayed one refused, and a recovery code works once", async () => {
      const { person, secret, recoveryCodes } = await withTwoFactor(server);
      const browser = dashboardBrowser(server.baseUrl);

      const without = await logIn(browser, person.email, person.password);
      const wrong = await logIn(browser, person.email, person.password, "123456");
      const code = codeOf(server, secret);
      const right = await logIn(browser, person.email, person.password, code);
      const replayed = await logIn(dashboardBrowser(server.baseUrl), person.email, person.password, code);
      const recovery = await logIn(dashboardBrowser(server.baseUrl), person.email, person.password, recoveryCodes[0]);
      const recoveryAgain = await logIn(
        dashboardBrowser(server.baseUrl),
        person.email,
        person.password,
        recoveryCodes[0],
      );

      expectStatus(without, 401);
      expect(without.body.code).toBe("TWO_FACTOR_REQUIRED");
      expectStatus(wrong, 401);
      expect(wrong.body.code).toBe("INVALID_CREDENTIALS");
      expectStatus(right, 201);
      expect(right.body.stepUpExpiresAt).not.toBeNull();
      expect(replayed.status).toBe(401);
      expect(recovery.status).toBe(201);
      expect(recoveryAgain.status).toBe(401);
    });

    test("when a TOTP code is used again within its window, then log-in and step-up say it was already used, while a wrong code still reads incorreto", async () => {
      const { browser, person, secret } = await withTwoFactor(server);
      const code = codeOf(server, secret);
      const first = await logIn(dashboardBrowser(server.baseUrl), person.email, person.password, code);

      const again = await logIn(dashboardBrowser(server.baseUrl), person.email, person.password, code);
      const wrong = await logIn(dashboardBrowser(server.baseUrl), person.email, person.password, "123456");
      const stepUpAgain = await browser.api.POST("/dashboard/v1/session/step-up", { body: { code } });
      const stepUpWrong = await browser.api.POST("/dashboard/v1/session/step-up", { body: { code: "000000" } });
      server.clock.advance(30);
      const next = await browser.api.POST("/dashboard/v1/session/step-up", { body: { code: codeOf(server, secret) } });

      expectStatus(first, 201);
      expectStatus(again, 401);
      expect(again.body).toMatchObject({
        code: "INVALID_CREDENTIALS",
        message: "Este código já foi usado; aguarde o próximo.",
      });
      expectStatus(wrong, 401);
      expect(wrong.body).toMatchObject({ code: "INVALID_CREDENTIALS", message: "Código de verificação incorreto." });
      expectStatus(stepUpAgain, 400);
      expect(stepUpAgain.body.errors).toEqual([
        { path: "code", message: "este código já foi usado; aguarde o próximo" },
      ]);
      expectStatus(stepUpWrong, 400);
      expect(stepUpWrong.body.errors).toEqual([{ path: "code", message: "código incorreto ou expirado" }]);
      expectStatus(next, 201);
    });

    test("when a dangerous operation comes more than 10 minutes after the code, then 403 STEP_UP_REQUIRED until a step-up, which renews the session", async () => {
      const { browser, secret } = await withTwoFactor(server);
      server.clock.advance(601);
      const oldCookie = browser.cookie;

      const refused = await browser.api.POST("/dashboard/v1/me/two-factor/recovery-codes");
      const wrongStepUp = await browser.api.POST("/dashboard/v1/session/step-up", { body: { code: "000000" } });
      const steppedUp = await browser.api.POST("/dashboard/v1/session/step-up", {
        body: { code: codeOf(server, secret) },
      });
      const allowed = await browser.api.POST("/dashboard/v1/me/two-factor/recovery-codes");

      expectStatus(refused, 403);
      expect(refused.body.code).toBe("STEP_UP_REQUIRED");
      expect(wrongStepUp.status).toBe(400);
      expectStatus(steppedUp, 201);
      expect(browser.cookie).not.toBe(oldCookie);
      expectStatus(allowed, 200);
      expect(allowed.body.recoveryCodes).toHaveLength(10);
      const stale = dashboardBrowser(server.baseUrl);
      stale.cookie = oldCookie;
      expect((await stale.api.GET("/dashboard/v1/session")).status).toBe(401);
    });

    test("when a user without two-factor authentication meets a dangerous operation, then it is told to turn it on", async () => {
      const { browser } = await signedUp(server);

      const answer = await browser.api.PATCH("/dashboard/v1/account/security", { body: { requireTwoFactor: true } });
      const stepUp = await browser.api.POST("/dashboard/v1/session/step-up", { body: { code: "123456" } });

      expectStatus(answer, 403);
      expect(answer.body).toMatchObject({ code: "STEP_UP_REQUIRED" });
      expect(answer.body.message).toContain("ative-a");
      expectStatus(stepUp, 400);
      expect(stepUp.body.code).toBe("REQUEST_ERROR");
    });

    test("when two-factor authentication is turned off after a step-up, then log-in asks only the password", async () => {
      const { browser, person } = await withTwoFactor(server);

      const off = await browser.api.DELETE("/dashboard/v1/me/two-factor");

      expectStatus(off, 204);
      expect((await logIn(dashboardBrowser(server.baseUrl), person.email, person.password)).status).toBe(201);
    });

    test("when a session sends wrong step-up codes, then each is a 400 and an audit entry, and the 5th answers 429, ends every session of the user and locks step-up for 15 minutes", async () => {
      const { browser, person, secret } = await withTwoFactor(server);
      const other = dashboardBrowser(server.baseUrl);
      expectStatus(await logIn(other, person.email, person.password, codeOf(server, secret)), 201);
      server.clock.advance(30);
      const wrong = () => browser.api.POST("/dashboard/v1/session/step-up", { body: { code: "000000" } });

      const first = [];
      for (let i = 1; i < failedStepUps.perUser; i++) first.push(await wrong());
      const last = await wrong();

      for (const answer of first) {
        expectStatus(answer, 400);
        expect(answer.body.errors).toEqual([{ path: "code", message: "código incorreto ou expirado" }]);
      }
      expectStatus(last, 429);
      expect(last.body.code).toBe("RATE_LIMITED");
      expect(last.body.message).toContain("todas as suas sessões foram encerradas");
      expect(last.headers.get("retry-after")).toBe(String(failedStepUps.lockSeconds));
      expect((await browser.api.GET("/dashboard/v1/session")).status).toBe(401);
      expect((await other.api.GET("/dashboard/v1/session")).status).toBe(401);
      const warned = server.mail.filter((m) => m.to === person.email && m.subject.startsWith("Sessões encerradas"));
      expect(warned).toHaveLength(1);
      expect(warned[0]!.text).not.toContain(secret);

      // Log-in (password and code) still works; step-up stays locked, whatever the code, until 15 minutes pass.
      const again = dashboardBrowser(server.baseUrl);
      expectStatus(await logIn(again, person.email, person.password, codeOf(server, secret)), 201);
      server.clock.advance(30);
      const locked = await again.api.POST("/dashboard/v1/session/step-up", { body: { code: codeOf(server, secret) } });
      expectStatus(locked, 429);
      expect(locked.headers.get("retry-after")).toBe(String(failedStepUps.lockSeconds - 30));
      const log = await again.api.GET("/dashboard/v1/audit-log", {
        params: { query: { limit: 10 } },
      });
      expectStatus(log, 200);
      const actions = log.body.data.map((e) => e.action).filter((a) => a.startsWith("user.step_up"));
      expect(actions).toEqual([
        "user.step_up_locked",
        ...Array<string>(failedStepUps.perUser).fill("user.step_up_failed"),
      ]);
      expect(log.body.data.find((e) => e.action === "user.step_up_locked")?.changes).toEqual({
        stepUpLockedUntil: {
          from: null,
          to: new Date(server.clock.now().getTime() - 30_000 + failedStepUps.lockSeconds * 1000).toISOString(),
        },
        openSessions: { from: 2, to: 0 },
      });
      for (const entry of log.body.data.filter((e) => e.action === "user.step_up_failed")) {
        expect(Object.keys(entry.changes)).toEqual(["stepUpFailures"]);
        expect(JSON.stringify(entry)).not.toContain("000000");
      }

      server.clock.advance(failedStepUps.lockSeconds);
      const unlocked = await again.api.POST("/dashboard/v1/session/step-up", {
        body: { code: codeOf(server, secret) },
      });
      expectStatus(unlocked, 201);
    });

    test("when wrong step-up codes are more than 15 minutes apart, or a right one comes between, then the count starts over", async () => {
      const { browser, secret } = await withTwoFactor(server);
      const wrong = () => browser.api.POST("/dashboard/v1/session/step-up", { body: { code: "999999" } });
      const statuses = async (times: number) => {
        const answers: number[] = [];
        for (let i = 0; i < times; i++) answers.push((await wrong()).status);
        return answers;
      };
      const almost = failedStepUps.perUser - 1;

      const early = await statuses(almost);
      server.clock.advance(failedStepUps.windowSeconds + 1);
      const afterWindow = await statuses(almost);
      const right = await browser.api.POST("/dashboard/v1/session/step-up", { body: { code: codeOf(server, secret) } });
      const afterRight = await statuses(almost);
      const over = await wrong();

      expect([...early, ...afterWindow, ...afterRight]).toEqual(Array<number>(3 * almost).fill(400));
      expectStatus(right, 201);
      expect(over.status).toBe(429);
    });

    test("when the owner requires it of every member, then a member without it can only set it up, and the owner cannot turn its own off", async () => {
      const owner = await withTwoFactor(server);
      const required = await owner.browser.api.PATCH("/dashboard/v1/account/security", {
        body: { requireTwoFactor: true },
      });
      const session = await owner.browser.api.GET("/dashboard/v1/session");
      expectStatus(session, 200);
      const member = await addMember(server, session.body.account.id, "finance");
      const browser = dashboardBrowser(server.baseUrl);
      await logIn(browser, member.email, member.password);

      const memberSession = await browser.api.GET("/dashboard/v1/session");
      const blocked = await browser.api.POST("/dashboard/v1/me/two-factor/recovery-codes");
      const rules = await browser.api.GET("/dashboard/v1/account/security");
      const setUp = await browser.api.POST("/dashboard/v1/me/two-factor", {
        body: { currentPassword: member.password },
      });
      const ownerOff = await owner.browser.api.DELETE("/dashboard/v1/me/two-factor");

      expectStatus(required, 200);
      expect(required.body.requireTwoFactor).toBe(true);
      expectStatus(memberSession, 200);
      expect(memberSession.body.twoFactorSetupRequired).toBe(true);
      expectStatus(blocked, 403);
      expect(blocked.body.code).toBe("TWO_FACTOR_SETUP_REQUIRED");
      expectStatus(rules, 403);
      expect(rules.body.code).toBe("ROLE_FORBIDDEN");
      expect(setUp.status).toBe(200);
      expectStatus(ownerOff, 400);
      expect(ownerOff.body.code).toBe("REQUEST_ERROR");
    });
  });
}
