import { expect, test } from "vitest";
import type { Role } from "../../src/domain/identity/model.js";
import { byId, expectStatus, operatorApi, publicApi, type TestServer, testAdminToken } from "../harness.js";
import { codeOf, type DashboardBrowser, dashboardBrowser, withTwoFactor } from "../support/dashboard.js";
import { eachStore, serverOn } from "../support/stores.js";

// A production key carries only the money permissions its maker's role holds in the dashboard
// (issue 33 §1.2): a developer, refused the dashboard's withdrawals and refunds, may not make,
// change or roll a production key holding `withdrawals:write` or `refunds:write`, and so never
// withdraws through the public API. Test keys move sandbox money only and stay free. Through the
// real HTTP stack on both stores. docs/decisions/0043-production-needs-a-verified-account-and-keys-carry-their-makers-money-powers.md.

type Mode = "test" | "production";
type Permission = "withdrawals:write" | "refunds:write" | "balance:read" | "charges:write" | "withdrawals:read";
const inMode = (mode: Mode) => ({ params: { path: { mode } } });
const keyIn = (mode: Mode, id: string) => ({ params: { path: { mode, id } } });

/** Each test signs two people up with two-factor authentication (argon2id each time): on a busy machine, more than the default. */
const slow = 90_000;

const operator = (server: TestServer) => operatorApi(server.baseUrl, { token: testAdminToken });

/**
 * A verified account whose owner has two-factor authentication, and a member with `role` (also
 * with it), logged in with a code: both stepped up for the next 10 minutes.
 */
async function verifiedAccountWith(server: TestServer, role: Role) {
  const owner = await withTwoFactor(server);
  const accountId = owner.session.account.id;
  expectStatus(
    await operator(server).PATCH("/admin/v1/accounts/{id}", { ...byId(accountId), body: { verified: true } }),
    200,
  );
  const other = await withTwoFactor(server);
  const user = await server.store.read.users.getByEmail(other.person.email);
  if (!user) throw new Error("no user after sign-up");
  await server.store.transaction((tx) => tx.users.update({ ...user, accountId, role }));
  server.clock.advance(30);
  const loggedIn = async (email: string, password: string, secret: string) => {
    const browser = dashboardBrowser(server.baseUrl);
    const answer = await browser.api.POST("/dashboard/v1/session", {
      body: { email, password, code: codeOf(server, secret) },
    });
    expectStatus(answer, 201);
    return browser;
  };
  // The owner's browser is stepped up by the set-up; the member logs in again in its new account.
  return {
    accountId,
    owner: owner.browser,
    member: await loggedIn(other.person.email, other.person.password, other.secret),
  };
}

/** Creates a key in the dashboard: the answer. */
const createKey = (browser: DashboardBrowser, mode: Mode, permissions?: Permission[]) =>
  browser.api.POST("/dashboard/v1/modes/{mode}/api-keys", {
    ...inMode(mode),
    body: { name: "integracao", ...(permissions ? { permissions } : {}) },
  });

/** The production keys as the dashboard lists them. */
async function productionKeys(browser: DashboardBrowser) {
  const answer = await browser.api.GET("/dashboard/v1/modes/{mode}/api-keys", inMode("production"));
  expectStatus(answer, 200);
  return answer.body.data;
}

