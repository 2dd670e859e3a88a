import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { insertCharge, type NewCharge } from "../../src/domain/payments/index.js";
import { addSeconds } from "../../src/domain/core/time.js";
import type { paths } from "../../../generated/api.js";
import { byId, chargeBody, expectStatus, publicApi, startTestServer, type TestServer } from "../harness.js";
import type { CreatePixChargeRequest } from "../support/fixtures.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

type ListQuery = NonNullable<paths["/api/v1/transactions"]["get"]["parameters"]["query"]>;
const api = (key: string) => publicApi(server.baseUrl, { key });
const list = (key: string, query: ListQuery = {}) => api(key).GET("/api/v1/transactions", { params: { query } });
const get = (key: string, id: string) => api(key).GET("/api/v1/transactions/{id}", byId(id));
/** A charge as read back (the read must succeed). */
async function read(key: string, id: string) {
  const res = await get(key, id);
  expectStatus(res, 200);
  return res.body;
}
const now = () => server.clock.now().toISOString();

async function createCharge(key: string, overrides: Partial<CreatePixChargeRequest> = {}) {
  const res = await api(key).POST("/api/v1/charges/pix", { body: chargeBody(overrides) });
  expectStatus(res, 201);
  return res.body;
}

/** Charges created one second apart, oldest first. */
async function createCharges(key: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    server.clock.advance(1);
    ids.push((await createCharge(key, { description: `Pedido #${i}` })).id);
  }
  return ids;
}

const pay = (key: string, id: string) => api(key).POST("/api/v1/sandbox/transactions/{id}/pay", byId(id));
const cancel = (key: string, id: string) => api(key).POST("/api/v1/transactions/{id}/cancel", byId(id));

async function listIds(key: string, query: ListQuery = {}): Promise<string[]> {
  const res = await list(key, query);
  expectStatus(res, 200);
  return res.body.data.map((t) => t.id);
}

/** Follows `startingAfter` from `cursor` until `hasMore` is false; returns every id seen. */
async function walk(key: string, limit: number, cursor?: string): Promise<string[]> {
  const seen: string[] = [];
  let after = cursor;
  for (let guard = 0; guard < 50; guard++) {
    const res = await list(key, { limit, ...(after ? { startingAfter: after } : {}) });
    expectStatus(res, 200);
    const ids = res.body.data.map((t) => t.id);
    seen.push(...ids);
    if (!res.body.hasMore) return seen;
    after = ids[ids.length - 1];
  }
  throw new Error("pagination did not end");
}

/** One charge in each status a client can see; the clock is left past the short charge's expiry. */
async function chargesInEveryStatus(key: string) {
  const waiting = await createCharge(key);
  const paid = await createCharge(key);
  await pay(key, paid.id);
  const cancelled = await createCharge(key);
  await cancel(key, cancelled.id);
  const expired = await createCharge(key, { expiresAt: addSeconds(now(), 60) });
  server.clock.advance(61);
  return { WAITING_PAYMENT: waiting.id, PAID: paid.id, CANCELLED: cancelled.id, EXPIRED: expired.id };
}

async function balanceOf(key: string) {
  const res = await api(key).GET("/api/v1/balance");
  expectStatus(res, 200);
  return res.body;
}

