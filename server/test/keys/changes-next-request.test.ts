import { afterAll, beforeAll, expect, test } from "vitest";
import type { Account, ApiKeyRecord } from "../../src/domain/core/model.js";
import { createPool, PostgresStore } from "../../src/store/postgres/index.js";
import { transactionRecord } from "../store/contract.js";
import type { paths } from "../../../generated/api.js";
import {
  bodyOf,
  chargeBody,
  type ErrorBody,
  expectStatus,
  publicApi,
  rawCall,
  startTestServer,
  type TestServer,
} from "../harness.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";
import { eachStore, serverOn } from "../support/stores.js";

// `GET /transactions` reads a first page, and `GET /transactions/{id}` the charge, in one statement
// that also confirms the caller's key unchanged since this process last read it
// (`admittedByTheirRead` in http/public/auth.ts, whose handlers the compiler gives no actor;
// `recall`, `listWhileKeyUnchanged`, `getWhileKeyUnchanged`; docs/decisions/0016-*). Each test here
// reads once so the key is recalled, changes something the key's answer depends on (revoked,
// narrowed, IP-restricted, account unverified), and reads again, in this process and in another:
// the change must apply on that very next read, as it does for every other operation.

type ListQuery = NonNullable<paths["/api/v1/transactions"]["get"]["parameters"]["query"]>;
const list = (on: TestServer, key: string | null, query: ListQuery = { limit: 20 }) =>
  publicApi(on.baseUrl, key === null ? {} : { key }).GET("/api/v1/transactions", { params: { query } });
/** A list with a query the document refuses (spelled raw): untyped. */
const rawList = (on: TestServer, key: string | null, query: string) =>
  rawCall<ErrorBody>(on.baseUrl, "GET", `/api/v1/transactions?${query}`, key === null ? {} : { key });

const withoutTimestamp = (body: Record<string, unknown>) => ({ ...body, timestamp: undefined });

/** `GET /transactions/{id}` with `key` (none: no key). */
const byId = (on: TestServer, key: string | null, id: string) =>
  publicApi(on.baseUrl, key === null ? {} : { key }).GET("/api/v1/transactions/{id}", { params: { path: { id } } });

/**
 * An account with one charge and a new test key that `firstRead` used once (so this process
 * recalls the key); `firstRead` checks its own answer.
 */
async function keyUsedOnce(
  on: TestServer,
  firstRead: (secret: string, chargeId: string) => Promise<void>,
  permissions?: string[],
) {
  const { account, testKey, addKey } = await on.newAccount();
  const created = await bodyOf(
    publicApi(on.baseUrl, { key: testKey }).POST("/api/v1/charges/pix", { body: chargeBody() }),
    201,
  );
  const { id, secret } = await addKey(permissions ? { permissions } : {});
  await firstRead(secret, created.id);
  return { account, keyId: id, secret, chargeId: created.id };
}

/** An account with a test key that has read its one charge by id once (so the key is recalled). */
const readOnce = (on: TestServer, permissions?: string[]) =>
  keyUsedOnce(
    on,
    async (secret, chargeId) => {
      const first = await byId(on, secret, chargeId);
      expectStatus(first, 200);
      expect(first.body.id).toBe(chargeId);
    },
    permissions,
  );

async function changeKey(on: TestServer, keyId: string, change: Partial<ApiKeyRecord>): Promise<void> {
  const key = await on.store.read.apiKeys.get(keyId);
  if (!key) throw new Error(`no key ${keyId}`);
  await on.store.transaction((tx) => tx.apiKeys.update({ ...key, ...change, updatedAt: key.updatedAt }));
}

async function changeAccount(on: TestServer, accountId: string, change: Partial<Account>): Promise<void> {
  const account = await on.store.read.accounts.get(accountId);
  if (!account) throw new Error(`no account ${accountId}`);
  await on.store.transaction((tx) => tx.accounts.update({ ...account, ...change, updatedAt: account.updatedAt }));
}

/** An account with a test key that has listed once (so it is recalled), and one charge to list. */
const listedOnce = (on: TestServer, permissions?: string[]) =>
  keyUsedOnce(
    on,
    async (secret, chargeId) => {
      const first = await list(on, secret);
      expectStatus(first, 200);
      expect(first.body.data.map((t) => t.id)).toEqual([chargeId]);
    },
    permissions,
  );