for (const store of eachStore("key_money_powers")) {
  store.describe(`keys carry only their maker's money powers on the ${store.name} store`, () => {
    const server = serverOn(store);

    test.each([
      { name: "withdrawals:write", permissions: ["withdrawals:write", "withdrawals:read"] as Permission[] },
      { name: "refunds:write", permissions: ["refunds:write", "charges:write"] as Permission[] },
    ])(
      "when a developer creates a production key with $name, then 403 ROLE_FORBIDDEN in Portuguese and no key exists",
      async ({ name, permissions }) => {
        const { member } = await verifiedAccountWith(server, "developer");

        const created = await createKey(member, "production", permissions);
        const keys = await productionKeys(member);

        expectStatus(created, 403);
        expect(created.body).toMatchObject({ ok: false, code: "ROLE_FORBIDDEN" });
        expect(created.body.message).toContain(name);
        expect(created.body.message).toMatch(/^Seu papel nesta conta não pode dar/);
        expect(keys).toEqual([]);
      },
      slow,
    );

    test(
      "when a developer creates a production key with the default permissions, then it holds neither withdrawals:write nor refunds:write; a test key may hold both; an owner's production key may",
      async () => {
        const { owner, member } = await verifiedAccountWith(server, "developer");

        const byDefault = await createKey(member, "production");
        const testKey = await createKey(member, "test", ["withdrawals:write", "refunds:write"]);
        const byOwner = await createKey(owner, "production", ["withdrawals:write", "refunds:write"]);

        expectStatus(byDefault, 201);
        expect(byDefault.body.permissions).not.toContain("withdrawals:write");
        expect(byDefault.body.permissions).not.toContain("refunds:write");
        expect(byDefault.body.permissions).toContain("charges:write");
        expectStatus(testKey, 201);
        expect(testKey.body.permissions).toEqual(["withdrawals:write", "refunds:write"]);
        expectStatus(byOwner, 201);
        expect(byOwner.body.permissions).toEqual(["withdrawals:write", "refunds:write"]);
      },
      slow,
    );

    test(
      "when a developer gives a production key withdrawals:write, or changes an owner's key that holds it, then 403 ROLE_FORBIDDEN and the key is unchanged; taking the permission away is allowed",
      async () => {
        const { owner, member } = await verifiedAccountWith(server, "developer");
        const own = await createKey(member, "production", ["balance:read"]);
        expectStatus(own, 201);
        const owners = await createKey(owner, "production", ["withdrawals:write", "balance:read"]);
        expectStatus(owners, 201);

        const widened = await member.api.PATCH("/dashboard/v1/modes/{mode}/api-keys/{id}", {
          ...keyIn("production", own.body.id),
          body: { permissions: ["balance:read", "withdrawals:write"] },
        });
        const loosened = await member.api.PATCH("/dashboard/v1/modes/{mode}/api-keys/{id}", {
          ...keyIn("production", owners.body.id),
          body: { dailyWithdrawLimitCents: null, allowedIps: [] },
        });
        const listed = await productionKeys(member);
        const narrowed = await member.api.PATCH("/dashboard/v1/modes/{mode}/api-keys/{id}", {
          ...keyIn("production", owners.body.id),
          body: { permissions: ["balance:read"] },
        });

        expectStatus(widened, 403);
        expect(widened.body.code).toBe("ROLE_FORBIDDEN");
        expectStatus(loosened, 403);
        expect(loosened.body.code).toBe("ROLE_FORBIDDEN");
        expect(listed.find((k) => k.id === own.body.id)?.permissions).toEqual(["balance:read"]);
        expect(listed.find((k) => k.id === owners.body.id)?.updatedAt).toBe(owners.body.updatedAt);
        expectStatus(narrowed, 200);
        expect(narrowed.body.permissions).toEqual(["balance:read"]);
      },
      slow,
    );

    test(
      "when a developer rolls an owner's production key that holds withdrawals:write, then 403 ROLE_FORBIDDEN, no secret is answered and the owner's secret still works",
      async () => {
        const { owner, member } = await verifiedAccountWith(server, "developer");
        const owners = await createKey(owner, "production", ["withdrawals:write", "balance:read"]);
        expectStatus(owners, 201);

        const rolled = await member.api.POST("/dashboard/v1/modes/{mode}/api-keys/{id}/roll", {
          ...keyIn("production", owners.body.id),
          body: { gracePeriodSeconds: 0 },
        });
        const stillWorks = await publicApi(server.baseUrl, { key: owners.body.secret }).GET("/api/v1/balance");

        expectStatus(rolled, 403);
        expect(rolled.body).toMatchObject({ ok: false, code: "ROLE_FORBIDDEN" });
        expect(rolled.body.message).toMatch(/^Seu papel nesta conta não pode renovar/);
        expect(JSON.stringify(rolled.body)).not.toContain("secret");
        expectStatus(stillWorks, 200);
      },
      slow,
    );

    test(
      "when an admin and a finance member act, then the admin makes a production key with both money permissions and finance (no key management) is refused by its role",
      async () => {
        const admin = await verifiedAccountWith(server, "admin");
        const finance = await verifiedAccountWith(server, "finance");

        const byAdmin = await createKey(admin.member, "production", ["withdrawals:write", "refunds:write"]);
        const byFinance = await createKey(finance.member, "production", ["withdrawals:write"]);

        expectStatus(byAdmin, 201);
        expectStatus(byFinance, 403);
        expect(byFinance.body.code).toBe("ROLE_FORBIDDEN");
      },
      slow,
    );
  });
}
