import { createHash } from "node:crypto";
import { expect, test } from "vitest";
import { eachStore, serverOn } from "../support/stores.js";
import { dashboardBrowser, lastLinkToken, newPerson, signedUp, testOrigin } from "../support/dashboard.js";
import { expectStatus } from "../harness.js";

// The dashboard's people (issue 25) through the real HTTP stack on both stores: sign-up, log-in,
// sessions (cookie, CSRF, expiry, revocation), password change and reset, e-mail confirmation.

for (const store of eachStore("dashboard_sessions")) {
  store.describe(`dashboard sessions on the ${store.name} store`, () => {
    const server = serverOn(store);

    test("when a person signs up, then a session cookie is set, the account is its own in test mode and a confirmation link is e-mailed", async () => {
      const browser = dashboardBrowser(server.baseUrl);
      const person = newPerson({ email: `Maria.Caixa.${Date.now()}@Loja.Example.com.br` });

      const answer = await browser.api.POST("/dashboard/v1/sign-up", { body: person });

      expectStatus(answer, 201);
      expect(browser.lastSetCookie).toMatch(
        /^__Host-pix_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Strict; Max-Age=43200$/,
      );
      const email = person.email.toLowerCase();
      expect(answer.body.user).toMatchObject({ email, role: "owner", emailConfirmed: false, name: "Maria Souza" });
      expect(answer.body.account).toMatchObject({ name: "Loja Exemplo Ltda", verified: false });
      const session = await browser.api.GET("/dashboard/v1/session");
      expectStatus(session, 200);
      expect(session.body.user.id).toBe(answer.body.user.id);
      expect(session.body.csrfToken).toBe(answer.body.csrfToken);
      expect(server.mail.filter((m) => m.to === email).map((m) => m.subject)).toEqual(["Confirme seu e-mail"]);
    });

    test("when a session starts, then its stored row holds neither the cookie's token nor the CSRF token, and the CSRF token the answer gave admits a change", async () => {
      const browser = dashboardBrowser(server.baseUrl);
      const answer = await browser.api.POST("/dashboard/v1/sign-up", { body: newPerson() });
      expectStatus(answer, 201);
      const cookie = browser.cookie;
      if (!cookie) throw new Error("sign-up sets the session cookie");
      const token = cookie;

      const stored = await server.store.read.sessions.getByTokenDigest(
        createHash("sha256").update(token).digest("hex"),
      );
      const forged = await dashboardBrowser(server.baseUrl).api.GET("/dashboard/v1/session");
      const change = await browser.api.PATCH("/dashboard/v1/me", { body: { name: "Maria Caixa" } });

      expect(stored).not.toBeNull();
      expect(JSON.stringify(stored)).not.toContain(answer.body.csrfToken);
      expect(JSON.stringify(stored)).not.toContain(token);
      expect(answer.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expectStatus(forged, 401);
      expectStatus(change, 200);
    });

    test("when the confirmation link's token is sent, then the address is confirmed, and the token works once", async () => {
      const { browser, person } = await signedUp(server, {}, { confirmEmail: false });
      const token = lastLinkToken(server, person.email);

      const confirmed = await dashboardBrowser(server.baseUrl).api.POST("/dashboard/v1/email-confirmations", {
        body: { token },
      });
      const again = await dashboardBrowser(server.baseUrl).api.POST("/dashboard/v1/email-confirmations", {
        body: { token },
      });

      expectStatus(confirmed, 204);
      expectStatus(again, 400);
      expect(again.body).toMatchObject({ code: "REQUEST_ERROR", message: "Link inválido, já usado ou expirado." });
      const session = await browser.api.GET("/dashboard/v1/session");
      expectStatus(session, 200);
      expect(session.body.user.emailConfirmed).toBe(true);
    });

    test.each([
      { name: "an address that has a user (in other capitals)", change: "email", code: 409, error: "EMAIL_TAKEN" },
      { name: "a common password", change: "password", code: 400, error: "VALIDATION_ERROR" },
    ])(
      "when signing up with $name, then it is refused with $error and nothing is created",
      async ({ change, code, error }) => {
        const first = await signedUp(server);
        const person =
          change === "email"
            ? newPerson({ email: first.person.email.toUpperCase(), password: "uma outra frase de senha" })
            : newPerson({ password: "Flamengo2026!" });
        const browser = dashboardBrowser(server.baseUrl);

        const answer = await browser.api.POST("/dashboard/v1/sign-up", { body: person });

        expect(answer.status).toBe(code);
        expect(answer.body).toMatchObject({ ok: false, code: error });
        expect(browser.cookie).toBeNull();
        const logIn = await browser.api.POST("/dashboard/v1/session", {
          body: { email: person.email, password: person.password },
        });
        expect(logIn.status).toBe(401);
      },
    );

    // At OWASP's hash cost, on a server of its own: at the tests' minimal cost a verification is
    // 0.2 ms, below the noise of a loaded machine, and the comparison could not tell. The work is
    // this process's CPU (the server is in it; argon2id's threads count): a clean-clone run's
    // wall-clock medians once differed 3.5x on a loaded machine for the same work.
    const owaspServer = serverOn(store, { passwordHashCost: "owasp" });
    test("when a wrong password and an unknown address log in, then both answer the same 401, after the same work", async () => {
      const server = owaspServer;
      const { person } = await signedUp(server);
      const timed = async (email: string) => {
        const started = process.cpuUsage();
        const answer = await dashboardBrowser(server.baseUrl).api.POST("/dashboard/v1/session", {
          body: { email, password: "uma senha errada qualquer" },
        });
        const used = process.cpuUsage(started);
        return { answer, ms: (used.user + used.system) / 1000 };
      };
      const runs = async (email: string) => {
        const all = [];
        for (let i = 0; i < 5; i++) all.push(await timed(email));
        return all;
      };

      const wrong = await runs(person.email);
      const unknown = await runs(`ninguem.${Date.now()}@loja.example.com.br`);

      const strip = (body: unknown) => ({ ...(body as object), timestamp: undefined });
      for (const { answer } of [...wrong, ...unknown]) {
        expectStatus(answer, 401);
        expect(strip(answer.body)).toEqual(strip(wrong[0]!.answer.body));
      }
      expect(wrong[0]!.answer.body).toMatchObject({
        code: "INVALID_CREDENTIALS",
        message: "E-mail ou senha incorretos.",
      });
      const median = (xs: { ms: number }[]) => xs.map((x) => x.ms).sort((a, b) => a - b)[2]!;
      // Without the verification of a stand-in hash, an unknown address costs about a millisecond
      // of CPU and a wrong password argon2id's 16 ms or more.
      expect(median(unknown) / median(wrong)).toBeGreaterThan(1 / 2);
      expect(median(unknown) / median(wrong)).toBeLessThan(3);
    });

    test("when a user logs in, then the session is new (another cookie, another CSRF token) and both are listed", async () => {
      const { browser: first, person } = await signedUp(server);
      const second = dashboardBrowser(server.baseUrl, { "user-agent": "segundo navegador" });

      const logIn = await second.api.POST("/dashboard/v1/session", {
        body: { email: person.email, password: person.password },
      });

      expectStatus(logIn, 201);
      expect(second.cookie).not.toBeNull();
      expect(second.cookie).not.toBe(first.cookie);
      expect(logIn.body.csrfToken).not.toBe(first.csrf);
      const list = await second.api.GET("/dashboard/v1/sessions");
      expectStatus(list, 200);
      expect(list.body.data.map((s) => [s.current, s.userAgent])).toEqual([
        [true, "segundo navegador"],
        [false, expect.any(String)],
      ]);
    });

    test("when one session ends another, then the ended one answers 401 on its very next request", async () => {
      const { browser: first, person } = await signedUp(server);
      const second = dashboardBrowser(server.baseUrl);
      await second.api.POST("/dashboard/v1/session", { body: { email: person.email, password: person.password } });
      const list = await second.api.GET("/dashboard/v1/sessions");
      expectStatus(list, 200);
      const other = list.body.data.find((s) => !s.current)!;

      const ended = await second.api.DELETE("/dashboard/v1/sessions/{id}", { params: { path: { id: other.id } } });

      expectStatus(ended, 204);
      const next = await first.api.GET("/dashboard/v1/session");
      expectStatus(next, 401);
      expect(next.body).toMatchObject({
        code: "UNAUTHORIZED",
        message: "Sessão ausente, expirada ou encerrada. Entre novamente.",
      });
      expect((await second.api.GET("/dashboard/v1/session")).status).toBe(200);
      const foreign = await signedUp(server);
      const notMine = await foreign.browser.api.DELETE("/dashboard/v1/sessions/{id}", {
        params: { path: { id: list.body.data.find((s) => s.current)!.id } },
      });
      expect(notMine.status).toBe(404);
      expect((await second.api.GET("/dashboard/v1/session")).status).toBe(200);
    });

    test.each([
      { name: "without x-csrf-token", headers: { "x-csrf-token": "" } },
      { name: "with another session's x-csrf-token", headers: { "x-csrf-token": "other" } },
      { name: "from another site's Origin", headers: { origin: "https://attacker.example" } },
      { name: "that a browser says is cross-site", headers: { "sec-fetch-site": "cross-site" } },
    ])("when a change comes $name, then 403 CSRF_REFUSED and nothing changes", async ({ headers }) => {
      const { browser } = await signedUp(server);
      const other = await signedUp(server);
      const sent = { ...headers };
      if (sent["x-csrf-token"] === "other") sent["x-csrf-token"] = other.browser.csrf!;

      const answer = await browser.api.DELETE("/dashboard/v1/session", { headers: sent });

      expectStatus(answer, 403);
      expect(answer.body).toMatchObject({ code: "CSRF_REFUSED" });
      expect((await browser.api.GET("/dashboard/v1/session")).status).toBe(200);
    });

    test("when a user logs out, then the cookie is cleared and the session no longer works", async () => {
      const { browser } = await signedUp(server);
      const cookie = browser.cookie;

      const answer = await browser.api.DELETE("/dashboard/v1/session");

      expectStatus(answer, 204);
      expect(browser.lastSetCookie).toBe("__Host-pix_session=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0");
      browser.cookie = cookie;
      expect((await browser.api.GET("/dashboard/v1/session")).status).toBe(401);
    });

    test("when a session sees no request for 30 minutes, or lasts 12 hours, then it ends", async () => {
      const idle = await signedUp(server);
      server.clock.advance(29 * 60);
      expect((await idle.browser.api.GET("/dashboard/v1/session")).status).toBe(200);
      server.clock.advance(30 * 60 + 1);
      const afterIdle = await idle.browser.api.GET("/dashboard/v1/session");
      const busy = await signedUp(server);
      for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
        server.clock.advance(20 * 60);
        expect((await busy.browser.api.GET("/dashboard/v1/session")).status).toBe(200);
      }
      server.clock.advance(20 * 60);
      const afterAbsolute = await busy.browser.api.GET("/dashboard/v1/session");

      expect(afterIdle.status).toBe(401);
      expect(afterAbsolute.status).toBe(401);
    });

    test("when the password changes, then the other sessions end, this one goes on, and only the new password logs in", async () => {
      const { browser, person } = await signedUp(server);
      const other = dashboardBrowser(server.baseUrl);
      await other.api.POST("/dashboard/v1/session", { body: { email: person.email, password: person.password } });
      const newPassword = "uma nova frase bem comprida";

      const wrong = await browser.api.POST("/dashboard/v1/me/password", {
        body: { currentPassword: "não é esta a senha", newPassword },
      });
      const changed = await browser.api.POST("/dashboard/v1/me/password", {
        body: { currentPassword: person.password, newPassword },
      });

      expectStatus(wrong, 400);
      expect(wrong.body.errors).toEqual([{ path: "currentPassword", message: "não confere com a senha atual" }]);
      expectStatus(changed, 204);
      expect((await other.api.GET("/dashboard/v1/session")).status).toBe(401);
      expect((await browser.api.GET("/dashboard/v1/session")).status).toBe(200);
      const login = (password: string) =>
        dashboardBrowser(server.baseUrl).api.POST("/dashboard/v1/session", { body: { email: person.email, password } });
      expect((await login(person.password)).status).toBe(401);
      expect((await login(newPassword)).status).toBe(201);
    });

    test("when a reset is asked, then an unknown address and a known one answer alike, and the link sets a new password once, ending every session", async () => {
      const { browser, person } = await signedUp(server);
      const anonymous = dashboardBrowser(server.baseUrl);
      const before = server.mail.length;

      const unknown = await anonymous.api.POST("/dashboard/v1/password-resets", {
        body: { email: `ninguem.${Date.now()}@loja.example.com.br` },
      });
      const known = await anonymous.api.POST("/dashboard/v1/password-resets", { body: { email: person.email } });
      const token = lastLinkToken(server, person.email);
      const reset = await anonymous.api.POST("/dashboard/v1/password-resets/complete", {
        body: { token, password: "outra frase longa de senha" },
      });
      const reused = await anonymous.api.POST("/dashboard/v1/password-resets/complete", {
        body: { token, password: "mais uma frase longa de senha" },
      });

      expect([unknown.status, known.status]).toEqual([202, 202]);
      expect(server.mail.slice(before).map((m) => [m.to, m.subject])).toEqual([[person.email, "Redefinição de senha"]]);
      expect(reset.status).toBe(204);
      expect(reused.status).toBe(400);
      expect((await browser.api.GET("/dashboard/v1/session")).status).toBe(401);
      const login = await anonymous.api.POST("/dashboard/v1/session", {
        body: { email: person.email, password: "outra frase longa de senha" },
      });
      expectStatus(login, 201);
      expect(login.body.user.emailConfirmed).toBe(true);
    });

    test("when a reset link is older than an hour, then it is refused and the password stays", async () => {
      const { person } = await signedUp(server);
      const anonymous = dashboardBrowser(server.baseUrl);
      await anonymous.api.POST("/dashboard/v1/password-resets", { body: { email: person.email } });
      server.clock.advance(3601);

      const reset = await anonymous.api.POST("/dashboard/v1/password-resets/complete", {
        body: { token: lastLinkToken(server, person.email), password: "outra frase longa de senha" },
      });

      expect(reset.status).toBe(400);
      const login = await anonymous.api.POST("/dashboard/v1/session", {
        body: { email: person.email, password: person.password },
      });
      expect(login.status).toBe(201);
    });

    test("when a request has no session cookie, then 401 before its body is read", async () => {
      const anonymous = dashboardBrowser(server.baseUrl);

      const answer = await anonymous.api.POST("/dashboard/v1/me/password", {
        body: { currentPassword: "x", newPassword: "" } as never,
      });

      expectStatus(answer, 401);
      expect(answer.body.code).toBe("UNAUTHORIZED");
      expect(anonymous.headers.origin).toBe(testOrigin);
    });
  });
}
