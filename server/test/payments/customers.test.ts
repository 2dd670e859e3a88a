import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import {
  byId,
  chargeBody,
  type ErrorBody,
  expectStatus,
  publicApi,
  rawCall,
  startTestServer,
  type TestServer,
} from "../harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

type UpsertCustomerRequest = components["schemas"]["UpsertCustomerRequest"];
const api = (key: string) => publicApi(server.baseUrl, { key });
const upsert = (key: string, body: UpsertCustomerRequest) => api(key).POST("/api/v1/customers", { body });
const patch = (key: string, id: string, body: components["schemas"]["UpdateCustomerRequest"]) =>
  api(key).PATCH("/api/v1/customers/{id}", { ...byId(id), body });
/** A customer as read back (the read must succeed). */
async function read(key: string, id: string) {
  const res = await api(key).GET("/api/v1/customers/{id}", byId(id));
  expectStatus(res, 200);
  return res.body;
}
/** Bodies the document refuses: sent untyped. */
const rawUpsert = (key: string, body: unknown) =>
  rawCall<ErrorBody>(server.baseUrl, "POST", "/api/v1/customers", { key, body });
const rawPatch = (key: string, id: string, body: unknown) =>
  rawCall<ErrorBody>(server.baseUrl, "PATCH", `/api/v1/customers/${id}`, { key, body });
const now = () => server.clock.now().toISOString();

const address = {
  zipCode: "01310-100",
  street: "Avenida Paulista",
  number: "1578",
  district: "Bela Vista",
  city: "São Paulo",
  state: "SP",
};

const customerBody = (overrides: Partial<UpsertCustomerRequest> = {}): UpsertCustomerRequest => ({
  name: "Maria da Silva Santos",
  document: "529.982.247-25",
  email: "maria.santos@example.com.br",
  phone: "11987654321",
  ...overrides,
});

async function createCustomer(key: string, overrides: Partial<UpsertCustomerRequest> = {}) {
  const res = await upsert(key, customerBody(overrides));
  expectStatus(res, 201);
  return res.body;
}

async function listCustomers(key: string, query: { document?: string } = {}) {
  const res = await api(key).GET("/api/v1/customers", { params: { query } });
  expectStatus(res, 200);
  return res.body.data;
}

