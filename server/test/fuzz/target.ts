import { bodyOf, byId, chargeBody, publicApi, type TestServer } from "../harness.js";
import { allPermissions, createApiKey } from "../../src/domain/accounts/index.js";
import type { Account } from "../../src/domain/core/model.js";
import type { ClientInfo } from "../../src/domain/identity/model.js";
import type { FuzzCredential, FuzzTarget } from "./fuzzer.js";

/** Records `id` under its prefix (`txn_…` under `txn`). */
const remember = (ids: Map<string, string[]>, id: string) => {
  const prefix = id.split("_")[0]!;
  ids.set(prefix, [...(ids.get(prefix) ?? []), id]);
};

/**
 * Something in the test mode of the account of `testKey` (every permission) to fuzz: a customer,
 * charges (some paid and released), a withdrawal and payment links, so generated requests can
 * name real objects. Answers their ids, by prefix.
 */
async function objectsOf(server: TestServer, testKey: string): Promise<Map<string, string[]>> {
  const api = publicApi(server.baseUrl, { key: testKey });
  const ids = new Map<string, string[]>();
  const customer = await bodyOf(
    api.POST("/api/v1/customers", { body: { name: "Maria da Silva", document: "52998224725" } }),
    201,
  );
  remember(ids, customer.id);
  for (let i = 0; i < 3; i++) {
    const charge = await bodyOf(
      api.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 10_000 + i }) }),
      201,
    );
    remember(ids, charge.id);
    if (i < 2) await bodyOf(api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id)), 200);
  }
  server.clock.advance(3 * 86_400);
  const withdrawal = await bodyOf(
    api.POST("/api/v1/withdrawals", {
      body: { amountCents: 1000, pixKey: "maria.santos@example.com.br", pixKeyType: "EMAIL" },
    }),
    201,
  );
  remember(ids, withdrawal.id);
  for (let i = 0; i < 2; i++) {
    const link = await bodyOf(
      api.POST("/api/v1/payment-links", { body: { description: "Curso de fotografia", amountCents: 2500 } }),
      201,
    );
    remember(ids, link.id);
  }
  return ids;
}

/**
 * The public API's fuzz target: an account with objects, and its keys: test (every permission),
 * live, and a read-only test key.
 */
export async function prepareTarget(name: string, server: TestServer): Promise<FuzzTarget> {
  const account = await server.newAccount();
  const readOnly = await account.addKey({ permissions: ["transactions:read"] });
  const ids = await objectsOf(server, account.testKey);
  const key = (secret: string | null): Record<string, string> => (secret ? { "x-api-key": secret } : {});
  const keys: Record<FuzzCredential, Record<string, string>> = {
    test: key(account.testKey),
    live: key(account.liveKey),
    readOnly: key(readOnly.secret),
    none: {},
    garbage: key("sk_test_doesnotexist000000000000"),
    noCsrf: key(account.testKey),
  };
  return { name, baseUrl: server.baseUrl, document: "public", headers: (c) => keys[c], checkout: true, ids };
}

/** A test key of every permission for `account`, made as the operator would. */
async function testKeyOf(server: TestServer, account: Account): Promise<string> {
  const at = server.clock.now().toISOString();
  const created = await server.store.transaction((tx) =>
    createApiKey(tx, account, { name: "fuzz", livemode: false, permissions: [...allPermissions] }, at),
  );
  return created.secret;
}

/** The password of the dashboard fuzz target's people: not the document's example, which the fuzzer sends. */
const password = "senha do alvo de fuzz 2026";
const client: ClientInfo = { ip: "127.0.0.1", userAgent: "fuzz" };

/**
 * The dashboard's fuzz target: a merchant signed up (its owner's session), a viewer of the same
 * account (a second person moved into it with the role `viewer`, as an invitation would), and the
 * account's test mode holding charges, a withdrawal, links and a customer. Sessions are opened
 * through the domain, not through log-in: the fuzzer's own failed log-ins soon exhaust the
 * address's and the IP's budget (429), and a generated log-out or password change ends them, so
 * `renew` opens them again the same way.
 */
export async function prepareDashboardTarget(name: string, server: TestServer): Promise<FuzzTarget> {
  const stamp = `${process.pid}.${Date.now()}`;
  const ownerEmail = `dono.fuzz.${stamp}@loja.example.com.br`;
  const viewerEmail = `leitor.fuzz.${stamp}@loja.example.com.br`;
  const owner = await server.domain.users.signUp(
    { name: "Dona Fuzz", email: ownerEmail, password, businessName: "Loja Fuzz Ltda" },
    client,
  );
  const other = await server.domain.users.signUp(
    { name: "Leitor Fuzz", email: viewerEmail, password, businessName: "Conta Provisória Ltda" },
    client,
  );
  await server.store.transaction((tx) =>
    tx.users.update({ ...other.user, accountId: owner.account.id, role: "viewer" }),
  );
  const ids = await objectsOf(server, await testKeyOf(server, owner.account));
  const sessions = { owner: { token: owner.token, csrf: owner.csrfToken }, viewer: { token: "", csrf: "" } };
  const open = async (who: "owner" | "viewer") => {
    const started = await server.domain.sessions.logIn(
      { email: who === "owner" ? ownerEmail : viewerEmail, password },
      client,
    );
    sessions[who] = { token: started.token, csrf: started.csrfToken };
  };
  await open("viewer");
  const session = (who: "owner" | "viewer", csrf: boolean): Record<string, string> => ({
    cookie: `__Host-pix_session=${sessions[who].token}`,
    ...(csrf ? { "x-csrf-token": sessions[who].csrf } : {}),
  });
  const renewing = new Map<string, Promise<void>>();
  return {
    name,
    baseUrl: server.baseUrl,
    document: "dashboard",
    headers: (credential) => {
      switch (credential) {
        case "test":
        case "live":
          return session("owner", true);
        case "readOnly":
          return session("viewer", true);
        case "noCsrf":
          return session("owner", false);
        case "none":
          return {};
        case "garbage":
          return { cookie: "__Host-pix_session=sessaoquenuncafoiaberta0000000000000000000000", "x-csrf-token": "x" };
      }
    },
    async renew(credential) {
      const who = credential === "readOnly" ? "viewer" : "owner";
      // Several requests in flight learn of the ended session at once: one log-in serves them all.
      const pending = renewing.get(who) ?? open(who).finally(() => renewing.delete(who));
      renewing.set(who, pending);
      await pending;
    },
    checkout: false,
    ids,
  };
}