describe("GET /api/v1/transactions", () => {
  test("when charges were created at different instants, then they are listed newest first", async () => {
    const { testKey } = await server.newAccount();
    const ids = await createCharges(testKey, 3);

    const listed = await listIds(testKey);

    expect(listed).toEqual([...ids].reverse());
  });

  test("when several charges are created within the same millisecond, then they are still listed newest first", async () => {
    const { testKey } = await server.newAccount();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await createCharge(testKey)).id);

    const listed = await listIds(testKey, { limit: 100 });

    expect(listed).toEqual([...ids].reverse());
  });

  test.each([
    { name: "WAITING_PAYMENT", status: "WAITING_PAYMENT" },
    { name: "PAID", status: "PAID" },
    { name: "CANCELLED", status: "CANCELLED" },
    { name: "EXPIRED", status: "EXPIRED" },
  ] as const)("when filtering by status $name, then only the charge that reads $name is listed", async ({ status }) => {
    const { testKey } = await server.newAccount();
    const byStatus = await chargesInEveryStatus(testKey);

    const listed = await list(testKey, { status });

    expectStatus(listed, 200);
    expect(listed.body.data.map((t) => t.id)).toEqual([byStatus[status]]);
    expect(listed.body.data[0]?.status).toBe(status);
  });

  test("when filtering by paymentLinkId, then only the charges the link generated are listed", async () => {
    const { testKey, account } = await server.newAccount();
    const link = await api(testKey).POST("/api/v1/payment-links", {
      body: { amountCents: 4990, description: "Curso online" },
    });
    expectStatus(link, 201);
    const scope = { accountId: account.id, livemode: false };
    const linkRecord = await server.store.read.paymentLinks.get(scope, link.body.id);
    const fromLink = await server.store.transaction((tx) =>
      insertCharge(
        server.deps,
        tx,
        scope,
        account,
        chargeBody({ amountCents: 4990 }) as NewCharge,
        now(),
        linkRecord ?? undefined,
      ),
    );
    await createCharge(testKey);

    const listed = await listIds(testKey, { paymentLinkId: link.body.id });
    const unknown = await listIds(testKey, { paymentLinkId: "plk_00000000000000000000" });

    expect(listed).toEqual([fromLink.id]);
    expect(unknown).toEqual([]);
  });

  test.each([
    // Three charges 10 s apart; from/to are the index of the charge whose createdAt is the bound.
    { name: "createdFrom at charge 1", from: 1, to: null, expected: [2, 1] },
    { name: "createdTo at charge 1", from: null, to: 1, expected: [0] },
    { name: "createdFrom at 1, createdTo at 2", from: 1, to: 2, expected: [1] },
  ])(
    "when filtering with $name, then createdFrom is inclusive and createdTo exclusive",
    async ({ from, to, expected }) => {
      const { testKey } = await server.newAccount();
      const charges: Array<{ id: string; createdAt: string }> = [];
      for (let i = 0; i < 3; i++) {
        charges.push(await createCharge(testKey));
        server.clock.advance(10);
      }
      const at = (i: number | null) => (i === null ? undefined : charges[i]?.createdAt);
      const query: ListQuery = {};
      if (at(from)) query.createdFrom = at(from);
      if (at(to)) query.createdTo = at(to);

      const listed = await listIds(testKey, query);

      expect(listed).toEqual(expected.map((i) => charges[i]?.id));
    },
  );

  test("when limit is omitted, then a page holds 20 charges and hasMore tells that more exist", async () => {
    const { testKey } = await server.newAccount();
    const ids = await createCharges(testKey, 21);

    const first = await list(testKey);
    expectStatus(first, 200);
    const second = await list(testKey, { startingAfter: first.body.data[19]?.id });
    expectStatus(second, 200);

    expect(first.body.data).toHaveLength(20);
    expect(first.body.hasMore).toBe(true);
    expect(second.body.data.map((t) => t.id)).toEqual([ids[0]]);
    expect(second.body.hasMore).toBe(false);
  });

  test("when walking every page with startingAfter, then each charge appears exactly once, newest first", async () => {
    const { testKey } = await server.newAccount();
    const ids = await createCharges(testKey, 7);

    const seen = await walk(testKey, 3);

    expect(seen).toEqual([...ids].reverse());
  });

  test("when charges are created in the middle of a traversal, then later pages hold exactly the remaining originals", async () => {
    const { testKey } = await server.newAccount();
    const originals = await createCharges(testKey, 5);
    const first = await list(testKey, { limit: 2 });
    expectStatus(first, 200);
    await createCharges(testKey, 3);

    const rest = await walk(testKey, 2, first.body.data[1]?.id);

    expect(first.body.data.map((t) => t.id)).toEqual([originals[4], originals[3]]);
    expect(rest).toEqual([originals[2], originals[1], originals[0]]);
  });

  test("when charges are created in the same millisecond as the cursor charge, then they neither appear in later pages nor shift them", async () => {
    const { testKey } = await server.newAccount();
    const originals: string[] = [];
    for (let i = 0; i < 5; i++) originals.push((await createCharge(testKey)).id);
    const first = await list(testKey, { limit: 2 });
    expectStatus(first, 200);
    const firstIds = first.body.data.map((t) => t.id);
    for (let i = 0; i < 20; i++) await createCharge(testKey);

    const rest = await walk(testKey, 2, firstIds[1]);

    expect(rest).toHaveLength(3);
    expect(new Set([...firstIds, ...rest])).toEqual(new Set(originals));
  });

  test.each([
    { name: "limit is 0", query: { limit: 0 }, path: "limit" },
    { name: "limit is 101", query: { limit: 101 }, path: "limit" },
    {
      name: "startingAfter names no charge",
      query: { startingAfter: "txn_00000000000000000000" },
      path: "startingAfter",
    },
    { name: "createdFrom carries an offset", query: { createdFrom: "2026-10-04T12:00:00-03:00" }, path: "createdFrom" },
  ])("when $name, then 400 VALIDATION_ERROR names the parameter", async ({ query, path }) => {
    const { testKey } = await server.newAccount();

    const res = await list(testKey, query);

    expectStatus(res, 400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.errors?.map((e) => e.path)).toContain(path);
  });
});