describe("POST /api/v1/customers", () => {
  test("when the document is new, then 201 with the document as digits and address null", async () => {
    const { testKey } = await server.newAccount();

    const res = await upsert(testKey, customerBody());

    expectStatus(res, 201);
    expect(res.body.id).toMatch(/^cus_[A-Za-z0-9]+$/);
    expect(res.body).toEqual({
      id: res.body.id,
      name: "Maria da Silva Santos",
      email: "maria.santos@example.com.br",
      phone: "11987654321",
      documentType: "CPF",
      document: "52998224725",
      address: null,
      livemode: false,
      createdAt: now(),
      updatedAt: now(),
    });
  });

  test("when a CNPJ is sent with punctuation, then it is stored as digits with documentType CNPJ", async () => {
    const { testKey } = await server.newAccount();

    const res = await upsert(testKey, customerBody({ name: "Loja Exemplo Ltda", document: "11.222.333/0001-81" }));

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ documentType: "CNPJ", document: "11222333000181" });
  });

  test.each([
    { name: "punctuated, then digits", first: "529.982.247-25", second: "52998224725" },
    { name: "digits, then punctuated", first: "52998224725", second: "529.982.247-25" },
  ])(
    "when the document already exists ($name), then 200 and the same customer is updated",
    async ({ first, second }) => {
      const { testKey } = await server.newAccount();
      const created = await createCustomer(testKey, { document: first });

      const res = await upsert(testKey, customerBody({ document: second, name: "Maria S. Santos" }));

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: created.id, document: "52998224725", name: "Maria S. Santos" });
      expect(await listCustomers(testKey)).toHaveLength(1);
    },
  );

  test("when only the name is sent for an existing document, then email, phone and address stay as they were", async () => {
    const { testKey } = await server.newAccount();
    const created = await createCustomer(testKey, { address });
    server.clock.advance(10);

    const res = await upsert(testKey, { name: "Maria Santos", document: "52998224725" });

    expect(res.status).toBe(200);
    const after = await read(testKey, created.id);
    expect(after).toEqual({ ...created, name: "Maria Santos", updatedAt: now() });
    expect(after.address).toEqual({ ...address, complement: null });
  });

  test("when an existing customer never had an address and none is sent, then address stays null", async () => {
    const { testKey } = await server.newAccount();
    const created = await createCustomer(testKey);

    await upsert(testKey, { name: "Maria Santos", document: "52998224725", email: "maria@example.com.br" });

    expect((await read(testKey, created.id)).address).toBeNull();
  });

  test("when only some address fields are sent for an existing customer, then they merge into the address", async () => {
    const { testKey } = await server.newAccount();
    const created = await createCustomer(testKey, { address });

    const res = await upsert(testKey, customerBody({ address: { complement: "Apto 12", number: "1600" } }));

    expect(res.status).toBe(200);
    expect((await read(testKey, created.id)).address).toEqual({ ...address, number: "1600", complement: "Apto 12" });
  });

  test("when the address is sent as an empty object, then no address field was given and address stays null", async () => {
    const { testKey } = await server.newAccount();

    const res = await upsert(testKey, customerBody({ address: {} }));

    expectStatus(res, 201);
    expect((await read(testKey, res.body.id)).address).toBeNull();
  });

  test.each([
    { name: "CPF check digits fail", document: "529.982.247-24" },
    { name: "CPF of repeated digits", document: "111.111.111-11" },
    { name: "CNPJ check digits fail", document: "11.222.333/0001-82" },
  ])("when the $name, then 400 REQUEST_ERROR and nothing is created", async ({ document }) => {
    const { testKey } = await server.newAccount();

    const res = await upsert(testKey, customerBody({ document }));

    expectStatus(res, 400);
    expect(res.body.code).toBe("REQUEST_ERROR");
    expect(res.body.message).toMatch(/inválido/);
    expect(await listCustomers(testKey)).toEqual([]);
  });

  test.each([
    { name: "name has 1 character", patch: { name: "M" }, path: "name" },
    { name: "name has 121 characters", patch: { name: "M".repeat(121) }, path: "name" },
    { name: "name is missing", patch: { name: undefined }, path: "name" },
    { name: "email is malformed", patch: { email: "maria.santos@" }, path: "email" },
    { name: "phone has 21 characters", patch: { phone: "1".repeat(21) }, path: "phone" },
    { name: "document has 10 characters", patch: { document: "5299822472" }, path: "document" },
    { name: "document has 19 characters", patch: { document: "529.982.247-25.0000" }, path: "document" },
    {
      name: "address.street has 161 characters",
      patch: { address: { street: "R".repeat(161) } },
      path: "address.street",
    },
    {
      name: "address.zipCode has 5000 characters",
      patch: { address: { zipCode: "1".repeat(5000) } },
      path: "address.zipCode",
    },
    { name: "address.zipCode has 7 digits", patch: { address: { zipCode: "0131-010" } }, path: "address.zipCode" },
    { name: "address.state is not a UF", patch: { address: { state: "XX" } }, path: "address.state" },
    { name: "address.state is lower case", patch: { address: { state: "sp" } }, path: "address.state" },
    { name: "unknown field", patch: { surprise: true }, path: "surprise" },
  ])("when $name, then 400 VALIDATION_ERROR names the field and nothing is created", async ({ patch, path }) => {
    const { testKey } = await server.newAccount();

    const res = await rawUpsert(testKey, { ...customerBody(), ...patch });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ ok: false, code: "VALIDATION_ERROR", path: "/api/v1/customers" });
    expect(res.body.errors?.map((e) => e.path)).toContain(path);
    expect(await listCustomers(testKey)).toEqual([]);
  });

  test("when the same document is upserted with the test and the production key, then each mode has its own customer", async () => {
    const { testKey, liveKey } = await server.newAccount();
    const key = liveKey as string;
    const inTest = await createCustomer(testKey);

    const inLive = await upsert(key, customerBody());

    expectStatus(inLive, 201);
    expect(inLive.body.id).not.toBe(inTest.id);
    expect(inLive.body.livemode).toBe(true);
    const byDocument = { document: "52998224725" };
    expect((await listCustomers(testKey, byDocument)).map((c) => c.id)).toEqual([inTest.id]);
    expect((await listCustomers(key, byDocument)).map((c) => c.id)).toEqual([inLive.body.id]);
  });

  test("when the same document is upserted by two accounts, then each account has its own customer", async () => {
    const first = await server.newAccount();
    const second = await server.newAccount();
    const mine = await createCustomer(first.testKey);

    const theirs = await upsert(second.testKey, customerBody());

    expectStatus(theirs, 201);
    expect(theirs.body.id).not.toBe(mine.id);
  });

  test("when 10 upserts of one new document arrive at once, then one customer is created and the others update it", async () => {
    const { testKey } = await server.newAccount();

    const responses = await Promise.all(Array.from({ length: 10 }, () => upsert(testKey, customerBody())));

    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(9);
    expect(new Set(responses.map((r) => (r.status === 200 || r.status === 201 ? r.body.id : r.status))).size).toBe(1);
    expect(await listCustomers(testKey)).toHaveLength(1);
  });

  test("when a charge is made for an existing customer's document, then the charge reuses the customer id", async () => {
    const { testKey } = await server.newAccount();
    const customer = await createCustomer(testKey);

    const charge = await api(testKey).POST("/api/v1/charges/pix", { body: chargeBody() });

    expectStatus(charge, 201);
    expect(charge.body.customer.id).toBe(customer.id);
    expect((await listCustomers(testKey)).map((c) => c.id)).toEqual([customer.id]);
  });
});