for (const store of eachStore("key_confirming_reads")) {
  store.describe(`a first page of transactions confirms the key in its own read, on the ${store.name} store`, () => {
    const server = serverOn(store);

    test("when the key is revoked after a list, then the next list is 401 with the body of a missing key", async () => {
      const { keyId, secret } = await listedOnce(server);
      const missing = await list(server, null);

      // The same instant as before: the key's version changes even when its timestamps do not.
      await changeKey(server, keyId, { revokedAt: server.clock.now().toISOString() });
      const res = await list(server, secret);

      expectStatus(res, 401);
      expectStatus(missing, 401);
      expect(withoutTimestamp(res.body)).toEqual(withoutTimestamp(missing.body));
    });

    test("when transactions:read is taken from the key and given back, then each change applies on the next list", async () => {
      const { keyId, secret } = await listedOnce(server, ["transactions:read", "charges:write"]);

      await changeKey(server, keyId, { permissions: ["charges:write"] });
      const removed = await list(server, secret);
      await changeKey(server, keyId, { permissions: ["transactions:read"] });
      const restored = await list(server, secret);

      expectStatus(removed, 403);
      expect(removed.body.code).toBe("API_KEY_PERMISSION");
      expect(removed.body.message).toContain("transactions:read");
      expectStatus(restored, 200);
      expect(restored.body.data).toHaveLength(1);
    });

    test("when the key's IP allow-list stops covering the caller, then the next list is 403 API_KEY_IP", async () => {
      const { keyId, secret } = await listedOnce(server);

      await changeKey(server, keyId, { allowedIps: ["10.0.0.0/8"] });
      const res = await list(server, secret);

      expectStatus(res, 403);
      expect(res.body.code).toBe("API_KEY_IP");
    });

    test("when a production key's account stops being verified, then the next list is 403 ACCOUNT_NOT_ACTIVE", async () => {
      const { account, liveKey } = await server.newAccount({ verified: true });
      if (!liveKey) throw new Error("a verified account has a production key");
      expect((await list(server, liveKey)).status).toBe(200);

      await changeAccount(server, account.id, { verified: false });
      const res = await list(server, liveKey);

      expectStatus(res, 403);
      expect(res.body.code).toBe("ACCOUNT_NOT_ACTIVE");
    });

    test("when the key is revoked and the filtered first page is empty, then the list is 401, not an empty page", async () => {
      const { keyId, secret } = await listedOnce(server);
      const empty = await list(server, secret, { status: "PAID" });
      expectStatus(empty, 200);
      expect(empty.body).toEqual({ data: [], hasMore: false });

      await changeKey(server, keyId, { revokedAt: server.clock.now().toISOString() });
      const res = await list(server, secret, { status: "PAID" });

      expectStatus(res, 401);
      expect(res.body.code).toBe("UNAUTHORIZED");
    });

    test("when a recalled key lists a later page, then the key is read first and the cursor works", async () => {
      const { account, secret, chargeId } = await listedOnce(server);
      const second = await bodyOf(
        publicApi(server.baseUrl, { key: secret }).POST("/api/v1/charges/pix", { body: chargeBody() }),
        201,
      );

      const page = await list(server, secret, { limit: 1, startingAfter: second.id });

      expectStatus(page, 200);
      expect(page.body).toMatchObject({ data: [{ id: chargeId }], hasMore: false });
      expect(account.id).toMatch(/^acc_/);
    });

    test.each([
      { name: "a limit that is not a number", query: "limit=abc" },
      { name: "a limit past any number", query: "limit=1e309" },
      { name: "a limit of zero", query: "limit=0" },
    ])("when $name comes with a key that names nothing, then the answer is 401, not 400", async ({ query }) => {
      const { secret } = await listedOnce(server);

      const unknownKey = await rawList(server, "svc_test_doesnotexist0000000000", query);
      const noKey = await rawList(server, null, query);
      const goodKey = await rawList(server, secret, query);

      expectStatus(unknownKey, 401);
      expect(unknownKey.body.code).toBe("UNAUTHORIZED");
      expectStatus(noKey, 401);
      expectStatus(goodKey, 400);
      expect(goodKey.body.code).toBe("VALIDATION_ERROR");
    });

    test("when a revoked key sends a malformed query, then the answer is 401, not 400", async () => {
      const { keyId, secret } = await listedOnce(server);
      await changeKey(server, keyId, { revokedAt: server.clock.now().toISOString() });

      const res = await rawList(server, secret, "limit=abc");

      expectStatus(res, 401);
    });

    test("when a test key lists, then it sees the test charges only, and another account's key sees none of them", async () => {
      const { secret, chargeId } = await listedOnce(server);
      const other = await server.newAccount();
      expect((await list(server, other.testKey)).status).toBe(200);

      const mine = await list(server, secret);
      const theirs = await list(server, other.testKey);

      expectStatus(mine, 200);
      expect(mine.body.data.map((t) => t.id)).toEqual([chargeId]);
      expect(theirs.body).toEqual({ data: [], hasMore: false });
    });
  });
}

