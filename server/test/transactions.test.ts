import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { insertCharge, type NewCharge } from "../src/domain/charges.js";
import { addSeconds } from "../src/domain/deps.js";
import { call, chargeBody, startTestServer, type TestServer } from "./harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const get = (key: string, path: string) => call(server.baseUrl, "GET", path, { key });
const post = (key: string, path: string, body?: unknown) => call(server.baseUrl, "POST", path, { key, body });
const now = () => server.clock.now().toISOString();

async function createCharge(key: string, overrides: Record<string, unknown> = {}) {
  const res = await post(key, "/api/v1/charges/pix", chargeBody(overrides));
  expect(res.status).toBe(201);
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

const pay = (key: string, id: string) => post(key, `/api/v1/sandbox/transactions/${id}/pay`);
const cancel = (key: string, id: string) => post(key, `/api/v1/transactions/${id}/cancel`);

async function listIds(key: string, query: string): Promise<string[]> {
  const res = await get(key, `/api/v1/transactions?${query}`);
  expect(res.status).toBe(200);
  return res.body.data.map((t: { id: string }) => t.id);
}

/** Follows `startingAfter` from `cursor` until `hasMore` is false; returns every id seen. */
async function walk(key: string, limit: number, cursor?: string): Promise<string[]> {
  const seen: string[] = [];
  let after = cursor;
  for (let guard = 0; guard < 50; guard++) {
    const res = await get(key, `/api/v1/transactions?limit=${limit}${after ? `&startingAfter=${after}` : ""}`);
    expect(res.status).toBe(200);
    const ids = res.body.data.map((t: { id: string }) => t.id);
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
  const res = await get(key, "/api/v1/balance");
  expect(res.status).toBe(200);
  return res.body;
}

describe("GET /api/v1/transactions", () => {
  test("when charges were created at different instants, then they are listed newest first", async () => {
    const { testKey } = await server.newAccount();
    const ids = await createCharges(testKey, 3);

    const listed = await listIds(testKey, "");

    expect(listed).toEqual([...ids].reverse());
  });

  test("when several charges are created within the same millisecond, then they are still listed newest first", async () => {
    const { testKey } = await server.newAccount();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await createCharge(testKey)).id);

    const listed = await listIds(testKey, "limit=100");

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

    const listed = await get(testKey, `/api/v1/transactions?status=${status}`);

    expect(listed.status).toBe(200);
    expect(listed.body.data.map((t: { id: string }) => t.id)).toEqual([byStatus[status]]);
    expect(listed.body.data[0].status).toBe(status);
  });

  test("when filtering by paymentLinkId, then only the charges the link generated are listed", async () => {
    const { testKey, account } = await server.newAccount();
    const link = await post(testKey, "/api/v1/payment-links", { amountCents: 4990, description: "Curso online" });
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

    const listed = await listIds(testKey, `paymentLinkId=${link.body.id}`);
    const unknown = await listIds(testKey, "paymentLinkId=plk_00000000000000000000");

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
      const query = new URLSearchParams();
      if (at(from)) query.set("createdFrom", at(from) as string);
      if (at(to)) query.set("createdTo", at(to) as string);

      const listed = await listIds(testKey, query.toString());

      expect(listed).toEqual(expected.map((i) => charges[i]?.id));
    },
  );

  test("when limit is omitted, then a page holds 20 charges and hasMore tells that more exist", async () => {
    const { testKey } = await server.newAccount();
    const ids = await createCharges(testKey, 21);

    const first = await get(testKey, "/api/v1/transactions");
    const second = await get(testKey, `/api/v1/transactions?startingAfter=${first.body.data[19].id}`);

    expect(first.body.data).toHaveLength(20);
    expect(first.body.hasMore).toBe(true);
    expect(second.body.data.map((t: { id: string }) => t.id)).toEqual([ids[0]]);
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
    const first = await get(testKey, "/api/v1/transactions?limit=2");
    await createCharges(testKey, 3);

    const rest = await walk(testKey, 2, first.body.data[1].id);

    expect(first.body.data.map((t: { id: string }) => t.id)).toEqual([originals[4], originals[3]]);
    expect(rest).toEqual([originals[2], originals[1], originals[0]]);
  });

  test("when charges are created in the same millisecond as the cursor charge, then they neither appear in later pages nor shift them", async () => {
    const { testKey } = await server.newAccount();
    const originals: string[] = [];
    for (let i = 0; i < 5; i++) originals.push((await createCharge(testKey)).id);
    const first = await get(testKey, "/api/v1/transactions?limit=2");
    const firstIds: string[] = first.body.data.map((t: { id: string }) => t.id);
    for (let i = 0; i < 20; i++) await createCharge(testKey);

    const rest = await walk(testKey, 2, firstIds[1]);

    expect(rest).toHaveLength(3);
    expect(new Set([...firstIds, ...rest])).toEqual(new Set(originals));
  });

  test.each([
    { name: "limit is 0", query: "limit=0", path: "limit" },
    { name: "limit is 101", query: "limit=101", path: "limit" },
    { name: "startingAfter names no charge", query: "startingAfter=txn_00000000000000000000", path: "startingAfter" },
    { name: "createdFrom carries an offset", query: "createdFrom=2026-10-04T12:00:00-03:00", path: "createdFrom" },
  ])("when $name, then 400 VALIDATION_ERROR names the parameter", async ({ query, path }) => {
    const { testKey } = await server.newAccount();

    const res = await get(testKey, `/api/v1/transactions?${query}`);

    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});

describe("GET /api/v1/transactions/{id}", () => {
  test("when an unpaid charge passes expiresAt, then it reads EXPIRED on GET and in the EXPIRED filter with no sweep", async () => {
    const { testKey } = await server.newAccount();
    const charge = await createCharge(testKey, { expiresAt: addSeconds(now(), 60) });
    const before = await get(testKey, `/api/v1/transactions/${charge.id}`);

    server.clock.advance(61);
    const after = await get(testKey, `/api/v1/transactions/${charge.id}`);

    expect(before.body.status).toBe("WAITING_PAYMENT");
    expect(after.status).toBe(200);
    expect(after.body.status).toBe("EXPIRED");
    expect(after.body.paidAt).toBeNull();
    expect(await listIds(testKey, "status=EXPIRED")).toEqual([charge.id]);
    expect(await listIds(testKey, "status=WAITING_PAYMENT")).toEqual([]);
  });

  test("when the charge belongs to another account, then 404 NOT_FOUND", async () => {
    const owner = await server.newAccount();
    const other = await server.newAccount();
    const charge = await createCharge(owner.testKey);

    const res = await get(other.testKey, `/api/v1/transactions/${charge.id}`);

    expect(res.status).toBe(404);
    expect(res.body.code).toBe("NOT_FOUND");
  });

  test("when a test charge is read with the production key, then 404 NOT_FOUND", async () => {
    const { testKey, liveKey } = await server.newAccount();
    const charge = await createCharge(testKey);

    const res = await get(liveKey as string, `/api/v1/transactions/${charge.id}`);

    expect(res.status).toBe(404);
  });
});

describe("POST /api/v1/transactions/{id}/cancel", () => {
  test("when the charge is WAITING_PAYMENT, then 200 and it reads CANCELLED", async () => {
    const { testKey } = await server.newAccount();
    const charge = await createCharge(testKey);
    server.clock.advance(5);

    const res = await cancel(testKey, charge.id);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: charge.id, status: "CANCELLED", paidAt: null, updatedAt: now() });
    const read = await get(testKey, `/api/v1/transactions/${charge.id}`);
    expect(read.body).toEqual(res.body);
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
    const before = await get(testKey, `/api/v1/transactions/${charge.id}`);

    const res = await cancel(testKey, charge.id);

    expect(res.status).toBe(400);
    expect(res.body.code).toBe("REQUEST_ERROR");
    const after = await get(testKey, `/api/v1/transactions/${charge.id}`);
    expect(after.body).toEqual(before.body);
    expect(after.body.status).toBe(status);
  });

  test("when the charge belongs to another account, then 404 and it stays WAITING_PAYMENT", async () => {
    const owner = await server.newAccount();
    const other = await server.newAccount();
    const charge = await createCharge(owner.testKey);

    const res = await cancel(other.testKey, charge.id);

    expect(res.status).toBe(404);
    const read = await get(owner.testKey, `/api/v1/transactions/${charge.id}`);
    expect(read.body.status).toBe("WAITING_PAYMENT");
  });
});

