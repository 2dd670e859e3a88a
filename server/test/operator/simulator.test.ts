import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  byId,
  chargeBody,
  expectStatus,
  operatorApi,
  publicApi,
  startTestServer,
  type TestServer,
  testAdminToken,
} from "../harness.js";

// The operator's tools beside the accounts and keys of operator.test.ts: the settlement
// simulator's MEDs, webhook endpoints, customer notes and the manual clock.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const admin = () => operatorApi(server.baseUrl, { token: testAdminToken });
const api = (key: string) => publicApi(server.baseUrl, { key });

async function balanceOf(key: string) {
  const res = await api(key).GET("/api/v1/balance");
  expectStatus(res, 200);
  return res.body;
}

async function newCharge(key: string, amountCents = 8990) {
  const charge = await api(key).POST("/api/v1/charges/pix", { body: chargeBody({ amountCents }) });
  expectStatus(charge, 201);
  return charge.body;
}

async function newCustomer(key: string) {
  const customer = await api(key).POST("/api/v1/customers", { body: { name: "Maria", document: "52998224725" } });
  expectStatus(customer, 201);
  return customer.body;
}

describe("disputes (MED)", () => {
  async function paidAndReleased() {
    const ctx = await server.newAccount({ releasePeriodDays: 0 });
    const charge = await newCharge(ctx.testKey, 10_000);
    expectStatus(await api(ctx.testKey).POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id)), 200);
    return { ...ctx, chargeId: charge.id };
  }

  test("when a MED opens and is WON, then the amount goes to blocked and comes back", async () => {
    const { testKey, chargeId } = await paidAndReleased();
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 9920, blockedCents: 0 });

    const opened = await admin().POST("/admin/v1/simulator/transactions/{id}/disputes", {
      ...byId(chargeId),
      body: { amountCents: 5000 },
    });
    expectStatus(opened, 201);
    expect(opened.body.dispute).toMatchObject({ status: "OPEN", amountCents: 5000 });
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 4920, blockedCents: 5000 });
    const read = await api(testKey).GET("/api/v1/transactions/{id}", byId(chargeId));
    expectStatus(read, 200);
    expect(read.body.dispute?.status).toBe("OPEN");

    const closed = await admin().POST("/admin/v1/simulator/disputes/{id}/close", {
      ...byId(opened.body.dispute?.id as string),
      body: { outcome: "WON" },
    });
    expectStatus(closed, 200);
    expect(closed.body.dispute?.status).toBe("WON");
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 9920, blockedCents: 0 });
  });

  test("when a MED is LOST, then the blocked amount leaves the balance", async () => {
    const { testKey, chargeId } = await paidAndReleased();
    const opened = await admin().POST("/admin/v1/simulator/transactions/{id}/disputes", {
      ...byId(chargeId),
      body: { amountCents: 9000 },
    });
    expectStatus(opened, 201);
    const disputeId = opened.body.dispute?.id as string;
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 920, blockedCents: 9000 });
    const close = (outcome: "WON" | "LOST") =>
      admin().POST("/admin/v1/simulator/disputes/{id}/close", { ...byId(disputeId), body: { outcome } });
    expectStatus(await close("LOST"), 200);
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 920, blockedCents: 0 });
    const twice = await close("WON");
    expectStatus(twice, 400);
    expect(twice.body.code).toBe("REQUEST_ERROR");
  });

  test("when the contested amount passes the available balance, then 400 and nothing moves", async () => {
    const { testKey, chargeId } = await paidAndReleased();
    const res = await admin().POST("/admin/v1/simulator/transactions/{id}/disputes", { ...byId(chargeId), body: {} });
    expectStatus(res, 400);
    expect(res.body.code).toBe("REQUEST_ERROR");
    expect(await balanceOf(testKey)).toMatchObject({ availableCents: 9920, blockedCents: 0 });
    const read = await api(testKey).GET("/api/v1/transactions/{id}", byId(chargeId));
    expectStatus(read, 200);
    expect(read.body.dispute).toBeUndefined();
  });
});