describe("a payer who comes back", () => {
  test("when a customer is upserted again with the same data, then 200 and updatedAt stays when it last changed", async () => {
    const { testKey } = await server.newAccount();
    const customer = await createCustomer(testKey, { address });
    server.clock.advance(60);

    const again = await upsert(testKey, customerBody({ address }));

    expect(again.status).toBe(200);
    expect(again.body).toEqual(customer);
  });

  test("when a charge names a known payer with the same data, then the customer is unchanged; with a new e-mail, it is updated", async () => {
    const { testKey } = await server.newAccount();
    const customer = await createCustomer(testKey);
    const { name, email, phone, document } = customer;
    if (name === null || email === null || phone === null) throw new Error("the customer was made whole");
    const payer = { name, email, phone, documentType: "CPF", document } as const;
    server.clock.advance(60);

    const same = await api(testKey).POST("/api/v1/charges/pix", { body: chargeBody({ customer: payer }) });
    expect(same.status).toBe(201);
    expect(await read(testKey, customer.id)).toEqual(customer);

    server.clock.advance(60);
    const changed = await api(testKey).POST("/api/v1/charges/pix", {
      body: chargeBody({ customer: { ...payer, email: "maria@novo.example.com.br" } }),
    });
    expect(changed.status).toBe(201);
    expect(await read(testKey, customer.id)).toEqual({
      ...customer,
      email: "maria@novo.example.com.br",
      updatedAt: now(),
    });
  });
});

describe("GET /api/v1/customers", () => {
  test.each([
    { name: "with punctuation", query: { document: "529.982.247-25" } },
    { name: "digits only", query: { document: "52998224725" } },
  ])("when filtering by document $name, then the page holds exactly that customer", async ({ query }) => {
    const { testKey } = await server.newAccount();
    const customer = await createCustomer(testKey);
    await createCustomer(testKey, { name: "Empresa Exemplo", document: "11222333000181" });

    const listed = await listCustomers(testKey, query);

    expect(listed).toEqual([customer]);
  });

  test.each([
    { name: "its check digits fail", document: "529.982.247-24" },
    { name: "it has the shape of no document", document: "123" },
    { name: "it is unknown to this account", document: "11222333000181" },
  ])(
    "when filtering by a document that matches no customer because $name, then the page is empty",
    async ({ document }) => {
      const { testKey } = await server.newAccount();
      await createCustomer(testKey);

      const res = await api(testKey).GET("/api/v1/customers", { params: { query: { document } } });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [], hasMore: false });
    },
  );

  test("when no filter is given, then customers are listed newest first", async () => {
    const { testKey } = await server.newAccount();
    const first = await createCustomer(testKey);
    server.clock.advance(1);
    const second = await createCustomer(testKey, { name: "Empresa Exemplo", document: "11222333000181" });

    const listed = await listCustomers(testKey);

    expect(listed.map((c) => c.id)).toEqual([second.id, first.id]);
  });
});

