import { expect, test } from "vitest";
import { addSeconds } from "../../src/domain/core/time.js";
import type { paths } from "../../../generated/api.js";
import { byId, chargeBody, expectStatus, publicApi, type TestServer } from "../harness.js";
import type { CreatePixChargeRequest } from "../support/fixtures.js";
import { eachStore, serverOn } from "../support/stores.js";

// A cursor marks a place in a list; filters do not bind it. The item a page ended on can leave
// the filter before the next page is asked for (a charge paid, or expired by time alone, while
// `status=WAITING_PAYMENT` is paged; a link deactivated while `active=true` is paged): the next
// page still starts right after it, neither skipping nor repeating. An id outside the list's
// account and mode stays a 400.

const ids = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);

type Query<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? Q : never;

async function page(on: TestServer, key: string, query: Query<"/api/v1/transactions">) {
  const res = await publicApi(on.baseUrl, { key }).GET("/api/v1/transactions", { params: { query } });
  expectStatus(res, 200);
  return { ids: ids(res.body), hasMore: res.body.hasMore };
}

async function linksPage(on: TestServer, key: string, query: Query<"/api/v1/payment-links">) {
  const res = await publicApi(on.baseUrl, { key }).GET("/api/v1/payment-links", { params: { query } });
  expectStatus(res, 200);
  return { ids: ids(res.body), hasMore: res.body.hasMore };
}

/** Charges created one second apart, oldest first. */
async function charges(on: TestServer, key: string, count: number, overrides: Partial<CreatePixChargeRequest> = {}) {
  const made: string[] = [];
  for (let i = 0; i < count; i++) {
    on.clock.advance(1);
    const res = await publicApi(on.baseUrl, { key }).POST("/api/v1/charges/pix", { body: chargeBody(overrides) });
    expectStatus(res, 201);
    made.push(res.body.id);
  }
  return made;
}

for (const store of eachStore("cursor_outside_filter")) {
  store.describe(`a cursor that has left the list's filter, on the ${store.name} store`, () => {
    const server = serverOn(store);

    test("when the last charge of a status=WAITING_PAYMENT page is paid before the next page, then the next pages continue after it", async () => {
      const { testKey } = await server.newAccount();
      const [c1, c2, c3, c4, c5] = await charges(server, testKey, 5);

      const waiting = { status: "WAITING_PAYMENT", limit: 2 } as const;

      const first = await page(server, testKey, waiting);
      const paid = await publicApi(server.baseUrl, { key: testKey }).POST(
        "/api/v1/sandbox/transactions/{id}/pay",
        byId(c4!),
      );
      expect(paid.status).toBe(200);
      const second = await page(server, testKey, { ...waiting, startingAfter: c4 });
      const third = await page(server, testKey, { ...waiting, startingAfter: c2 });

      expect(first).toEqual({ ids: [c5, c4], hasMore: true });
      expect(second).toEqual({ ids: [c3, c2], hasMore: true });
      expect(third).toEqual({ ids: [c1], hasMore: false });
    });

    test("when the last charge of a page expires before the next page, with nothing but time passing, then the next page continues after it", async () => {
      const { testKey } = await server.newAccount();
      const [c1] = await charges(server, testKey, 1);
      const [c2] = await charges(server, testKey, 1, { expiresAt: addSeconds(server.clock.now().toISOString(), 120) });
      const [c3] = await charges(server, testKey, 1);

      const first = await page(server, testKey, { status: "WAITING_PAYMENT", limit: 2 });
      server.clock.advance(600);
      const second = await page(server, testKey, { status: "WAITING_PAYMENT", limit: 2, startingAfter: c2 });
      const expired = await page(server, testKey, { status: "EXPIRED" });

      expect(first).toEqual({ ids: [c3, c2], hasMore: true });
      expect(second).toEqual({ ids: [c1], hasMore: false });
      expect(expired.ids).toEqual([c2]);
    });

    test("when the cursor is newer than createdTo, then the page starts at createdTo, not after the cursor", async () => {
      const { testKey } = await server.newAccount();
      const [c1, c2, c3] = await charges(server, testKey, 3);
      const created = await publicApi(server.baseUrl, { key: testKey }).GET("/api/v1/transactions/{id}", byId(c3!));
      expectStatus(created, 200);
      const createdTo = created.body.createdAt;

      const window = await page(server, testKey, { createdTo, limit: 5 });
      const afterNewer = await page(server, testKey, { createdTo, limit: 5, startingAfter: c3 });
      const afterInside = await page(server, testKey, { createdTo, limit: 5, startingAfter: c2 });

      expect(window).toEqual({ ids: [c2, c1], hasMore: false });
      expect(afterNewer).toEqual(window);
      expect(afterInside).toEqual({ ids: [c1], hasMore: false });
    });

    test("when the last link of an active=true page is deactivated before the next page, then the next page continues after it", async () => {
      const { testKey } = await server.newAccount();
      const links: string[] = [];
      for (let i = 0; i < 3; i++) {
        server.clock.advance(1);
        const res = await publicApi(server.baseUrl, { key: testKey }).POST("/api/v1/payment-links", {
          body: { amountCents: 4990, description: `Turma ${i}` },
        });
        expectStatus(res, 201);
        links.push(res.body.id);
      }
      const [l1, l2, l3] = links;

      const first = await linksPage(server, testKey, { active: "true", limit: 2 });
      const off = await publicApi(server.baseUrl, { key: testKey }).POST(
        "/api/v1/payment-links/{id}/deactivate",
        byId(l2!),
      );
      expect(off.status).toBe(200);
      const second = await linksPage(server, testKey, { active: "true", limit: 2, startingAfter: l2 });

      expect(first).toEqual({ ids: [l3, l2], hasMore: true });
      expect(second).toEqual({ ids: [l1], hasMore: false });
    });

    test("when the cursor names a charge of the account's other mode or of another account, then 400 on startingAfter, filtered or not", async () => {
      const { testKey, liveKey } = await server.newAccount();
      const other = await server.newAccount();
      await charges(server, testKey, 1);
      const [live] = await charges(server, liveKey!, 1);
      const [foreign] = await charges(server, other.testKey, 1);

      for (const cursor of [live, foreign, "txn_naoexiste00000000000"]) {
        for (const filter of [{}, { status: "WAITING_PAYMENT" } as const]) {
          const res = await publicApi(server.baseUrl, { key: testKey }).GET("/api/v1/transactions", {
            params: { query: { ...filter, startingAfter: cursor } },
          });
          expect(res.status, `${JSON.stringify(filter)} ${cursor}`).toBe(400);
          expectStatus(res, 400);
          expect(res.body.errors?.map((e) => e.path)).toEqual(["startingAfter"]);
        }
      }
    });
  });
}
