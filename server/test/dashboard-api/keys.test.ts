import { expect, test } from "vitest";
import { keyUseResolutionMs } from "../../src/domain/keys/index.js";
import { chargeBody, expectStatus, operatorApi, publicApi, type TestServer, testAdminToken } from "../harness.js";
import { codeOf, type DashboardBrowser, dashboardBrowser, signedUp, turnOnTwoFactor } from "../support/dashboard.js";
import { member } from "../support/members.js";
import { eachStore, serverOn } from "../support/stores.js";

// The account's API keys in the dashboard (issue 25 §2) through the real HTTP stack on both stores:
// a key made here works on the public API at once, its secret is shown once, a roll's grace lets
// both secrets in and then only the new one, a revoked key fails on its next request, its last
// use shows, production asks for a verified account and a step-up, and the role decides.

type Mode = "test" | "production";
const inMode = (mode: Mode) => ({ params: { path: { mode } } });
const keyIn = (mode: Mode, id: string) => ({ params: { path: { mode, id } } });

const operator = (server: TestServer) => operatorApi(server.baseUrl, { token: testAdminToken });

/** A new merchant's owner, signed up: its browser and account id. */
async function owner(server: TestServer) {
  const { browser, session, person } = await signedUp(server);
  return { browser, accountId: session.account.id, password: person.password };
}

/** An owner with two-factor authentication on (and stepped up for the next 10 minutes), of a verified account. */
async function verifiedOwnerWithTwoFactor(server: TestServer) {
  const { browser, accountId, password } = await owner(server);
  const { secret } = await turnOnTwoFactor(server, browser, password);
  const verified = await operator(server).PATCH("/admin/v1/accounts/{id}", {
    params: { path: { id: accountId } },
    body: { verified: true },
  });
  expectStatus(verified, 200);
  return { browser, accountId, totpSecret: secret };
}

/** A test key made in the dashboard: the answer's body (with its secret). */
async function createdKey(browser: DashboardBrowser, body: { name: string; permissions?: "balance:read"[] }) {
  const answer = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys", { ...inMode("test"), body });
  expectStatus(answer, 201);
  return answer.body;
}

/** The key `id` as the dashboard lists it. */
async function listed(browser: DashboardBrowser, mode: Mode, id: string) {
  const answer = await browser.api.GET("/dashboard/v1/modes/{mode}/api-keys", inMode(mode));
  expectStatus(answer, 200);
  return answer.body.data.find((k) => k.id === id);
}

/** A public call that needs only a valid key of the mode (`balance:read`): its status. */
const balanceStatus = async (server: TestServer, key: string) =>
  (await publicApi(server.baseUrl, { key }).GET("/api/v1/balance")).status;

/** A first page of transactions (the route admitted by its own read, `admittedByTheirRead`): its status. */
const listStatus = async (server: TestServer, key: string) =>
  (await publicApi(server.baseUrl, { key }).GET("/api/v1/transactions", { params: { query: { limit: 5 } } })).status;