describe("POST /api/v1/sandbox/transactions/{id}/pay", () => {
  test("when the charge is WAITING_PAYMENT, then 200 PAID with paidAt now and its net amount pending in the balance", async () => {
    const { testKey } = await server.newAccount();
    const charge = await createCharge(testKey);
    server.clock.advance(30);

    const res = await pay(testKey, charge.id);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: charge.id, status: "PAID", paidAt: now(), updatedAt: now() });
    const read = await get(testKey, `/api/v1/transactions/${charge.id}`);
    expect(read.body).toEqual(res.body);
    expect(await balanceOf(testKey)).toMatchObject({ pendingCents: 8910, availableCents: 0, blockedCents: 0 });
  });

  test("when the charge is paid twice, then the second answers 400 REQUEST_ERROR and the balance is credited once", async () => {
    const { testKey } = await server.newAccount();
    const charge = await createCharge(testKey);
    const first = await pay(testKey, charge.id);

    const second = await pay(testKey, charge.id);

    expect(first.status).toBe(200);
    expect(second.status).toBe(400);
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

    expect(res.status).toBe(400);
    expect(res.body.code).toBe("REQUEST_ERROR");
    const read = await get(testKey, `/api/v1/transactions/${charge.id}`);
    expect(read.body).toMatchObject({ status, paidAt: null });
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
    const read = await get(testKey, `/api/v1/transactions/${charge.id}`);
    expect(paid[0]?.payload).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: "transaction.paid",
      createdAt: read.body.paidAt,
      livemode: false,
      apiVersion: "1.0.0",
      data: { object: read.body },
    });
    expect(read.body.metadata).toEqual({ orderId: "1234", items: [{ sku: "CAM-AZ-M", qty: 2 }] });
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

    expect(res.status).toBe(403);
    expect(res.body.code).toBe("TEST_MODE_ONLY");
    const read = await get(key, `/api/v1/transactions/${charge.id}`);
    expect(read.body.status).toBe("WAITING_PAYMENT");
  });

  test("when the charge does not exist in this account, then 404 NOT_FOUND", async () => {
    const owner = await server.newAccount();
    const other = await server.newAccount();
    const charge = await createCharge(owner.testKey);

    const res = await pay(other.testKey, charge.id);

    expect(res.status).toBe(404);
    const read = await get(owner.testKey, `/api/v1/transactions/${charge.id}`);
    expect(read.body.status).toBe("WAITING_PAYMENT");
  });
});
