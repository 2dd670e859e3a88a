import { expect, test } from "vitest";
import { byOperator, hiddenSecret, recordAudit } from "../../src/domain/audit/index.js";
import { byId, chargeBody, expectStatus, operatorApi, publicApi, testAdminToken } from "../harness.js";
import { expectNoSecretInAuditLog, rememberSecret } from "../support/audit.js";
import { addMember, codeOf, dashboardBrowser, signedUp, withTwoFactor } from "../support/dashboard.js";
import { eachStore, serverOn } from "../support/stores.js";

// The account's audit log (issue 25) through the real HTTP stack on both stores: the dashboard's own
// security changes and every change of the operator API are written with who, when, from where and
// what changed, read by owners and admins only, newest first with filters and cursors, and never
// hold a secret. Requests come through one trusted proxy hop, each from an address of its own.

let hosts = 0;
const newIp = () => `198.19.${Math.floor(++hosts / 250)}.${(hosts % 250) + 1}`;

for (const store of eachStore("dashboard_audit")) {
  store.describe(`dashboard audit log on the ${store.name} store`, () => {
    const server = serverOn(store, { trustProxy: 1, allowLocalWebhooks: true });
    const operator = () => operatorApi(server.baseUrl, { token: testAdminToken, headers: { "x-forwarded-for": ip } });
    const ip = newIp();

    test("when a user changes its own security, then each change is an entry by that user, from its address, newest first", async () => {
      const address = newIp();
      const { browser, person, secret } = await withTwoFactor(server);
      browser.headers["x-forwarded-for"] = address;
      const session = await browser.api.GET("/dashboard/v1/session");
      expectStatus(session, 200);
      const { user } = session.body;

      expectStatus(await browser.api.POST("/dashboard/v1/me/two-factor/recovery-codes"), 200);
      expectStatus(
        await browser.api.PATCH("/dashboard/v1/account/security", { body: { requireTwoFactor: true } }),
        200,
      );
      expectStatus(
        await browser.api.PATCH("/dashboard/v1/account/security", { body: { requireTwoFactor: false } }),
        200,
      );
      expectStatus(await browser.api.DELETE("/dashboard/v1/me/two-factor"), 204);
      server.clock.advance(30);
      const newPassword = "outra frase longa e secreta";
      rememberSecret(newPassword, secret);
      expectStatus(
        await browser.api.POST("/dashboard/v1/me/password", {
          body: { currentPassword: person.password, newPassword },
        }),
        204,
      );

      const log = await browser.api.GET("/dashboard/v1/audit-log");
      expectStatus(log, 200);
      expect(log.body.data.map((e) => e.action)).toEqual([
        "user.password_changed",
        "user.two_factor_disabled",
        "account.security_updated",
        "account.security_updated",
        "user.recovery_codes_regenerated",
        "user.two_factor_enabled",
      ]);
      expect(log.body.hasMore).toBe(false);
      for (const entry of log.body.data) {
        expect(entry.actor).toEqual({ type: "user", userId: user.id, email: user.email });
        expect(entry.mode).toBeNull();
      }
      expect(log.body.data.slice(0, 5).every((e) => e.ip === address)).toBe(true);
      expect(log.body.data[3]).toMatchObject({
        target: { type: "account", id: session.body.account.id },
        changes: { requireTwoFactor: { from: false, to: true } },
      });
      expect(log.body.data[0]).toMatchObject({ target: { type: "user", id: user.id }, changes: {} });
      expect(log.body.data[5]?.changes).toEqual({ twoFactorEnabled: { from: false, to: true } });
    });

    test("when the log is paged and filtered, then cursors, the action and the dates select as in every list", async () => {
      const { browser, secret } = await withTwoFactor(server);
      const before = server.clock.now().toISOString();
      for (let i = 0; i < 3; i++) {
        server.clock.advance(60);
        const steppedUp = await browser.api.POST("/dashboard/v1/session/step-up", {
          body: { code: codeOf(server, secret) },
        });
        expectStatus(steppedUp, 201);
        expectStatus(await browser.api.POST("/dashboard/v1/me/two-factor/recovery-codes"), 200);
      }

      const first = await browser.api.GET("/dashboard/v1/audit-log", { params: { query: { limit: 2 } } });
      expectStatus(first, 200);
      const second = await browser.api.GET("/dashboard/v1/audit-log", {
        params: { query: { limit: 2, startingAfter: first.body.data[1]?.id } },
      });
      expectStatus(second, 200);
      const regenerated = await browser.api.GET("/dashboard/v1/audit-log", {
        params: { query: { action: "user.recovery_codes_regenerated", createdFrom: before } },
      });
      const enabledBefore = await browser.api.GET("/dashboard/v1/audit-log", {
        params: { query: { createdTo: before } },
      });
      const badCursor = await browser.api.GET("/dashboard/v1/audit-log", {
        params: { query: { startingAfter: "aud_naoexiste" } },
      });
      const badAction = await browser.api.GET("/dashboard/v1/audit-log", {
        params: { query: { action: "user.flew_away" as "user.password_changed" } },
      });

      expect(first.body.hasMore).toBe(true);
      expect([...first.body.data, ...second.body.data].map((e) => e.action)).toEqual([
        "user.recovery_codes_regenerated",
        "user.recovery_codes_regenerated",
        "user.recovery_codes_regenerated",
        "user.two_factor_enabled",
      ]);
      expect(second.body.hasMore).toBe(false);
      expectStatus(regenerated, 200);
      expect(regenerated.body.data).toHaveLength(3);
      expectStatus(enabledBefore, 200);
      expect(enabledBefore.body.data.map((e) => e.action)).toEqual(["user.two_factor_enabled"]);
      expectStatus(badCursor, 400);
      expect(badCursor.body.errors?.[0]?.path).toBe("startingAfter");
      expectStatus(badAction, 400);
    });

    test("when a user logs in from an address none of its sessions came from, then that log-in is recorded, and only that one", async () => {
      const home = newIp();
      const { browser, person } = await signedUp(server, { "x-forwarded-for": home });
      const logInFrom = async (address: string) =>
        expectStatus(
          await dashboardBrowser(server.baseUrl, { "x-forwarded-for": address }).api.POST("/dashboard/v1/session", {
            body: { email: person.email, password: person.password },
          }),
          201,
        );
      const travel = newIp();

      await logInFrom(home);
      await logInFrom(travel);
      await logInFrom(travel);

      const log = await browser.api.GET("/dashboard/v1/audit-log");
      expectStatus(log, 200);
      expect(log.body.data).toHaveLength(1);
      expect(log.body.data[0]).toMatchObject({
        action: "user.logged_in_from_new_ip",
        ip: travel,
        actor: { type: "user", email: person.email },
        target: { type: "user" },
      });
    });

    test("when the operator changes an account, its keys and its endpoints, then each change is an entry by the operator with what changed and no secret", async () => {
      const { browser, session } = await signedUp(server);
      const accountId = session.account.id;
      const api = operator();

      const verified = await api.PATCH("/admin/v1/accounts/{id}", {
        ...byId(accountId),
        body: { verified: true, plan: { chargeFeeBps: 99 }, releasePeriodDays: 2 },
      });
      const unchanged = await api.PATCH("/admin/v1/accounts/{id}", { ...byId(accountId), body: { verified: true } });
      const key = await api.POST("/admin/v1/accounts/{id}/api-keys", {
        ...byId(accountId),
        body: { name: "loja online", mode: "production", permissions: ["transactions:read"] },
      });
      expectStatus(key, 201);
      rememberSecret(key.body.secret);
      const keyChanged = await api.PATCH("/admin/v1/api-keys/{id}", {
        ...byId(key.body.id),
        body: { allowedIps: ["203.0.113.0/24"], dailyWithdrawLimitCents: 100000 },
      });
      const revoked = await api.POST("/admin/v1/api-keys/{id}/revoke", byId(key.body.id));
      const endpoint = await api.POST("/admin/v1/accounts/{id}/webhook-endpoints", {
        ...byId(accountId),
        body: { url: "http://127.0.0.1:9/webhooks/pix", mode: "test", events: ["transaction.paid"] },
      });
      expectStatus(endpoint, 201);
      rememberSecret(endpoint.body.secret);
      const endpointChanged = await api.PATCH("/admin/v1/webhook-endpoints/{id}", {
        ...byId(endpoint.body.id),
        body: { enabled: false },
      });
      const rotated = await api.POST("/admin/v1/webhook-endpoints/{id}/rotate-secret", byId(endpoint.body.id));
      expectStatus(rotated, 200);
      rememberSecret(rotated.body.secret);
      const deleted = await api.DELETE("/admin/v1/webhook-endpoints/{id}", byId(endpoint.body.id));

      for (const answer of [verified, unchanged, keyChanged, revoked, endpointChanged]) expect(answer.status).toBe(200);
      expect(deleted.status).toBe(204);
      const log = await browser.api.GET("/dashboard/v1/audit-log");
      expectStatus(log, 200);
      expect(log.body.data.map((e) => [e.action, e.target.type, e.mode])).toEqual([
        ["webhook_endpoint.deleted", "webhook_endpoint", "test"],
        ["webhook_endpoint.secret_rotated", "webhook_endpoint", "test"],
        ["webhook_endpoint.updated", "webhook_endpoint", "test"],
        ["webhook_endpoint.created", "webhook_endpoint", "test"],
        ["api_key.revoked", "api_key", "production"],
        ["api_key.updated", "api_key", "production"],
        ["api_key.created", "api_key", "production"],
        ["account.updated", "account", null],
      ]);
      for (const entry of log.body.data) {
        expect(entry.actor).toEqual({ type: "operator", userId: null, email: null });
        expect(entry.ip).toBe(ip);
      }
      const byAction = Object.fromEntries(log.body.data.map((e) => [e.action, e]));
      expect(byAction["account.updated"]?.changes).toEqual({
        verified: { from: false, to: true },
        plan: {
          from: { chargeFeeCents: 80, chargeFeeBps: 0, withdrawFeeCents: 80 },
          to: { chargeFeeCents: 80, chargeFeeBps: 99, withdrawFeeCents: 80 },
        },
        releasePeriodDays: { from: 1, to: 2 },
      });
      expect(byAction["api_key.created"]?.changes).toMatchObject({
        name: { from: null, to: "loja online" },
        permissions: { from: null, to: ["transactions:read"] },
      });
      expect(byAction["api_key.updated"]?.changes).toEqual({
        allowedIps: { from: [], to: ["203.0.113.0/24"] },
        dailyWithdrawLimitCents: { from: null, to: 100000 },
      });
      expect(byAction["webhook_endpoint.updated"]?.changes).toEqual({ enabled: { from: true, to: false } });
      expect(byAction["webhook_endpoint.secret_rotated"]?.changes).toEqual({});
      expect(byAction["webhook_endpoint.deleted"]?.changes).toMatchObject({
        url: { from: "http://127.0.0.1:9/webhooks/pix", to: null },
      });
      expect(JSON.stringify(log.body)).not.toContain(key.body.secret);
    });

    test("when the operator's settlement simulator moves a production charge, then each move is an entry by the operator in production", async () => {
      const { browser, session } = await signedUp(server);
      const api = operator();
      expectStatus(
        await api.PATCH("/admin/v1/accounts/{id}", {
          ...byId(session.account.id),
          body: { verified: true, releasePeriodDays: 0 },
        }),
        200,
      );
      const key = await api.POST("/admin/v1/accounts/{id}/api-keys", {
        ...byId(session.account.id),
        body: { name: "produção", mode: "production" },
      });
      expectStatus(key, 201);
      rememberSecret(key.body.secret);
      const charge = await publicApi(server.baseUrl, { key: key.body.secret }).POST("/api/v1/charges/pix", {
        body: chargeBody({ amountCents: 10_000 }),
      });
      expectStatus(charge, 201);
      const from = server.clock.advance(1).toISOString();

      expectStatus(await api.POST("/admin/v1/simulator/transactions/{id}/pay", byId(charge.body.id)), 200);
      const opened = await api.POST("/admin/v1/simulator/transactions/{id}/disputes", {
        ...byId(charge.body.id),
        body: { amountCents: 5000 },
      });
      expectStatus(opened, 201);
      const disputeId = opened.body.dispute?.id ?? "";
      expectStatus(
        await api.POST("/admin/v1/simulator/disputes/{id}/close", { ...byId(disputeId), body: { outcome: "WON" } }),
        200,
      );

      const log = await browser.api.GET("/dashboard/v1/audit-log", { params: { query: { createdFrom: from } } });
      expectStatus(log, 200);
      expect(log.body.data.map((e) => [e.action, e.target.type, e.target.id, e.mode, e.actor.type])).toEqual([
        ["simulator.dispute_closed", "dispute", disputeId, "production", "operator"],
        ["simulator.dispute_opened", "transaction", charge.body.id, "production", "operator"],
        ["simulator.charge_paid", "transaction", charge.body.id, "production", "operator"],
      ]);
      expect(log.body.data[2]?.changes.status).toEqual({ from: "WAITING_PAYMENT", to: "PAID" });
      expect(log.body.data[1]?.changes.dispute).toMatchObject({
        from: null,
        to: { status: "OPEN", amountCents: 5000 },
      });
    });

    test("when a developer, finance or viewer member reads the log, then 403 ROLE_FORBIDDEN; an admin reads it", async () => {
      const { session } = await signedUp(server);
      const answers: Record<string, number> = {};
      for (const role of ["developer", "finance", "viewer", "admin"] as const) {
        const member = await addMember(server, session.account.id, role);
        const browser = dashboardBrowser(server.baseUrl);
        expectStatus(
          await browser.api.POST("/dashboard/v1/session", { body: { email: member.email, password: member.password } }),
          201,
        );
        const log = await browser.api.GET("/dashboard/v1/audit-log");
        answers[role] = log.status;
        if (log.status === 403) expect(log.body).toMatchObject({ code: "ROLE_FORBIDDEN" });
      }

      expect(answers).toEqual({ developer: 403, finance: 403, viewer: 403, admin: 200 });
    });

    test("when another account's owner reads the log, then it sees none of this account's entries", async () => {
      const one = await withTwoFactor(server);
      const other = await signedUp(server);

      const log = await other.browser.api.GET("/dashboard/v1/audit-log");

      expectStatus(log, 200);
      expect(log.body.data).toEqual([]);
      expect((await one.browser.api.GET("/dashboard/v1/audit-log")).status).toBe(200);
    });

    test("when a change names a secret's field, then its values are written as hidden, whoever passes them", async () => {
      const { browser, session } = await signedUp(server);
      const secret = "whsec_c2VncmVkb19kZV90ZXN0ZV9kb19hdWRpdA==";
      rememberSecret(secret);

      await server.store.transaction((tx) =>
        recordAudit(tx, {
          accountId: session.account.id,
          by: byOperator("192.0.2.1"),
          action: "webhook_endpoint.secret_rotated",
          target: { type: "webhook_endpoint", id: "we_0Vbw1HJd000HD6aQ5EaE" },
          changes: { secret: { from: secret, to: secret }, webhookSecretNew: { from: null, to: secret } },
          at: server.clock.now().toISOString(),
        }),
      );

      const log = await browser.api.GET("/dashboard/v1/audit-log");
      expectStatus(log, 200);
      expect(log.body.data[0]?.changes).toEqual({
        secret: { from: hiddenSecret, to: hiddenSecret },
        webhookSecretNew: { from: hiddenSecret, to: hiddenSecret },
      });
    });

    test("when every entry this file's server wrote is read, then none holds a secret", async () => {
      expect(await expectNoSecretInAuditLog(server)).toBeGreaterThan(20);
    });
  });
}
