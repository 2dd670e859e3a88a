import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseBrCode } from "../../src/pix/brcode.js";
import {
  chargeBody,
  type ErrorBody,
  expectStatus,
  publicApi,
  rawCall,
  startTestServer,
  type TestServer,
} from "../harness.js";
import type { CreatePixChargeRequest } from "../support/fixtures.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const api = (key: string) => publicApi(server.baseUrl, { key });
const post = (key: string, body: CreatePixChargeRequest, idempotencyKey?: string) =>
  api(key).POST("/api/v1/charges/pix", {
    body,
    ...(idempotencyKey === undefined ? {} : { params: { header: { "idempotency-key": idempotencyKey } } }),
  });

async function countCharges(key: string) {
  const res = await api(key).GET("/api/v1/transactions", { params: { query: { limit: 100 } } });
  expectStatus(res, 200);
  return res.body.data.length;
}

describe("POST /api/v1/charges/pix", () => {
  test("when the request is valid, then a WAITING_PAYMENT charge with a decodable BR Code is created", async () => {
    const { testKey, account } = await server.newAccount({ name: "Padaria São João", merchantCity: "Florianópolis" });

    const res = await post(testKey, chargeBody());

    expectStatus(res, 201);
    expect(res.body).toMatchObject({
      status: "WAITING_PAYMENT",
      amountCents: 8990,
      feeCents: 80,
      netAmountCents: 8910,
      livemode: false,
      paidAt: null,
      metadata: { orderId: "1234" },
      customer: { document: "52998224725", documentType: "CPF", name: "Maria da Silva Santos" },
    });
    expect(res.body.id).toMatch(/^txn_[A-Za-z0-9]{20}$/);
    expect(res.body.customer.id).toMatch(/^cus_/);
    expect(res.body.pix.qrCode).toBe(res.body.pix.copyPaste);
    const decoded = parseBrCode(res.body.pix.copyPaste);
    expect(decoded).toMatchObject({
      crcValid: true,
      amountCents: 8990,
      pixKey: account.pixKey,
      merchantName: "PADARIA SAO JOAO",
      merchantCity: "FLORIANOPOLIS",
    });
    expect(res.body.pix.copyPaste).toContain("0014br.gov.bcb.pix");
    const read = await api(testKey).GET("/api/v1/transactions/{id}", { params: { path: { id: res.body.id } } });
    expect(read.body).toEqual(res.body);
  });

  test("when expiresAt is omitted, then the charge expires 24 hours after creation", async () => {
    const { testKey } = await server.newAccount();
    const res = await post(testKey, chargeBody());
    expectStatus(res, 201);
    const life = new Date(res.body.expiresAt).getTime() - new Date(res.body.createdAt).getTime();
    expect(life).toBe(24 * 3600 * 1000);
  });

  test("when the charge is created, then its payer is upserted into the customer book with the address", async () => {
    const { testKey } = await server.newAccount();
    const address = {
      zipCode: "01310-100",
      street: "Avenida Paulista",
      number: "1578",
      city: "São Paulo",
      state: "SP",
    };

    const res = await post(testKey, chargeBody({ customer: { ...chargeBody().customer, address } }));

    expectStatus(res, 201);
    const customers = await api(testKey).GET("/api/v1/customers", {
      params: { query: { document: "529.982.247-25" } },
    });
    expectStatus(customers, 200);
    expect(customers.body.data).toHaveLength(1);
    expect(customers.body.data[0]).toMatchObject({
      id: res.body.customer.id,
      address: { ...address, complement: null },
    });
  });

  test.each([
    { name: "amount below 500", patch: { amountCents: 499 }, path: "amountCents" },
    { name: "description too short", patch: { description: "ab" }, path: "description" },
    { name: "description too long", patch: { description: "x".repeat(181) }, path: "description" },
    { name: "unknown field", patch: { surprise: true }, path: "surprise" },
    { name: "expiresAt with an offset", patch: { expiresAt: "2026-10-05T12:00:00-03:00" }, path: "expiresAt" },
    {
      name: "document with letters in a CPF-sized field",
      patch: { customer: { ...chargeBody().customer, document: "5299822472a" } },
      path: "customer.document",
    },
    {
      name: "phone with punctuation",
      patch: { customer: { ...chargeBody().customer, phone: "(11) 98765-4321" } },
      path: "customer.phone",
    },
    {
      name: "missing customer e-mail",
      patch: { customer: { ...chargeBody().customer, email: undefined } },
      path: "customer.email",
    },
    {
      name: "metadata with 51 keys",
      patch: { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
      path: "metadata",
    },
    { name: "expiresAt in the past", patch: { expiresAt: "2020-01-01T00:00:00Z" }, path: "expiresAt" },
  ])("when $name, then 400 VALIDATION_ERROR names the field and nothing is created", async ({ patch, path }) => {
    const { testKey } = await server.newAccount();

    // Bodies the document refuses: sent untyped.
    const res = await rawCall<ErrorBody>(server.baseUrl, "POST", "/api/v1/charges/pix", {
      key: testKey,
      body: chargeBody(patch),
    });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ ok: false, code: "VALIDATION_ERROR", path: "/api/v1/charges/pix" });
    expect(res.body.errors?.map((e) => e.path)).toContain(path);
    expect(res.body.timestamp).toMatch(/Z$/);
    expect(await countCharges(testKey)).toBe(0);
  });

  test.each([
    { name: "CPF check digits fail", customer: { documentType: "CPF", document: "52998224724" } },
    { name: "CPF of repeated digits", customer: { documentType: "CPF", document: "11111111111" } },
    { name: "CNPJ check digits fail", customer: { documentType: "CNPJ", document: "11222333000182" } },
    { name: "CNPJ sent as CPF", customer: { documentType: "CPF", document: "11222333000181" } },
  ] as const)("when the $name, then 400 REQUEST_ERROR and no charge nor customer is created", async ({ customer }) => {
    const { testKey } = await server.newAccount();

    const res = await post(testKey, chargeBody({ customer: { ...chargeBody().customer, ...customer } }));

    expectStatus(res, 400);
    expect(res.body.code).toBe("REQUEST_ERROR");
    expect(res.body.message).toMatch(/inválido|não é um/);
    expect(await countCharges(testKey)).toBe(0);
    const customers = await api(testKey).GET("/api/v1/customers");
    expectStatus(customers, 200);
    expect(customers.body.data).toHaveLength(0);
  });

  test("when the payer has an alphanumeric CNPJ in lower case, then it is accepted and stored upper-case", async () => {
    const { testKey } = await server.newAccount();
    const res = await post(
      testKey,
      chargeBody({ customer: { ...chargeBody().customer, documentType: "CNPJ", document: "12abc34501de35" } }),
    );
    expectStatus(res, 201);
    expect(res.body.customer.document).toBe("12ABC34501DE35");
  });

  test("when the same idempotency-key and body are sent twice, then the first response is replayed and one charge exists", async () => {
    const { testKey } = await server.newAccount();
    const first = await post(testKey, chargeBody(), "pedido-1");
    const second = await post(testKey, chargeBody(), "pedido-1");
    expectStatus(second, 201);
    expect(second.body).toEqual(first.body);
    expect(await countCharges(testKey)).toBe(1);
  });

  test("when the same idempotency-key comes with another body, then 409 IDEMPOTENCY_KEY_REUSED and nothing is created", async () => {
    const { testKey } = await server.newAccount();
    await post(testKey, chargeBody(), "pedido-2");
    const res = await post(testKey, chargeBody({ amountCents: 9990 }), "pedido-2");
    expectStatus(res, 409);
    expect(res.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await countCharges(testKey)).toBe(1);
  });

  test("when an idempotency-key is reused after 24 hours, then a new charge is created", async () => {
    const { testKey } = await server.newAccount();
    const first = await post(testKey, chargeBody(), "pedido-3");
    expectStatus(first, 201);
    server.clock.advance(24 * 3600 + 1);
    const second = await post(testKey, chargeBody(), "pedido-3");
    expectStatus(second, 201);
    expect(second.body.id).not.toBe(first.body.id);
  });

  test("when one idempotency-key is used in test and production, then each mode gets its own charge", async () => {
    const { testKey, liveKey } = await server.newAccount();
    const test = await post(testKey, chargeBody(), "same");
    expectStatus(test, 201);
    const live = await post(liveKey as string, chargeBody(), "same");
    expectStatus(live, 201);
    expect(live.body.id).not.toBe(test.body.id);
    expect(live.body.livemode).toBe(true);
  });

  test("when 20 requests with one idempotency-key arrive at once, then exactly one charge is created", async () => {
    const { testKey } = await server.newAccount();
    const responses = await Promise.all(Array.from({ length: 20 }, () => post(testKey, chargeBody(), "race")));
    expect(new Set(responses.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(responses.map((r) => (r.status === 201 ? r.body.id : r.status))).size).toBe(1);
    expect(await countCharges(testKey)).toBe(1);
  });
});
