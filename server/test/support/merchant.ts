import { byId, chargeBody, expectStatus, operatorApi, publicApi, type TestServer, testAdminToken } from "../harness.js";
import type { TransactionRecord } from "../../src/domain/core/model.js";
import { transactionRecord } from "../store/contract.js";
import { signedUp } from "./dashboard.js";

// A merchant as the dashboard's tests need one: a user signed up in the dashboard (its browser,
// with the session), and public API keys for its account made by the operator, to create and pay
// charges over HTTP as an integration would; or many charges written through the store port.

type PublicApi = ReturnType<typeof publicApi>;

const permissions = [
  "charges:write",
  "transactions:read",
  "balance:read",
  "withdrawals:write",
  "withdrawals:read",
  "payment_links:write",
] as const;

/** A user signed up in the dashboard (owner of a new account), able to log in again. */
export async function dashboardUser(server: TestServer) {
  const { browser, session, person } = await signedUp(server);
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
  return { browser, logIn, accountId: session.account.id, email: session.user.email };
}

/**
 * A member of `accountId` with `role`: a person signed up, then moved into that account with the
 * role (as accepting an invitation would) through the store port, and logged in there.
 */
export async function memberOf(
  server: TestServer,
  accountId: string,
  role: "admin" | "developer" | "finance" | "viewer",
) {
  const member = await dashboardUser(server);
  const user = await server.store.read.users.getByEmail(member.email);
  if (!user) throw new Error(`no user ${member.email} after sign-up`);
  await server.store.transaction((tx) => tx.users.update({ ...user, accountId, role }));
  await member.logIn();
  return { ...member, accountId };
}

/** A dashboard user whose account has a test key (and a production key, verified, when asked), made by the operator. */
export async function dashboardMerchant(server: TestServer, options: { production?: boolean } = {}) {
  const user = await dashboardUser(server);
  const { accountId } = user;
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
  return { ...user, api, live, operator };
}

/**
 * `count` charges of the account written straight through the store port, in one store
 * transaction, all created at the clock's now (test mode unless `livemode`): every `paidEvery`-th
 * one paid then (0: none), and `each(n)` changing the n-th. Many rows in a fraction of the time the
 * API takes to make them one by one. Their ids, in creation order.
 */
export async function storedCharges(
  server: TestServer,
  accountId: string,
  count: number,
  options: { paidEvery?: number; livemode?: boolean; each?: (n: number) => Partial<TransactionRecord> } = {},
) {
  const now = server.clock.now().toISOString();
  const { paidEvery = 0, livemode = false } = options;
  const records = Array.from({ length: count }, (_, n) => {
    const paid = paidEvery > 0 && n % paidEvery === 0;
    return transactionRecord(
      { accountId, livemode },
      {
        amountCents: 1_000 + n * 7,
        feeCents: 80,
        status: paid ? "PAID" : "WAITING_PAYMENT",
        paidAt: paid ? now : null,
        expiresAt: new Date(Date.parse(now) + 86_400_000).toISOString(),
        createdAt: now,
        updatedAt: now,
        ...options.each?.(n),
      },
    );
  });
  await server.store.transaction(async (tx) => {
    for (const record of records) await tx.transactions.insert(record);
  });
  return records.map((r) => r.id);
}

/** A test charge of `amountCents` (with other fields of the body when given), paid in the sandbox now. */
export async function paidTestCharge(api: PublicApi, amountCents: number, overrides: object = {}) {
  const created = await api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents, ...overrides }) });
  expectStatus(created, 201);
  expectStatus(await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(created.body.id)), 200);
  return created.body;
}
