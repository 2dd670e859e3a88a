import { expect, test } from "vitest";
import { byId, chargeBody, expectStatus, operatorApi, publicApi, type TestServer, testAdminToken } from "./harness.js";
import { eachStore, serverOn } from "./support/stores.js";
import { signedUp } from "./support/dashboard.js";

// Money and objects of the dashboard (issue 25 §2) through the real HTTP stack on both stores: the
// user's own account in the mode of the path, with the public API's models and use cases.

/** A merchant signed up in the dashboard, with a test key made by the operator for its account. */
async function merchant(server: TestServer) {
  const { browser, session } = await signedUp(server);
  const accountId = session.account.id;
  const key = await operatorApi(server.baseUrl, { token: testAdminToken }).POST("/admin/v1/accounts/{id}/api-keys", {
    params: { path: { id: accountId } },
    body: { name: "loja", mode: "test", permissions: ["charges:write", "transactions:read", "balance:read"] },
  });
  expectStatus(key, 201);
  const api = publicApi(server.baseUrl, { key: key.body.secret });
  return { browser, accountId, api };
}

/** A paid test charge of `amountCents` in the merchant's account: its id. */
async function paidCharge(api: ReturnType<typeof publicApi>, amountCents: number) {
  const created = await api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents }) });
  expectStatus(created, 201);
  expectStatus(await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(created.body.id)), 200);
  return created.body.id;
}

for (const store of eachStore("dashboard_money")) {
  store.describe(`dashboard money and objects on the ${store.name} store`, () => {
    const server = serverOn(store);

    test("when a user reads the balance of each mode, then test mode has its paid charge pending and production is empty", async () => {
      const { browser, api } = await merchant(server);
      await paidCharge(api, 10_000);

      const testMode = await browser.api.GET("/dashboard/v1/modes/{mode}/balance", {
        params: { path: { mode: "test" } },
      });
      const production = await browser.api.GET("/dashboard/v1/modes/{mode}/balance", {
        params: { path: { mode: "production" } },
      });
      const publicBalance = await api.GET("/api/v1/balance");

      expectStatus(testMode, 200);
      expectStatus(publicBalance, 200);
      expect(testMode.body).toEqual({ ...publicBalance.body, withdrawableNowCents: 0 });
      expect(testMode.body.pendingCents).toBeGreaterThan(0);
      expect(testMode.body.livemode).toBe(false);
      expectStatus(production, 200);
      expect(production.body).toMatchObject({ availableCents: 0, pendingCents: 0, blockedCents: 0, livemode: true });
    });

    test("when the mode in the path is neither test nor production, then 400", async () => {
      const { browser } = await merchant(server);
      const answer = await browser.api.GET("/dashboard/v1/modes/{mode}/balance", {
        params: { path: { mode: "live" as "test" } },
      });
      expect(answer.status).toBe(400);
    });
  });
}
