import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { addSeconds } from "../../src/domain/core/time.js";
import { maxSharedTransactionViews, presentTransaction, sharedViews } from "../../src/domain/payments/index.js";
import { ManualClock } from "../../src/domain/ports/clock.js";
import { deepFreeze } from "../../src/domain/core/values.js";
import { jsonText } from "../../src/http/json.js";
import { MemoryStore } from "../../src/store/memory/index.js";
import { byId, chargeBody, expectStatus, publicApi, startTestServer, type TestServer } from "../harness.js";

// The memory store keeps its rows deep-frozen; a frozen charge's view is built once per effective
// status and shared, and its JSON is kept (`http/json.ts`). These tests hold that sharing to what
// JSON.stringify writes, and to the changes a charge goes through.

describe("jsonText", () => {
  const view = (value: unknown) => {
    const frozen = deepFreeze(structuredClone(value));
    if (frozen !== null && typeof frozen === "object") sharedViews.add(frozen);
    return frozen;
  };

  test("when given any JSON value, then it writes what JSON.stringify writes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonText(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  test("when given a page of shared views and plain values, then it writes what JSON.stringify writes, every time", () => {
    const item = fc.oneof(fc.object().map(view), fc.object(), fc.jsonValue(), fc.constant(undefined));
    const page = fc.record(
      {
        data: fc.array(item, { maxLength: 8 }),
        hasMore: fc.boolean(),
        extra: fc.option(fc.jsonValue(), { nil: undefined }),
      },
      { requiredKeys: ["data"] },
    );
    fc.assert(
      fc.property(page, (body) => {
        const expected = JSON.stringify(body);
        expect(jsonText(body)).toBe(expected);
        expect(jsonText(body)).toBe(expected); // the second time from the kept JSON
      }),
      { numRuns: 300 },
    );
  });

  test("when the body itself is a shared view or undefined, then it writes what JSON.stringify writes", () => {
    const shared = view({ id: "txn_1", data: [1, 2], nested: { a: null } });

    expect(jsonText(shared)).toBe(JSON.stringify(shared));
    expect(jsonText(shared)).toBe(JSON.stringify(shared));
    expect(jsonText(undefined)).toBeUndefined();
  });
});

describe("frozen rows and shared views", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  async function storedCharge() {
    const { testKey, account } = await server.newAccount();
    const created = await publicApi(server.baseUrl, { key: testKey }).POST("/api/v1/charges/pix", {
      body: chargeBody({ expiresAt: addSeconds(server.clock.now().toISOString(), 600) }),
    });
    expectStatus(created, 201);
    const row = await server.store.read.transactions.get({ accountId: account.id, livemode: false }, created.body.id);
    if (!row) throw new Error("the charge was not stored");
    return row;
  }

  test("when a caller writes into a row the memory store handed out, then it throws and the row is unchanged", async () => {
    const row = await storedCharge();
    const name = row.customer.name;

    expect(() => {
      (row as { status: string }).status = "PAID";
    }).toThrow(TypeError);
    expect(() => {
      (row.customer as { name: string }).name = "Outra Pessoa";
    }).toThrow(TypeError);
    expect(row.status).toBe("WAITING_PAYMENT");
    expect(row.customer.name).toBe(name);
  });

  test("when a stored row is presented twice at one status, then both are the same frozen view", async () => {
    const row = await storedCharge();
    const now = server.clock.now().toISOString();

    const first = presentTransaction(row, now);
    const second = presentTransaction(row, now);

    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.customer)).toBe(true);
    expect(sharedViews.has(first)).toBe(true);
  });

  test("when the clock passes the row's expiry, then a new view says EXPIRED and the old one is not handed out again", async () => {
    const row = await storedCharge();
    const before = presentTransaction(row, row.createdAt);

    const after = presentTransaction(row, addSeconds(row.expiresAt, 1));

    expect(before.status).toBe("WAITING_PAYMENT");
    expect(after.status).toBe("EXPIRED");
    expect(after).not.toBe(before);
    expect(presentTransaction(row, addSeconds(row.expiresAt, 2))).toBe(after);
  });

  test("when more charges are read than the memo keeps, then it starts afresh: the first is built again, the newest still shared", async () => {
    const first = await storedCharge();
    const now = server.clock.now().toISOString();
    const firstView = presentTransaction(first, now);
    const others = Array.from({ length: maxSharedTransactionViews }, (_v, i) =>
      deepFreeze({ ...structuredClone(first), id: `txn_memo${String(i).padStart(12, "0")}` }),
    );

    for (const row of others) presentTransaction(row, now);
    const last = others[others.length - 1]!;

    expect(presentTransaction(last, now)).toBe(presentTransaction(last, now));
    const again = presentTransaction(first, now);
    expect(again).not.toBe(firstView);
    expect(again).toEqual(firstView);
  });

  test("when a row is not frozen (PostgreSQL's, fresh from a query), then each call builds its own view, not shared", async () => {
    const row = structuredClone(await storedCharge());
    const now = server.clock.now().toISOString();

    const first = presentTransaction(row, now);
    const second = presentTransaction(row, now);

    expect(second).not.toBe(first);
    expect(second).toEqual(first);
    expect(Object.isFrozen(first)).toBe(false);
    expect(sharedViews.has(first)).toBe(false);
  });
});