for (const store of eachStore("dashboard_keys")) {
  store.describe(`dashboard API keys on the ${store.name} store`, () => {
    const server = serverOn(store);

    test("when a new user creates a test key, then it creates a charge through the public API at once, and the secret is shown only then", async () => {
      const { browser, accountId } = await owner(server);

      const created = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys", {
        ...inMode("test"),
        body: { name: "loja-backend", allowedIps: ["127.0.0.1", "::1", "::ffff:127.0.0.1"] },
      });
      expectStatus(created, 201);
      const charge = await publicApi(server.baseUrl, { key: created.body.secret }).POST("/api/v1/charges/pix", {
        body: chargeBody(),
      });
      const list = await browser.api.GET("/dashboard/v1/modes/{mode}/api-keys", inMode("test"));
      const production = await browser.api.GET("/dashboard/v1/modes/{mode}/api-keys", inMode("production"));
      const byOperator = await operator(server).GET("/admin/v1/accounts/{id}/api-keys", {
        params: { path: { id: accountId } },
      });

      expect(created.body).toMatchObject({
        name: "loja-backend",
        mode: "test",
        permissions: expect.not.arrayContaining(["withdrawals:write"]),
        dailyWithdrawLimitCents: null,
        lastUsedAt: null,
        revokedAt: null,
        previousSecretPrefix: null,
      });
      expect(created.body.secret).toMatch(/^svc_test_[A-Za-z0-9]{32}$/);
      expect(created.body.secret.startsWith(created.body.prefix)).toBe(true);
      expectStatus(charge, 201);
      expect(charge.body.livemode).toBe(false);
      expectStatus(list, 200);
      expect(list.body.data.map((k) => k.id)).toEqual([created.body.id]);
      expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
      expect(list.body.data[0]).not.toHaveProperty("secret");
      expectStatus(production, 200);
      expect(production.body.data).toEqual([]);
      // The operator's view of the same key: one object either way.
      expectStatus(byOperator, 200);
      expect(byOperator.body.data).toEqual([
        expect.objectContaining({ id: created.body.id, name: "loja-backend", prefix: created.body.prefix }),
      ]);
    });

    test("when a key is used on the public API, then the list shows when, written at most once a minute", async () => {
      const { browser, accountId } = await owner(server);
      const key = await createdKey(browser, { name: "uso" });
      const firstUse = server.clock.now().toISOString();

      expect(await balanceStatus(server, key.secret)).toBe(200);
      await expect.poll(async () => (await listed(browser, "test", key.id))?.lastUsedAt).toBe(firstUse);
      server.clock.advance(keyUseResolutionMs / 1000 - 1);
      expect(await listStatus(server, key.secret)).toBe(200);
      const withinTheMinute = (await listed(browser, "test", key.id))?.lastUsedAt;
      server.clock.advance(2);
      const laterUse = server.clock.now().toISOString();
      expect(await listStatus(server, key.secret)).toBe(200);

      expect(withinTheMinute).toBe(firstUse);
      await expect.poll(async () => (await listed(browser, "test", key.id))?.lastUsedAt).toBe(laterUse);
      // The operator's view of the same key says the same.
      const byOperator = await operator(server).GET("/admin/v1/accounts/{id}/api-keys", {
        params: { path: { id: accountId } },
      });
      expectStatus(byOperator, 200);
      expect(byOperator.body.data.find((k) => k.id === key.id)?.lastUsedAt).toBe(laterUse);
    });

    test("when a key is rolled with a grace, then both secrets work until it ends, then only the new one", async () => {
      const { browser, accountId } = await owner(server);
      const key = await createdKey(browser, { name: "rolar" });
      expect(await listStatus(server, key.secret)).toBe(200);

      // 20 minutes: within the session's idle expiry, so the same browser reads the list after it.
      const grace = 1200;
      const graceEnds = new Date(server.clock.now().getTime() + grace * 1000).toISOString();
      const rolled = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys/{id}/roll", {
        ...keyIn("test", key.id),
        body: { gracePeriodSeconds: grace },
      });
      expectStatus(rolled, 200);
      const during = {
        old: [await balanceStatus(server, key.secret), await listStatus(server, key.secret)],
        new: [await balanceStatus(server, rolled.body.secret), await listStatus(server, rolled.body.secret)],
      };
      const listedDuring = await listed(browser, "test", key.id);
      const operatorDuring = await operator(server).GET("/admin/v1/accounts/{id}/api-keys", {
        params: { path: { id: accountId } },
      });
      server.clock.advance(grace);
      const after = {
        old: [await balanceStatus(server, key.secret), await listStatus(server, key.secret)],
        new: [await balanceStatus(server, rolled.body.secret), await listStatus(server, rolled.body.secret)],
      };
      const listedAfter = await listed(browser, "test", key.id);

      expect(rolled.body).toMatchObject({ id: key.id, name: "rolar", permissions: key.permissions });
      expect(rolled.body.secret).not.toBe(key.secret);
      expect(rolled.body.secret.startsWith(rolled.body.prefix)).toBe(true);
      expect(during).toEqual({ old: [200, 200], new: [200, 200] });
      expect(listedDuring).toMatchObject({
        prefix: rolled.body.prefix,
        previousSecretPrefix: key.prefix,
        previousSecretExpiresAt: graceEnds,
      });
      expectStatus(operatorDuring, 200);
      expect(operatorDuring.body.data.find((k) => k.id === key.id)).toMatchObject({
        previousSecretPrefix: key.prefix,
        previousSecretExpiresAt: graceEnds,
      });
      expect(after).toEqual({ old: [401, 401], new: [200, 200] });
      expect(listedAfter).toMatchObject({ previousSecretPrefix: null, previousSecretExpiresAt: null });
    });

    test("when a key is rolled without a grace, or rolled again, then the secret before the newest roll alone may still work", async () => {
      const { browser } = await owner(server);
      const key = await createdKey(browser, { name: "rolar-duas-vezes" });
      const roll = (gracePeriodSeconds: number) =>
        browser.api.POST("/dashboard/v1/modes/{mode}/api-keys/{id}/roll", {
          ...keyIn("test", key.id),
          body: { gracePeriodSeconds },
        });

      const first = await roll(600);
      const second = await roll(0);
      const tooLong = await roll(86_401);

      expectStatus(first, 200);
      expectStatus(second, 200);
      expect(await balanceStatus(server, key.secret)).toBe(401);
      expect(await balanceStatus(server, first.body.secret)).toBe(401);
      expect(await balanceStatus(server, second.body.secret)).toBe(200);
      expect(second.body.previousSecretPrefix).toBeNull();
      expectStatus(tooLong, 400);
      expect(tooLong.body.code).toBe("VALIDATION_ERROR");
    });

    test("when a key is revoked, then it fails on its very next request, and cannot be rolled", async () => {
      const { browser } = await owner(server);
      const key = await createdKey(browser, { name: "revogar" });
      expect(await listStatus(server, key.secret)).toBe(200);

      const revoked = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys/{id}/revoke", keyIn("test", key.id));
      const statuses = [await listStatus(server, key.secret), await balanceStatus(server, key.secret)];
      const roll = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys/{id}/roll", {
        ...keyIn("test", key.id),
        body: { gracePeriodSeconds: 60 },
      });

      expectStatus(revoked, 200);
      expect(revoked.body.revokedAt).toBe(server.clock.now().toISOString());
      expect(statuses).toEqual([401, 401]);
      expectStatus(roll, 400);
      expect(roll.body.code).toBe("REQUEST_ERROR");
    });

    test("when a key's permissions, IP list and daily limit change, then its next request obeys them", async () => {
      const { browser } = await owner(server);
      const key = await createdKey(browser, { name: "mudar" });

      const narrowed = await browser.api.PATCH("/dashboard/v1/modes/{mode}/api-keys/{id}", {
        ...keyIn("test", key.id),
        body: { permissions: ["balance:read", "balance:read"], dailyWithdrawLimitCents: 50_000 },
      });
      const charge = await publicApi(server.baseUrl, { key: key.secret }).POST("/api/v1/charges/pix", {
        body: chargeBody(),
      });
      const balance = await balanceStatus(server, key.secret);
      const restricted = await browser.api.PATCH("/dashboard/v1/modes/{mode}/api-keys/{id}", {
        ...keyIn("test", key.id),
        body: { allowedIps: ["203.0.113.0/24"] },
      });
      const fromElsewhere = await publicApi(server.baseUrl, { key: key.secret }).GET("/api/v1/balance");
      const badIp = await browser.api.PATCH("/dashboard/v1/modes/{mode}/api-keys/{id}", {
        ...keyIn("test", key.id),
        body: { allowedIps: ["not-an-ip"] },
      });

      expectStatus(narrowed, 200);
      expect(narrowed.body).toMatchObject({ permissions: ["balance:read"], dailyWithdrawLimitCents: 50_000 });
      expectStatus(charge, 403);
      expect(charge.body.code).toBe("API_KEY_PERMISSION");
      expect(balance).toBe(200);
      expectStatus(restricted, 200);
      expect(restricted.body).toMatchObject({ allowedIps: ["203.0.113.0/24"], dailyWithdrawLimitCents: 50_000 });
      expectStatus(fromElsewhere, 403);
      expect(fromElsewhere.body.code).toBe("API_KEY_IP");
      expectStatus(badIp, 400);
      expect(badIp.body.errors).toEqual([{ path: "allowedIps.0", message: expect.any(String) }]);
    });

    test("when a key with a daily limit withdraws, then the list shows what is left today, a failed withdrawal gives its part back, and the next Brasília day starts whole", async () => {
      const { browser, person } = await signedUp(server);
      const made = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys", {
        ...inMode("test"),
        body: {
          name: "saques",
          permissions: ["charges:write", "withdrawals:write", "balance:read"],
          dailyWithdrawLimitCents: 5_000,
        },
      });
      expectStatus(made, 201);
      const api = publicApi(server.baseUrl, { key: made.body.secret });
      const noLimit = await createdKey(browser, { name: "sem-limite" });
      const charge = await api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 20_000 }) });
      expectStatus(charge, 201);
      expectStatus(
        await api.POST("/api/v1/sandbox/transactions/{id}/pay", { params: { path: { id: charge.body.id } } }),
        200,
      );
      expectStatus(await api.POST("/api/v1/sandbox/balance/release"), 200);
      const withdraw = (amountCents: number, pixKey = "loja@example.com.br") =>
        api.POST("/api/v1/withdrawals", { body: { amountCents, pixKey, pixKeyType: "EMAIL" } });

      const whole = await listed(browser, "test", made.body.id);
      const paid = await withdraw(2_000);
      const failed = await withdraw(1_000, "falha@sandbox.pix");
      const afterTwo = await listed(browser, "test", made.body.id);
      const over = await withdraw(3_500);
      const last = await withdraw(3_000);
      const spent = await listed(browser, "test", made.body.id);
      // A day later the session has lapsed: the owner logs in again.
      server.clock.advance(24 * 3600);
      const again = dashboardBrowser(server.baseUrl);
      const { email, password } = person;
      expectStatus(await again.api.POST("/dashboard/v1/session", { body: { email, password } }), 201);
      const nextDay = await listed(again, "test", made.body.id);

      expect(made.body).toMatchObject({ dailyWithdrawLimitCents: 5_000, dailyWithdrawLeftCents: 5_000 });
      expect(noLimit).toMatchObject({ dailyWithdrawLimitCents: null, dailyWithdrawLeftCents: null });
      expect(whole?.dailyWithdrawLeftCents).toBe(5_000);
      expectStatus(paid, 201);
      expectStatus(failed, 201);
      expect(failed.body.status).toBe("FAILED");
      expect(afterTwo?.dailyWithdrawLeftCents).toBe(3_000);
      expectStatus(over, 403);
      expect(over.body.code).toBe("WITHDRAW_DAILY_LIMIT");
      expectStatus(last, 201);
      expect(spent?.dailyWithdrawLeftCents).toBe(0);
      expect(nextDay?.dailyWithdrawLeftCents).toBe(5_000);
      expect((await listed(again, "test", noLimit.id))?.dailyWithdrawLeftCents).toBeNull();
    });

    test("when a viewer or finance member manages keys, then 403 ROLE_FORBIDDEN, while each may list them", async () => {
      const { browser, accountId } = await owner(server);
      const key = await createdKey(browser, { name: "da-equipe" });
      const viewer = await member(server, accountId, "viewer");
      const finance = await member(server, accountId, "finance");
      const developer = await member(server, accountId, "developer");

      const viewerCreates = await viewer.api.POST("/dashboard/v1/modes/{mode}/api-keys", {
        ...inMode("test"),
        body: { name: "do-leitor" },
      });
      const financeRevokes = await finance.api.POST(
        "/dashboard/v1/modes/{mode}/api-keys/{id}/revoke",
        keyIn("test", key.id),
      );
      const viewerList = await viewer.api.GET("/dashboard/v1/modes/{mode}/api-keys", inMode("test"));
      const developerCreates = await developer.api.POST("/dashboard/v1/modes/{mode}/api-keys", {
        ...inMode("test"),
        body: { name: "do-desenvolvedor" },
      });

      expectStatus(viewerCreates, 403);
      expect(viewerCreates.body.code).toBe("ROLE_FORBIDDEN");
      expectStatus(financeRevokes, 403);
      expect(financeRevokes.body.code).toBe("ROLE_FORBIDDEN");
      expectStatus(viewerList, 200);
      expect(viewerList.body.data.map((k) => k.id)).toEqual([key.id]);
      expectStatus(developerCreates, 201);
    });

    test("when a production key is asked or changed, then the account must be verified and the user stepped up", async () => {
      const unverified = await owner(server);
      const refused = await unverified.browser.api.POST("/dashboard/v1/modes/{mode}/api-keys", {
        ...inMode("production"),
        body: { name: "producao" },
      });
      const { browser, totpSecret } = await verifiedOwnerWithTwoFactor(server);
      server.clock.advance(601);
      const withoutStepUp = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys", {
        ...inMode("production"),
        body: { name: "producao" },
      });
      const testKey = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys", {
        ...inMode("test"),
        body: { name: "teste" },
      });
      expectStatus(
        await browser.api.POST("/dashboard/v1/session/step-up", { body: { code: codeOf(server, totpSecret) } }),
        201,
      );
      const created = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys", {
        ...inMode("production"),
        body: { name: "producao" },
      });
      expectStatus(created, 201);
      const works = await balanceStatus(server, created.body.secret);
      server.clock.advance(601);
      const rollWithoutStepUp = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys/{id}/roll", {
        ...keyIn("production", created.body.id),
        body: { gracePeriodSeconds: 60 },
      });
      const widen = { permissions: ["balance:read" as const, "withdrawals:write" as const] };
      const updateWithoutStepUp = await browser.api.PATCH("/dashboard/v1/modes/{mode}/api-keys/{id}", {
        ...keyIn("production", created.body.id),
        body: widen,
      });
      const unchanged = await listed(browser, "production", created.body.id);
      expectStatus(
        await browser.api.POST("/dashboard/v1/session/step-up", { body: { code: codeOf(server, totpSecret) } }),
        201,
      );
      const updated = await browser.api.PATCH("/dashboard/v1/modes/{mode}/api-keys/{id}", {
        ...keyIn("production", created.body.id),
        body: widen,
      });
      const revoke = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/api-keys/{id}/revoke",
        keyIn("production", created.body.id),
      );
      const otherMode = await browser.api.POST(
        "/dashboard/v1/modes/{mode}/api-keys/{id}/revoke",
        keyIn("test", created.body.id),
      );

      expectStatus(refused, 403);
      expect(refused.body.code).toBe("ACCOUNT_NOT_ACTIVE");
      expectStatus(withoutStepUp, 403);
      expect(withoutStepUp.body.code).toBe("STEP_UP_REQUIRED");
      expect(testKey.status).toBe(201);
      expect(created.body.secret).toMatch(/^svc_(?!test_)[A-Za-z0-9]{32}$/);
      expect(created.body.mode).toBe("production");
      expect(works).toBe(200);
      expectStatus(rollWithoutStepUp, 403);
      expect(rollWithoutStepUp.body.code).toBe("STEP_UP_REQUIRED");
      expectStatus(updateWithoutStepUp, 403);
      expect(updateWithoutStepUp.body.code).toBe("STEP_UP_REQUIRED");
      expect(unchanged?.permissions).not.toContain("withdrawals:write");
      expectStatus(updated, 200);
      expect(updated.body.permissions).toEqual(["balance:read", "withdrawals:write"]);
      expectStatus(revoke, 200);
      expectStatus(otherMode, 404);
    });

    test("when a key is created, changed, rolled and revoked, then each is in the audit log with who did it, and no entry holds a secret", async () => {
      const { browser } = await owner(server);
      const key = await createdKey(browser, { name: "auditada" });
      const changes = await browser.api.PATCH("/dashboard/v1/modes/{mode}/api-keys/{id}", {
        ...keyIn("test", key.id),
        body: { allowedIps: ["203.0.113.7"] },
      });
      const rolled = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys/{id}/roll", {
        ...keyIn("test", key.id),
        body: { gracePeriodSeconds: 60 },
      });
      const revoked = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys/{id}/revoke", keyIn("test", key.id));
      expectStatus(changes, 200);
      expectStatus(rolled, 200);
      expectStatus(revoked, 200);

      const log = await browser.api.GET("/dashboard/v1/audit-log", { params: { query: { limit: 100 } } });
      expectStatus(log, 200);
      const entries = log.body.data.filter((e) => e.target.id === key.id).reverse();
      const session = await browser.api.GET("/dashboard/v1/session");
      expectStatus(session, 200);

      expect(entries.map((e) => e.action)).toEqual([
        "api_key.created",
        "api_key.updated",
        "api_key.rolled",
        "api_key.revoked",
      ]);
      expect(entries.every((e) => e.actor.email === session.body.user.email && e.mode === "test")).toBe(true);
      expect(entries[1]?.changes).toEqual({ allowedIps: { from: [], to: ["203.0.113.7"] } });
      expect(entries[2]?.changes).toMatchObject({ prefix: { from: key.prefix, to: rolled.body.prefix } });
      const text = JSON.stringify(entries);
      for (const secret of [key.secret, rolled.body.secret]) expect(text).not.toContain(secret.slice(-20));
    });

    test("when another account's key is named, then 404, and the operator's keys are the dashboard's", async () => {
      const { browser, accountId } = await owner(server);
      const stranger = await owner(server);
      const byOperator = await operator(server).POST("/admin/v1/accounts/{id}/api-keys", {
        params: { path: { id: accountId } },
        body: { name: "do-operador", mode: "test" },
      });
      expectStatus(byOperator, 201);

      const seen = await listed(browser, "test", byOperator.body.id);
      const strangerRevokes = await stranger.browser.api.POST(
        "/dashboard/v1/modes/{mode}/api-keys/{id}/revoke",
        keyIn("test", byOperator.body.id),
      );
      const rolled = await browser.api.POST("/dashboard/v1/modes/{mode}/api-keys/{id}/roll", {
        ...keyIn("test", byOperator.body.id),
        body: { gracePeriodSeconds: 0 },
      });
      expectStatus(rolled, 200);
      const operatorView = await operator(server).GET("/admin/v1/accounts/{id}/api-keys", {
        params: { path: { id: accountId } },
      });

      expect(seen).toMatchObject({ name: "do-operador", prefix: byOperator.body.prefix });
      expectStatus(strangerRevokes, 404);
      expect(await balanceStatus(server, byOperator.body.secret)).toBe(401);
      expect(await balanceStatus(server, rolled.body.secret)).toBe(200);
      expectStatus(operatorView, 200);
      expect(operatorView.body.data.find((k) => k.id === byOperator.body.id)?.prefix).toBe(rolled.body.prefix);
    });
  });
}