describe("GET /api/v1/customers/{id}", () => {
  test("when the customer exists, then 200 with the customer as upserted", async () => {
    const { testKey } = await server.newAccount();
    const customer = await createCustomer(testKey, { address });

    const res = await api(testKey).GET("/api/v1/customers/{id}", byId(customer.id));

    expect(res.status).toBe(200);
    expect(res.body).toEqual(customer);
  });

  test("when the customer belongs to another account, then 404 NOT_FOUND", async () => {
    const owner = await server.newAccount();
    const other = await server.newAccount();
    const customer = await createCustomer(owner.testKey);

    const res = await api(other.testKey).GET("/api/v1/customers/{id}", byId(customer.id));

    expectStatus(res, 404);
    expect(res.body.code).toBe("NOT_FOUND");
  });
});

describe("PATCH /api/v1/customers/{id}", () => {
  test("when only the e-mail is sent, then only the e-mail changes", async () => {
    const { testKey } = await server.newAccount();
    const customer = await createCustomer(testKey, { address });
    server.clock.advance(10);

    const res = await patch(testKey, customer.id, { email: "maria@novo.example.com.br" });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...customer, email: "maria@novo.example.com.br", updatedAt: now() });
    expect(await read(testKey, customer.id)).toEqual(res.body);
  });

  test("when some address fields are sent, then they merge into the address", async () => {
    const { testKey } = await server.newAccount();
    const customer = await createCustomer(testKey, { address });

    const res = await patch(testKey, customer.id, { address: { complement: "Sala 4" } });

    expect(res.status).toBe(200);
    expect((await read(testKey, customer.id)).address).toEqual({ ...address, complement: "Sala 4" });
  });

  test("when an address field is sent as null, then that field is cleared and the others stay", async () => {
    const { testKey } = await server.newAccount();
    const customer = await createCustomer(testKey, { address: { ...address, complement: "Apto 12" } });

    const res = await patch(testKey, customer.id, { address: { complement: null } });

    expect(res.status).toBe(200);
    expect((await read(testKey, customer.id)).address).toEqual({ ...address, complement: null });
  });

  test.each([
    { name: "document is sent", body: { document: "11222333000181" }, path: "document" },
    { name: "name has 1 character", body: { name: "M" }, path: "name" },
    { name: "email is malformed", body: { email: "maria" }, path: "email" },
    { name: "address.city has 81 characters", body: { address: { city: "C".repeat(81) } }, path: "address.city" },
  ])("when $name, then 400 VALIDATION_ERROR names the field and the customer is unchanged", async ({ body, path }) => {
    const { testKey } = await server.newAccount();
    const customer = await createCustomer(testKey);

    const res = await rawPatch(testKey, customer.id, body);

    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.errors?.map((e) => e.path)).toContain(path);
    expect(await read(testKey, customer.id)).toEqual(customer);
  });

  test("when the customer belongs to another account, then 404 and it is unchanged", async () => {
    const owner = await server.newAccount();
    const other = await server.newAccount();
    const customer = await createCustomer(owner.testKey);

    const res = await patch(other.testKey, customer.id, { name: "Outra Pessoa" });

    expectStatus(res, 404);
    expect(res.body.code).toBe("NOT_FOUND");
    expect((await read(owner.testKey, customer.id)).name).toBe("Maria da Silva Santos");
  });
});