describe("the shared views follow each change, on two servers of one store", () => {
  // Two servers on one store and one clock, each with the production path (shared views, kept
  // JSON): the one that writes and the other answer the same bytes, before and after each change.
  // (Until the server's response check left, the other copied each body before sending it.)
  const clock = new ManualClock("2026-10-04T15:30:00.000Z");
  const store = new MemoryStore();
  let fast: TestServer;
  let checked: TestServer;
  beforeAll(async () => {
    fast = await startTestServer({ store, clock });
    checked = await startTestServer({ store, clock });
  });
  afterAll(async () => {
    await fast.close();
    await checked.close();
  });

  async function bothAnswer(key: string, path: string) {
    const [a, b] = await Promise.all(
      [fast, checked].map((s) => fetch(`${s.baseUrl}${path}`, { headers: { "x-api-key": key } })),
    );
    const [textA, textB] = await Promise.all([a!.text(), b!.text()]);
    expect(a!.status).toBe(b!.status);
    expect(a!.headers.get("content-type")).toBe(b!.headers.get("content-type"));
    expect(a!.headers.get("content-length")).toBe(b!.headers.get("content-length"));
    expect(textA).toBe(textB);
    // Content-Length counts bytes: the descriptions below carry accents and a dash of 3 bytes.
    expect(Number(a!.headers.get("content-length"))).toBe(Buffer.byteLength(textA));
    return { status: a!.status, body: JSON.parse(textA) };
  }

  test("when charges are listed and read before and after one is paid, cancelled and another expires, then the bytes agree and follow each change", async () => {
    const { testKey } = await fast.newAccount();
    const api = publicApi(fast.baseUrl, { key: testKey });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(1);
      const created = await api.POST("/api/v1/charges/pix", {
        body: chargeBody({
          description: `Pedido #${i}`,
          expiresAt: addSeconds(clock.now().toISOString(), 3600 + i * 100),
        }),
      });
      expectStatus(created, 201);
      ids.push(created.body.id);
    }
    const statuses = async () =>
      (await bothAnswer(testKey, "/api/v1/transactions?limit=10")).body.data.map((t: { status: string }) => t.status);

    expect(await statuses()).toEqual(Array(5).fill("WAITING_PAYMENT"));
    expect(await statuses()).toEqual(Array(5).fill("WAITING_PAYMENT"));

    expect((await api.POST("/api/v1/sandbox/transactions/{id}/pay", byId(ids[4]!))).status).toBe(200);
    expect((await api.POST("/api/v1/transactions/{id}/cancel", byId(ids[3]!))).status).toBe(200);
    expect(await statuses()).toEqual(["PAID", "CANCELLED", "WAITING_PAYMENT", "WAITING_PAYMENT", "WAITING_PAYMENT"]);
    const paid = await bothAnswer(testKey, `/api/v1/transactions/${ids[4]}`);
    expect(paid.body.paidAt).toBe(clock.now().toISOString());

    clock.advance(3601);
    expect(await statuses()).toEqual(["PAID", "CANCELLED", "WAITING_PAYMENT", "WAITING_PAYMENT", "EXPIRED"]);
    expect((await bothAnswer(testKey, `/api/v1/transactions/${ids[0]}`)).body.status).toBe("EXPIRED");
    expect((await bothAnswer(testKey, "/api/v1/transactions?status=EXPIRED")).body.data).toHaveLength(1);
  });
});