for (const store of eachStore("key_confirming_get")) {
  store.describe(`a charge read by id confirms the key in its own read, on the ${store.name} store`, () => {
    const server = serverOn(store);

    test("when the key is revoked after a read, then the next read of the same charge is 401 with the body of a missing key", async () => {
      const { keyId, secret, chargeId } = await readOnce(server);
      const missing = await byId(server, null, chargeId);

      // The same instant as before: the key's version changes even when its timestamps do not.
      await changeKey(server, keyId, { revokedAt: server.clock.now().toISOString() });
      const res = await byId(server, secret, chargeId);

      expectStatus(res, 401);
      expectStatus(missing, 401);
      expect(withoutTimestamp(res.body)).toEqual(withoutTimestamp(missing.body));
    });

    test("when transactions:read is taken from the key and given back, then each change applies on the next read", async () => {
      const { keyId, secret, chargeId } = await readOnce(server, ["transactions:read", "charges:write"]);

      await changeKey(server, keyId, { permissions: ["charges:write"] });
      const removed = await byId(server, secret, chargeId);
      await changeKey(server, keyId, { permissions: ["transactions:read"] });
      const restored = await byId(server, secret, chargeId);

      expectStatus(removed, 403);
      expect(removed.body.code).toBe("API_KEY_PERMISSION");
      expect(removed.body.message).toContain("transactions:read");
      expectStatus(restored, 200);
      expect(restored.body.id).toBe(chargeId);
    });

    test("when the key's IP allow-list stops covering the caller, then the next read is 403 API_KEY_IP", async () => {
      const { keyId, secret, chargeId } = await readOnce(server);

      await changeKey(server, keyId, { allowedIps: ["10.0.0.0/8"] });
      const res = await byId(server, secret, chargeId);

      expectStatus(res, 403);
      expect(res.body.code).toBe("API_KEY_IP");
    });

    test("when a production key's account stops being verified, then the next read of its charge is 403 ACCOUNT_NOT_ACTIVE", async () => {
      const { account, liveKey } = await server.newAccount({ verified: true });
      if (!liveKey) throw new Error("a verified account has a production key");
      const charge = transactionRecord({ accountId: account.id, livemode: true });
      await server.store.transaction((tx) => tx.transactions.insert(charge));
      const before = await byId(server, liveKey, charge.id);
      const again = await byId(server, liveKey, charge.id);

      await changeAccount(server, account.id, { verified: false });
      const res = await byId(server, liveKey, charge.id);

      expectStatus(before, 200);
      expectStatus(again, 200);
      expect(again.body).toEqual(before.body);
      expectStatus(res, 403);
      expect(res.body.code).toBe("ACCOUNT_NOT_ACTIVE");
    });

    test("when a recalled key asks for a charge it cannot see, then the answer is 404, and 401 once the key is revoked", async () => {
      const { keyId, secret } = await readOnce(server);
      const other = await server.newAccount();
      const theirs = await bodyOf(
        publicApi(server.baseUrl, { key: other.testKey }).POST("/api/v1/charges/pix", { body: chargeBody() }),
        201,
      );

      const unknown = await byId(server, secret, "txn_doesnotexist00000000");
      const another = await byId(server, secret, theirs.id);
      await changeKey(server, keyId, { revokedAt: server.clock.now().toISOString() });
      const revoked = await byId(server, secret, "txn_doesnotexist00000000");

      expectStatus(unknown, 404);
      expect(unknown.body.code).toBe("NOT_FOUND");
      expectStatus(another, 404);
      expect(another.body).toMatchObject({ code: "NOT_FOUND" });
      expectStatus(revoked, 401);
      expect(revoked.body.code).toBe("UNAUTHORIZED");
    });

    test("when an id no store can hold comes with a key that names nothing, then the answer is 401, not 404", async () => {
      const { secret } = await readOnce(server);

      const unknownKey = await rawCall<ErrorBody>(server.baseUrl, "GET", "/api/v1/transactions/txn_%00", {
        key: "svc_test_doesnotexist0000000000",
      });
      const goodKey = await rawCall<ErrorBody>(server.baseUrl, "GET", "/api/v1/transactions/txn_%00", { key: secret });

      expectStatus(unknownKey, 401);
      expect(unknownKey.body.code).toBe("UNAUTHORIZED");
      expectStatus(goodKey, 404);
    });

    test("when a charge is read by a process that has seen the key and by one that has not, then the bodies are equal", async () => {
      const { secret, chargeId } = await readOnce(server);
      const recalled = await byId(server, secret, chargeId);
      const fresh = await startTestServer({ store: server.store, clock: server.clock });
      try {
        const unseen = await byId(fresh, secret, chargeId);

        expectStatus(recalled, 200);
        expectStatus(unseen, 200);
        expect(unseen.body).toEqual(recalled.body);
      } finally {
        await fresh.close();
      }
    });
  });
}