describe("webhook endpoints, notes and clock", () => {
  test("when an endpoint is created, then its secret shows once and matching events queue deliveries", async () => {
    const { account, testKey } = await server.newAccount();
    const created = await admin().POST("/admin/v1/accounts/{id}/webhook-endpoints", {
      ...byId(account.id),
      // A public IP literal: this sandbox has no DNS, and no worker runs here, so nothing is sent.
      body: { url: "https://93.184.215.14/webhook", mode: "test", events: ["transaction.paid"] },
    });
    expectStatus(created, 201);
    expect(created.body.secret).toMatch(/^whsec_/);
    const endpoint = byId(created.body.id);
    const list = await admin().GET("/admin/v1/accounts/{id}/webhook-endpoints", byId(account.id));
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);

    const charge = await newCharge(testKey);
    expectStatus(await api(testKey).POST("/api/v1/sandbox/transactions/{id}/pay", byId(charge.id)), 200);
    const deliveries = await admin().GET("/admin/v1/webhook-endpoints/{id}/deliveries", endpoint);
    expectStatus(deliveries, 200);
    expect(deliveries.body.data).toHaveLength(1);
    const eventId = deliveries.body.data[0]?.eventId as string;

    const replay = await admin().POST("/admin/v1/events/{id}/replay", byId(eventId));
    expectStatus(replay, 200);
    expect(replay.body.deliveries).toHaveLength(1);
    const again = await admin().GET("/admin/v1/webhook-endpoints/{id}/deliveries", endpoint);
    expectStatus(again, 200);
    expect(again.body.data).toHaveLength(2);

    const rotated = await admin().POST("/admin/v1/webhook-endpoints/{id}/rotate-secret", endpoint);
    expectStatus(rotated, 200);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect((await admin().DELETE("/admin/v1/webhook-endpoints/{id}", endpoint)).status).toBe(204);
    expect((await admin().GET("/admin/v1/webhook-endpoints/{id}/deliveries", endpoint)).status).toBe(404);
  });

  test("when a production endpoint is not https, then 400 on url", async () => {
    const { account } = await server.newAccount();
    const res = await admin().POST("/admin/v1/accounts/{id}/webhook-endpoints", {
      ...byId(account.id),
      body: { url: "http://loja.example.com/webhook", mode: "production", events: ["transaction.paid"] },
    });
    expectStatus(res, 400);
    expect(res.body.errors?.[0]?.path).toBe("url");
  });

  test("when notes and tags are set, then the operator reads them and the public API never shows them", async () => {
    const { testKey } = await server.newAccount();
    const customer = await newCustomer(testKey);
    const set = await admin().PUT("/admin/v1/customers/{id}/notes", {
      ...byId(customer.id),
      body: { notes: "Cliente VIP", tags: ["vip", "vip"] },
    });
    expect(set.body).toEqual({ customerId: customer.id, notes: "Cliente VIP", tags: ["vip"] });
    const notes = await admin().GET("/admin/v1/customers/{id}/notes", byId(customer.id));
    expectStatus(notes, 200);
    expect(notes.body.notes).toBe("Cliente VIP");
    const pub = await api(testKey).GET("/api/v1/customers/{id}", byId(customer.id));
    expectStatus(pub, 200);
    expect(JSON.stringify(pub.body)).not.toContain("VIP");
  });

  test.each([
    { name: "a tag of 41 characters", tags: ["t".repeat(41)] },
    { name: "an empty tag", tags: [""] },
  ])("when notes carry $name, then 400 VALIDATION_ERROR on that tag and the notes stay unchanged", async ({ tags }) => {
    const { testKey } = await server.newAccount();
    const customer = await newCustomer(testKey);

    const res = await admin().PUT("/admin/v1/customers/{id}/notes", {
      ...byId(customer.id),
      body: { notes: "Cliente VIP", tags },
    });

    expectStatus(res, 400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.errors?.map((e) => e.path)).toEqual(["tags.0"]);
    expect((await admin().GET("/admin/v1/customers/{id}/notes", byId(customer.id))).body).toMatchObject({
      notes: null,
      tags: [],
    });
  });

  test("when the server runs with a manual clock, then GET /clock reads it", async () => {
    const res = await admin().GET("/admin/v1/clock");
    expectStatus(res, 200);
    expect(res.body.now).toBe(server.clock.now().toISOString());
  });
});
