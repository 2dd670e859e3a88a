import { byId, chargeBody, expectStatus, operatorApi, publicApi, type TestServer, testAdminToken } from "../harness.js";
import { signedUp } from "./dashboard.js";

// A merchant as the dashboard's tests need one: a user signed up in the dashboard (its browser,
// with the session), and public API keys for its account made by the operator, to create and pay
// charges over HTTP as an integration would.

type PublicApi = ReturnType<typeof publicApi>;

const permissions = [
  "charges:write",
  "transactions:read",
  "balance:read",
  "withdrawals:write",
  "withdrawals:read",
] as const;

export async function dashboardMerchant(server: TestServer, options: { production?: boolean } = {}) {
  const { browser, session, person } = await signedUp(server);
  const accountId = session.account.id;
  const operator = operatorApi(server.baseUrl, { token: testAdminToken });
  const keyFor = async (mode: "test" | "production") => {
    const key = await operator.POST("/admin/v1/accounts/{id}/api-keys", {
      params: { path: { id: accountId } },
      body: { name: `loja ${mode}`, mode, permissions: [...permissions] },
    });
    expectStatus(key, 201);
    return publicApi(server.baseUrl, { key: key.body.secret });
  };
  const api = await keyFor("test");
  let live: PublicApi | null = null;
  if (options.production) {
    expectStatus(
      await operator.PATCH("/admin/v1/accounts/{id}", {
        params: { path: { id: accountId } },
        body: { verified: true },
      }),
      200,
    );
    live = await keyFor("production");
  }
  /**
   * Logs in again: a session lasts 30 minutes idle and 12 hours at most by the server's clock,
   * which a test moves by days.
   */
  const logIn = async () => {
    const answer = await browser.api.POST("/dashboard/v1/session", {
      body: { email: person.email, password: person.password },
    });
    expectStatus(answer, 201);
    return browser;
  };
  return { browser, logIn, accountId, api, live, operator };
}

/** A test charge of `amountCents` (with other fields of the body when given), paid in the sandbox now. */
export async function paidTestCharge(api: PublicApi, amountCents: number, overrides: object = {}) {
  const created = await api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents, ...overrides }) });
  expectStatus(created, 201);
  expectStatus(await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(created.body.id)), 200);
  return created.body;
}