describePg("a key changed through another process's store stops working on this process's next list", () => {
  let database: TestDatabase;
  let here: TestServer;
  let elsewhere: TestServer;

  beforeAll(async () => {
    database = await createTestDatabase("key_confirming_reads_two");
    here = await startTestServer({ store: new PostgresStore(createPool(database.url, { max: 2 })) });
    elsewhere = await startTestServer({ store: new PostgresStore(createPool(database.url, { max: 2 })) });
  }, 60_000);
  afterAll(async () => {
    await here?.close();
    await here?.store.close();
    await elsewhere?.close();
    await elsewhere?.store.close();
    await database?.drop();
  });

  test("when another process revokes the key, then this process's next list is 401", async () => {
    const { keyId, secret } = await listedOnce(here);

    await changeKey(elsewhere, keyId, { revokedAt: elsewhere.clock.now().toISOString() });
    const res = await list(here, secret);

    expectStatus(res, 401);
    expect(res.body.code).toBe("UNAUTHORIZED");
  });

  test("when another process revokes the key, then this process's next read of a charge by id is 401", async () => {
    const { keyId, secret, chargeId } = await readOnce(here);

    await changeKey(elsewhere, keyId, { revokedAt: elsewhere.clock.now().toISOString() });
    const res = await byId(here, secret, chargeId);

    expectStatus(res, 401);
    expect(res.body.code).toBe("UNAUTHORIZED");
  });

  test("when another process takes transactions:read from the key, then this process's next list is 403", async () => {
    const { keyId, secret } = await listedOnce(here);

    await changeKey(elsewhere, keyId, { permissions: ["charges:write"] });
    const res = await list(here, secret);

    expectStatus(res, 403);
    expect(res.body.code).toBe("API_KEY_PERMISSION");
  });
});

for (const store of eachStore("key_confirming_reads_same")) {
  store.describe(`the list answers the same whether or not the key is recalled, on the ${store.name} store`, () => {
    const server = serverOn(store);

    test("when a page is read by a process that has seen the key and by one that has not, then the bodies are equal", async () => {
      const { secret } = await listedOnce(server);
      const recalled = await list(server, secret, { limit: 5 });
      // A second server on the same store: its domain has read no key yet.
      const fresh = await startTestServer({ store: server.store, clock: server.clock });
      try {
        const unseen = await list(fresh, secret, { limit: 5 });

        expectStatus(recalled, 200);
        expectStatus(unseen, 200);
        expect(unseen.body).toEqual(recalled.body);
        expect(recalled.body.data).toHaveLength(1);
      } finally {
        await fresh.close();
      }
    });
  });
}
