import { expect, test } from "vitest";
import { failedLogIns } from "../../src/http/dashboard/mount.js";
import { eachStore, serverOn } from "../support/stores.js";
import { codeOf, dashboardBrowser, signedUp, withTwoFactor } from "../support/dashboard.js";
import { expectStatus } from "../harness.js";

// Brute force against the dashboard's log-in (issue 25): failed log-ins are counted per e-mail
// address and per IP address; past either budget, log-in answers 429 with Retry-After, the right
// password included. Each test logs in from addresses of its own (X-Forwarded-For, one trusted hop).

let hosts = 0;
const newIp = () => `198.18.${Math.floor(++hosts / 250)}.${(hosts % 250) + 1}`;

for (const store of eachStore("dashboard_lockout")) {
  store.describe(`dashboard log-in lock-out on the ${store.name} store`, () => {
    const server = serverOn(store, { trustProxy: 1 });
    const logIn = (ip: string, email: string, password: string) =>
      dashboardBrowser(server.baseUrl, { "x-forwarded-for": ip }).api.POST("/dashboard/v1/session", {
        body: { email, password },
      });

    test("when an address fails 10 log-ins, then the 11th answers 429 with Retry-After from any IP, the right password included, and other addresses are not locked", async () => {
      const { person } = await signedUp(server);
      const [ip, elsewhere] = [newIp(), newIp()];
      for (let i = 0; i < failedLogIns.perEmail; i++) {
        expect((await logIn(ip, person.email, "senha errada número um")).status).toBe(401);
      }

      const locked = await logIn(ip, person.email, person.password);
      const lockedElsewhere = await logIn(elsewhere, person.email.toUpperCase(), person.password);
      const other = await signedUp(server);
      const otherAddress = await logIn(ip, other.person.email, other.person.password);

      expectStatus(locked, 429);
      expect(locked.body.code).toBe("RATE_LIMITED");
      expect(locked.body.message).toMatch(
        /^Muitas tentativas de entrada malsucedidas\. Tente novamente em 1[45] minutos\.$/,
      );
      const retryAfter = Number(locked.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(800);
      expect(retryAfter).toBeLessThanOrEqual(900);
      expect(lockedElsewhere.status).toBe(429);
      expect(otherAddress.status).toBe(201);
    });

    test("when log-ins succeed, then they do not count: a user logging in often is never locked", async () => {
      const { person } = await signedUp(server);
      const ip = newIp();

      const answers = [];
      for (let i = 0; i < failedLogIns.perEmail + 2; i++)
        answers.push((await logIn(ip, person.email, person.password)).status);

      expect(answers.every((status) => status === 201)).toBe(true);
    });

    test("when a session gives wrong current passwords to the password change and the two-factor set-up, then they count as failed log-ins: past 10, both answer 429 with the right password, and so does log-in", async () => {
      const ip = newIp();
      const { browser, person } = await signedUp(server, { "x-forwarded-for": ip });
      const wrong = "senha errada número um";
      const half = failedLogIns.perEmail / 2;
      for (let i = 0; i < half; i++) {
        const answer = await browser.api.POST("/dashboard/v1/me/password", {
          body: { currentPassword: wrong, newPassword: "outra frase longa de senha" },
        });
        expect(answer.status).toBe(400);
      }
      for (let i = 0; i < failedLogIns.perEmail - half; i++) {
        expect(
          (await browser.api.POST("/dashboard/v1/me/two-factor", { body: { currentPassword: wrong } })).status,
        ).toBe(400);
      }

      const change = await browser.api.POST("/dashboard/v1/me/password", {
        body: { currentPassword: person.password, newPassword: "outra frase longa de senha" },
      });
      const setUp = await browser.api.POST("/dashboard/v1/me/two-factor", {
        body: { currentPassword: person.password },
      });
      const logInElsewhere = await logIn(newIp(), person.email, person.password);

      expectStatus(change, 429);
      expect(change.body.code).toBe("RATE_LIMITED");
      expect(change.body.message).toMatch(
        /^Muitas tentativas com a senha incorreta\. Tente novamente em 1[45] minutos\.$/,
      );
      expect(Number(change.headers.get("retry-after"))).toBeGreaterThan(800);
      expectStatus(setUp, 429);
      expect(logInElsewhere.status).toBe(429);
      const session = await browser.api.GET("/dashboard/v1/session");
      expectStatus(session, 200);
      expect(session.body.user.twoFactorEnabled).toBe(false);
    });

    test("when the password change and the two-factor set-up succeed or refuse a weak new password, then nothing counts", async () => {
      const ip = newIp();
      const { browser, person } = await signedUp(server, { "x-forwarded-for": ip });

      const answers = [];
      for (let i = 0; i < failedLogIns.perEmail + 1; i++) {
        const weak = await browser.api.POST("/dashboard/v1/me/password", {
          body: { currentPassword: person.password, newPassword: "senha1234567" },
        });
        answers.push(weak.status);
      }
      const started = await browser.api.POST("/dashboard/v1/me/two-factor", {
        body: { currentPassword: person.password },
      });

      expect(answers.every((status) => status === 400)).toBe(true);
      expectStatus(started, 200);
      expect((await logIn(ip, person.email, person.password)).status).toBe(201);
    });

    test("when log-ins give the right password and wrong authenticator codes, then they count as failed log-ins: the 11th answers 429, the right code included", async () => {
      const ip = newIp();
      const { person, secret } = await withTwoFactor(server);
      for (let i = 0; i < failedLogIns.perEmail; i++) {
        const answer = await dashboardBrowser(server.baseUrl, { "x-forwarded-for": ip }).api.POST(
          "/dashboard/v1/session",
          { body: { email: person.email, password: person.password, code: "000000" } },
        );
        expect(answer.status).toBe(401);
      }

      const locked = await dashboardBrowser(server.baseUrl, { "x-forwarded-for": newIp() }).api.POST(
        "/dashboard/v1/session",
        { body: { email: person.email, password: person.password, code: codeOf(server, secret) } },
      );

      expectStatus(locked, 429);
      expect(locked.body.code).toBe("RATE_LIMITED");
    });

    test("when one IP address fails 50 log-ins over many addresses, then its next log-in answers 429, and another IP's does not", async () => {
      const { person } = await signedUp(server);
      const [ip, elsewhere] = [newIp(), newIp()];
      for (let i = 0; i < failedLogIns.perIp; i++) {
        expect((await logIn(ip, `tentativa.${i}.${Date.now()}@loja.example.com.br`, "qualquer senha")).status).toBe(
          401,
        );
      }

      const locked = await logIn(ip, person.email, person.password);
      const other = await logIn(elsewhere, person.email, person.password);

      expect(locked.status).toBe(429);
      expect(other.status).toBe(201);
    }, 60_000);
  });
}