describe("GET /api/v1/transactions/{id}", () => {
  test("when an unpaid charge passes expiresAt, then it reads EXPIRED on GET and in the EXPIRED filter with no sweep", async () => {
    const { testKey } = await server.newAccount();
    const charge = await createCharge(testKey, { expiresAt: addSeconds(now(), 60) });
    const before = await read(testKey, charge.id);

    server.clock.advance(61);
    const after = await get(testKey, charge.id);

    expect(before.status).toBe("WAITING_PAYMENT");
    expectStatus(after, 200);
    expect(after.body.status).toBe("EXPIRED");
    expect(after.body.paidAt).toBeNull();
    expect(await listIds(testKey, { status: "EXPIRED" })).toEqual([charge.id]);
    expect(await listIds(testKey, { status: "WAITING_PAYMENT" })).toEqual([]);
  });

  test("when the charge belongs to another account, then 404 NOT_FOUND", async () => {
    const owner = await server.newAccount();
    const other = await server.newAccount();
    const charge = await createCharge(owner.testKey);

    const res = await get(other.testKey, charge.id);

    expectStatus(res, 404);
    expect(res.body.code).toBe("NOT_FOUND");
  });

  test("when a test charge is read with the production key, then 404 NOT_FOUND", async () => {
    const { testKey, liveKey } = await server.newAccount();
    const charge = await createCharge(testKey);

    const res = await get(liveKey as string, charge.id);

    expectStatus(res, 404);
  });
});

describe("POST /api/v1/transactions/{id}/cancel", () => {
  test("when the charge is WAITING_PAYMENT, then 200 and it reads CANCELLED", async () => {
    const { testKey } = await server.newAccount();
    const charge = await createCharge(testKey);
    server.clock.advance(5);

    const res = await cancel(testKey, charge.id);

    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: charge.id, status: "CANCELLED", paidAt: null, updatedAt: now() });
    const readBack = await read(testKey, charge.id);
    expect(readBack).toEqual(res.body);
  });

  test.each([
    { name: "already CANCELLED", prepare: (key: string, id: string) => cancel(key, id), status: "CANCELLED" },
    { name: "PAID", prepare: (key: string, id: string) => pay(key, id), status: "PAID" },
    {
      name: "EXPIRED",
      prepare: async () => {
        server.clock.advance(24 * 3600);
      },
      status: "EXPIRED",
    },
  ])("when the charge is $name, then 400 REQUEST_ERROR and it is unchanged", async ({ prepare, status }) => {
    const { testKey } = await server.newAccount();
    const charge = await createCharge(testKey);
    await prepare(testKey, charge.id);
    const before = await read(testKey, charge.id);

    const res = await cancel(testKey, charge.id);

    expectStatus(res, 400);
    expect(res.body.code).toBe("REQUEST_ERROR");
    const after = await read(testKey, charge.id);
    expect(after).toEqual(before);
    expect(after.status).toBe(status);
  });

  test("when the charge belongs to another account, then 404 and it stays WAITING_PAYMENT", async () => {
    const owner = await server.newAccount();
    const other = await server.newAccount();
    const charge = await createCharge(owner.testKey);

    const res = await cancel(other.testKey, charge.id);

    expectStatus(res, 404);
    const readBack = await read(owner.testKey, charge.id);
    expect(readBack.status).toBe("WAITING_PAYMENT");
  });
});

describe("POST /api/v1/sandbox/transactions/{id}/pay", () => {
  test("when the charge is WAITING_PAYMENT, then 200 PAID with paidAt now and its net amount pending in the balance", async () => {
    const { testKey } = await server.newAccount();
    const charge = await createCharge(testKey);
    server.clock.advance(30);

    const res = await pay(testKey, charge.id);

    expectStatus(res, 200);
    expect(res.body).toMatchObject({ id: charge.id, status: "PAID", paidAt: now(), updatedAt: now() });
    const readBack = await read(testKey, charge.id);
    expect(readBack).toEqual(res.body);
    expect(await balanceOf(testKey)).toMatchObject({ pendingCents: 8910, availableCents: 0, blockedCents: 0 });
  });

  test("when the charge is paid twice, then the second answers 400 REQUEST_ERROR and the balance is credited once", async () => {
    const { testKey } = await server.newAccount();
    const charge = await createCharge(testKey);
    const first = await pay(testKey, charge.id);

    const second = await pay(testKey, charge.id);

    expectStatus(first, 200);
    expectStatus(second, 400);
    expect(second.body.code).toBe("REQUEST_ERROR");
    expect((await balanceOf(testKey)).pendingCents).toBe(8910);
  });

  test.each([
    {
      name: "EXPIRED",
      prepare: async () => {
        server.clock.advance(24 * 3600);
      },
      status: "EXPIRED",
    },
    { name: "CANCELLED", prepare: (key: string, id: string) => cancel(key, id), status: "CANCELLED" },
  ])("when the charge is $name, then 400 REQUEST_ERROR and nothing is credited", async ({ prepare, status }) => {
    const { testKey } = await server.newAccount();
    const charge = await createCharge(testKey);
    await prepare(testKey, charge.id);

    const res = await pay(testKey, charge.id);

    expectStatus(res, 400);
    expect(res.body.code).toBe("REQUEST_ERROR");
    const readBack = await read(testKey, charge.id);
    expect(readBack).toMatchObject({ status, paidAt: null });
    expect(await balanceOf(testKey)).toMatchObject({ pendingCents: 0, availableCents: 0 });
  });

  test("when the charge is paid, then transaction.paid is recorded once with the whole charge including metadata", async () => {
    const { testKey, account } = await server.newAccount();
    const charge = await createCharge(testKey, { metadata: { orderId: "1234", items: [{ sku: "CAM-AZ-M", qty: 2 }] } });
    await pay(testKey, charge.id);
    await pay(testKey, charge.id);

    const events = await server.store.read.events.list({ accountId: account.id, livemode: false });

    const paid = events.filter((e) => e.type === "transaction.paid");
    expect(paid).toHaveLength(1);
    const readBack = await read(testKey, charge.id);
    expect(paid[0]?.payload).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: "transaction.paid",
      createdAt: readBack.paidAt,
      livemode: false,
      apiVersion: "1.0.0",
      data: { object: readBack },
    });
    expect(readBack.metadata).toEqual({ orderId: "1234", items: [{ sku: "CAM-AZ-M", qty: 2 }] });
  });

  test("when 10 payments of one charge arrive at once, then exactly one succeeds and the balance is credited once", async () => {
    const { testKey, account } = await server.newAccount();
    const charge = await createCharge(testKey);

    const responses = await Promise.all(Array.from({ length: 10 }, () => pay(testKey, charge.id)));

    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 400)).toHaveLength(9);
    expect((await balanceOf(testKey)).pendingCents).toBe(8910);
    const events = await server.store.read.events.list({ accountId: account.id, livemode: false });
    expect(events.filter((e) => e.type === "transaction.paid")).toHaveLength(1);
  });

  test("when the production key is used, then 403 TEST_MODE_ONLY and the charge stays unpaid", async () => {
    const { liveKey } = await server.newAccount();
    const key = liveKey as string;
    const charge = await createCharge(key);

    const res = await pay(key, charge.id);

    expectStatus(res, 403);
    expect(res.body.code).toBe("TEST_MODE_ONLY");
    const readBack = await read(key, charge.id);
    expect(readBack.status).toBe("WAITING_PAYMENT");
  });

  test("when the charge does not exist in this account, then 404 NOT_FOUND", async () => {
    const owner = await server.newAccount();
    const other = await server.newAccount();
    const charge = await createCharge(owner.testKey);

    const res = await pay(other.testKey, charge.id);

    expectStatus(res, 404);
    const readBack = await read(owner.testKey, charge.id);
    expect(readBack.status).toBe("WAITING_PAYMENT");
  });
});
