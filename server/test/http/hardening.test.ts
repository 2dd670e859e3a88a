import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  chargeBody,
  type ErrorBody,
  expectStatus,
  publicApi,
  rawCall,
  startTestServer,
  testAdminToken,
  type TestServer,
} from "../harness.js";
import { eachStore, serverOn } from "../support/stores.js";

// Input the HTTP layer must refuse, or route, the same way on every store: the cases that reached a
// 500 (or were stored wrong) on one store or both. Most requests here are broken on purpose and go
// untyped, through rawCall; the ones the document describes go through the typed client.

/** `{"a":{"a":…1…}}` nested `levels` objects deep. */
const nestedObject = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

for (const store of eachStore("hardening", { poolMax: 4 })) {
  store.describe(`HTTP hardening on the ${store.name} store`, () => {
    const server = serverOn(store);
    let key: string;
    beforeAll(async () => {
      ({ testKey: key } = await server.newAccount());
    });

    const api = () => publicApi(server.baseUrl, { key });
    /** A body the document refuses. */
    const post = (path: string, body: unknown) => rawCall<ErrorBody>(server.baseUrl, "POST", path, { key, body });
    const raw = (path: string, rawBody: string, headers: Record<string, string> = {}) =>
      rawCall<ErrorBody>(server.baseUrl, "POST", path, {
        key,
        rawBody,
        headers: { "content-type": "application/json", ...headers },
      });

    describe("routing is case-sensitive and strict", () => {
      test.each([
        { name: "upper-case path without a key", method: "GET", path: "/API/V1/BALANCE", withKey: false },
        { name: "mixed-case path with a key", method: "GET", path: "/Api/v1/balance", withKey: true },
        { name: "trailing slash", method: "GET", path: "/api/v1/balance/", withKey: true },
        { name: "upper-case POST", method: "POST", path: "/api/v1/CHARGES/pix", withKey: true },
        { name: "upper-case withdrawal", method: "POST", path: "/api/v1/Withdrawals", withKey: true },
        { name: "upper-case operator path", method: "GET", path: "/ADMIN/v1/accounts", withKey: false },
        { name: "upper-case checkout path", method: "GET", path: "/CHECKOUT/plk_abc", withKey: false },
      ])("when a $name is called, then it is 404 NOT_FOUND saying the route does not exist", async (c) => {
        const res = await rawCall<ErrorBody>(server.baseUrl, c.method, c.path, {
          ...(c.withKey ? { key } : {}),
          ...(c.path.startsWith("/ADMIN") ? { admin: testAdminToken } : {}),
          ...(c.method === "POST" ? { body: chargeBody() } : {}),
        });

        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ ok: false, code: "NOT_FOUND" });
        expect(res.body.message).toBe(`Rota não encontrada: ${c.method} ${c.path}.`);
      });

      test.each([
        { name: "a charge id", method: "GET", path: "/api/v1/transactions/%E0%A4%A" },
        { name: "a payment link id", method: "GET", path: "/api/v1/payment-links/plk_%C3%28" },
        { name: "a customer id", method: "PATCH", path: "/api/v1/customers/%FF" },
      ])(
        "when $name in the path is a percent-encoding that is not UTF-8, then it is 400 VALIDATION_ERROR on the path, in Portuguese",
        async (c) => {
          const res = await rawCall<ErrorBody>(server.baseUrl, c.method, c.path, { key });

          expect(res.status).toBe(400);
          expect(res.body).toMatchObject({
            ok: false,
            code: "VALIDATION_ERROR",
            errors: [{ path: "path", message: "o caminho da URL tem uma codificação percentual (%) inválida" }],
          });
          expect(res.body.errors).toHaveLength(1);
        },
      );

      test("when a fixed segment of the path is a percent-encoding that is not UTF-8, then no route has it: 404 NOT_FOUND", async () => {
        const res = await rawCall<ErrorBody>(server.baseUrl, "GET", "/api/v1/bal%E0nce", { key });

        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ ok: false, code: "NOT_FOUND" });
        expect(res.body.message).toBe("Rota não encontrada: GET /api/v1/bal%E0nce.");
      });

      test("when a known id is missing, then the 404 message is the one about objects, not routes", async () => {
        const res = await api().GET("/api/v1/transactions/{id}", { params: { path: { id: "txn_doesnotexist" } } });

        expectStatus(res, 404);
        expect(res.body.message).toBe("Recurso não encontrado nesta conta e modo.");
      });
    });

    describe("deep JSON", () => {
      test("when a 12 KB body nests 6,000 levels, then it is 400 VALIDATION_ERROR (401 without a key), not a stack overflow", async () => {
        const { testKey } = await server.newAccount();
        const body = "[".repeat(6000) + "]".repeat(6000);
        const send = (key?: string) =>
          rawCall<ErrorBody>(server.baseUrl, "POST", "/api/v1/charges/pix", {
            ...(key ? { key } : {}),
            rawBody: body,
            headers: { "content-type": "application/json" },
          });

        const withKey = await send(testKey);
        const withoutKey = await send();

        expect(withKey.status).toBe(400);
        expect(withKey.body.code).toBe("VALIDATION_ERROR");
        expect(withKey.body.errors?.[0]?.message).toMatch(/32 níveis/);
        // The key is checked before the body is read, as the contract and the mock answer.
        expect(withoutKey.status).toBe(401);
      });

      test("when metadata nests deeper than 32 levels, then the charge is refused naming metadata and nothing is created", async () => {
        const { testKey } = await server.newAccount();
        const res = await publicApi(server.baseUrl, { key: testKey }).POST("/api/v1/charges/pix", {
          body: chargeBody({ metadata: { deep: nestedObject(2000) } }),
        });
        const list = await publicApi(server.baseUrl, { key: testKey }).GET("/api/v1/transactions");

        expectStatus(res, 400);
        expect(res.body.errors?.[0]?.path).toMatch(/^metadata\.deep\.a\.a/);
        expectStatus(list, 200);
        expect(list.body.data).toEqual([]);
      });

      test("when metadata nests within the limit, then it is stored and read back unchanged", async () => {
        const metadata = { deep: nestedObject(25) };
        const created = await api().POST("/api/v1/charges/pix", { body: chargeBody({ metadata }) });
        expectStatus(created, 201);
        const read = await api().GET("/api/v1/transactions/{id}", { params: { path: { id: created.body.id } } });

        expectStatus(read, 200);
        expect(read.body.metadata).toEqual(metadata);
      });
    });

    describe("malformed Unicode", () => {
      const lone = "\\ud800";
      test.each([
        {
          name: "description",
          path: "/api/v1/charges/pix",
          json: `{"amountCents":1000,"description":"a${lone}"}`,
          field: "description",
        },
        {
          name: "customer name",
          path: "/api/v1/charges/pix",
          json: `{"amountCents":1000,"customer":{"name":"Maria${lone}","email":"m@example.com","documentType":"CPF","document":"52998224725"}}`,
          field: "customer.name",
        },
        {
          name: "metadata value",
          path: "/api/v1/charges/pix",
          json: `{"amountCents":1000,"metadata":{"a":"${lone}"}}`,
          field: "metadata.a",
        },
        {
          name: "metadata key",
          path: "/api/v1/charges/pix",
          json: `{"amountCents":1000,"metadata":{"a${lone}":"x"}}`,
          field: "metadata.a\ufffd",
        },
        {
          name: "address",
          path: "/api/v1/customers",
          json: `{"name":"Maria","email":"m@example.com","documentType":"CPF","document":"52998224725","address":{"street":"Rua ${lone}"}}`,
          field: "address.street",
        },
        {
          name: "payment link description",
          path: "/api/v1/payment-links",
          json: `{"description":"Curso ${"\\udfff"}","amountCents":1000}`,
          field: "description",
        },
      ])(
        "when the $name has an unpaired surrogate, then it is 400 VALIDATION_ERROR naming it",
        async ({ path, json, field }) => {
          const res = await raw(path, json);

          expect(res.status).toBe(400);
          expect(res.body.code).toBe("VALIDATION_ERROR");
          expect(res.body.errors).toEqual([{ path: field, message: expect.stringMatching(/Unicode malformado/) }]);
        },
      );

      test("when a paired surrogate (an emoji) is sent, then it is stored and read back unchanged", async () => {
        const created = await api().POST("/api/v1/charges/pix", {
          body: chargeBody({ description: "Camiseta 👕 azul" }),
        });
        expectStatus(created, 201);
        const read = await api().GET("/api/v1/transactions/{id}", { params: { path: { id: created.body.id } } });

        expectStatus(read, 200);
        expect(read.body.description).toBe("Camiseta 👕 azul");
      });
    });

    describe("amounts", () => {
      test.each([
        { name: "a charge of 1 000 000 000 000", path: "/api/v1/charges/pix", body: chargeBody({ amountCents: 1e12 }) },
        { name: "a charge of 1e300", path: "/api/v1/charges/pix", body: chargeBody({ amountCents: 1e300 }) },
        { name: "a link of 2^53", path: "/api/v1/payment-links", body: { description: "Curso", amountCents: 2 ** 53 } },
        {
          name: "a withdrawal of 1e300",
          path: "/api/v1/withdrawals",
          body: { amountCents: 1e300, pixKey: "maria@example.com", pixKeyType: "EMAIL" },
        },
      ])(
        "when $name is asked, then it is 400 VALIDATION_ERROR on amountCents, not a 500 or a stored float",
        async (c) => {
          const res = await post(c.path, c.body);

          expect(res.status).toBe(400);
          expect(res.body.errors).toEqual([{ path: "amountCents", message: expect.any(String) }]);
        },
      );
    });

    describe("query strings and path parameters", () => {
      test.each([
        { name: "year 0000", value: "0000-01-01T00%3A00%3A00Z" },
        { name: "year 1969", value: "1969-12-31T23%3A59%3A59Z" },
        { name: "a leap second", value: "2016-12-31T23%3A59%3A60Z" },
        { name: "the 30th of February", value: "2026-02-30T00%3A00%3A00Z" },
      ])("when createdFrom is $name, then it is 400 VALIDATION_ERROR naming createdFrom", async ({ value }) => {
        const res = await rawCall<ErrorBody>(server.baseUrl, "GET", `/api/v1/transactions?createdFrom=${value}`, {
          key,
        });

        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([{ path: "createdFrom", message: expect.any(String) }]);
      });

      test.each(["Infinity", "1e309", "-Infinity"])(
        "when limit is %s, then it is 400 VALIDATION_ERROR naming limit on every list",
        async (limit) => {
          for (const list of ["transactions", "withdrawals", "customers", "payment-links"]) {
            const res = await rawCall<ErrorBody>(server.baseUrl, "GET", `/api/v1/${list}?limit=${limit}`, { key });

            expect(res.status).toBe(400);
            expect(res.body.errors).toEqual([{ path: "limit", message: expect.any(String) }]);
          }
        },
      );

      test("when a date in the query has unencoded colons (RFC 3986 allows them), then it is accepted", async () => {
        // Spelled raw: the typed client would encode the colons.
        const res = await rawCall(server.baseUrl, "GET", "/api/v1/transactions?createdFrom=2026-11-23T08:49:50Z", {
          key,
        });

        expect(res.status).toBe(200);
      });

      test("when an id in the path holds NUL, then it is 404 NOT_FOUND", async () => {
        const res = await rawCall<ErrorBody>(server.baseUrl, "GET", "/api/v1/transactions/txn_abc%00", { key });

        expect(res.status).toBe(404);
        expect(res.body.code).toBe("NOT_FOUND");
      });

      test("when a query value holds NUL, then it is 400 VALIDATION_ERROR naming it", async () => {
        const res = await rawCall<ErrorBody>(server.baseUrl, "GET", "/api/v1/transactions?startingAfter=txn_%00", {
          key,
        });

        expect(res.status).toBe(400);
        expect(res.body.errors?.[0]?.path).toBe("startingAfter");
      });
    });
  });
}

/** A GET with a JSON body (fetch cannot send one). */
function getWithBody(
  baseUrl: string,
  path: string,
  key: string,
  body: string,
  auth: Record<string, string> = { "x-api-key": key },
): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, {
      method: "GET",
      headers: { ...auth, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("request bodies", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer();
    ({ testKey: key } = await server.newAccount());
  });
  afterAll(async () => {
    await server?.close();
  });

  test("when a POST body is text/plain, then it is 415 UNSUPPORTED_MEDIA_TYPE with the error body", async () => {
    const res = await rawCall(server.baseUrl, "POST", "/api/v1/charges/pix", {
      key,
      rawBody: JSON.stringify(chargeBody()),
      headers: { "content-type": "text/plain" },
    });

    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ ok: false, code: "UNSUPPORTED_MEDIA_TYPE" });
  });

  test("when a POST body passes 64 KiB, then it is 413 PAYLOAD_TOO_LARGE with the error body", async () => {
    const res = await rawCall(server.baseUrl, "POST", "/api/v1/charges/pix", {
      key,
      body: chargeBody({ description: "x".repeat(70_000) }),
    });

    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ ok: false, code: "PAYLOAD_TOO_LARGE" });
  });

  test("when a GET carries a large or malformed JSON body, then the body is ignored and the GET answers 200", async () => {
    const big = await getWithBody(server.baseUrl, "/api/v1/balance", key, JSON.stringify({ x: "x".repeat(70_000) }));
    const malformed = await getWithBody(server.baseUrl, "/api/v1/balance", key, "{");

    expect(big.status).toBe(200);
    expect(malformed.status).toBe(200);
  });

  test("when an operator GET carries a malformed JSON body, then the body is ignored and the GET answers 200", async () => {
    const { account } = await server.newAccount();
    const res = await getWithBody(server.baseUrl, `/admin/v1/accounts/${account.id}`, "", "{", {
      authorization: `Bearer ${testAdminToken}`,
    });

    expect(res.status).toBe(200);
  });
});

describe("security headers", () => {
  let server: TestServer;
  let plain: TestServer;
  let key: string;
  let linkId: string;
  beforeAll(async () => {
    server = await startTestServer();
    plain = await startTestServer({ publicBaseUrl: "http://localhost:3000" });
    ({ testKey: key } = await server.newAccount());
    const link = await publicApi(server.baseUrl, { key }).POST("/api/v1/payment-links", {
      body: { description: "Curso de fotografia", amountCents: 1000 },
    });
    expectStatus(link, 201);
    linkId = link.body.id;
  });
  afterAll(async () => {
    await server?.close();
    await plain?.close();
  });

  test.each([
    { name: "an API read", path: "/api/v1/balance", auth: "key", noStore: true },
    { name: "an API error", path: "/api/v1/transactions/txn_none", auth: "key", noStore: true },
    { name: "an unknown API route", path: "/api/v1/nothing", auth: "none", noStore: true },
    { name: "an operator read", path: "/admin/v1/accounts", auth: "admin", noStore: true },
    { name: "the docs", path: "/docs", auth: "none", noStore: false },
    { name: "the public document", path: "/openapi.yaml", auth: "none", noStore: false },
    { name: "the checkout", path: "/checkout/LINK", auth: "none", noStore: true },
  ])("when $name is served over an https PUBLIC_BASE_URL, then it has nosniff and HSTS", async (c) => {
    // Paths inside and outside the documents: untyped.
    const res = await rawCall(server.baseUrl, "GET", c.path.replace("LINK", linkId), {
      ...(c.auth === "key" ? { key } : {}),
      ...(c.auth === "admin" ? { admin: testAdminToken } : {}),
    });

    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("strict-transport-security")).toMatch(/^max-age=\d+/);
    if (c.noStore) expect(res.headers.get("cache-control")).toBe("no-store");
  });

  test("when PUBLIC_BASE_URL is http, then no HSTS is sent but nosniff and no-store still are", async () => {
    const { testKey } = await plain.newAccount();
    const res = await publicApi(plain.baseUrl, { key: testKey }).GET("/api/v1/balance");

    expectStatus(res, 200);
    expect(res.headers.get("strict-transport-security")).toBeNull();
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});

describe("rate limits and case variants", () => {
  test("when the GET budget is spent, then case variants of a route are 404 or 429, never served or 500", async () => {
    const server = await startTestServer({ rateLimits: { get: 2, write: 2, withdrawals: 1 } });
    try {
      const { testKey } = await server.newAccount();
      const api = publicApi(server.baseUrl, { key: testKey });
      for (let i = 0; i < 2; i++) await api.GET("/api/v1/balance");

      const spent = await api.GET("/api/v1/balance");
      // Spellings outside the document: untyped.
      const variant = await rawCall(server.baseUrl, "GET", "/Api/v1/balance", { key: testKey });
      const slash = await rawCall(server.baseUrl, "GET", "/api/v1/balance/", { key: testKey });

      expect(spent.status).toBe(429);
      expect(variant.status).toBe(404);
      expect(slash.status).toBe(429);
    } finally {
      await server.close();
    }
  });
});

describe("operator API spellings", () => {
  test.each(["/admin/v1/accounts/", "/Admin/v1/accounts", "/admin/V1/accounts"])(
    "when %s is called with the operator token, then it is 404 saying the route does not exist",
    async (path) => {
      const server = await startTestServer();
      try {
        const res = await rawCall<ErrorBody>(server.baseUrl, "GET", path, { admin: testAdminToken });

        expect(res.status).toBe(404);
        expect(res.body.message).toBe(`Rota não encontrada: GET ${path}.`);
      } finally {
        await server.close();
      }
    },
  );
});

describe("the home page", () => {
  test("when the Host header holds markup, then the page shows it as text and runs none of it", async () => {
    const server = await startTestServer();
    try {
      const hostile = `evil.example"><script>alert(1)</script>`;
      const page = await new Promise<string>((resolve, reject) => {
        const req = request(`${server.baseUrl}/`, { headers: { host: hostile, accept: "text/html" } });
        req.on("response", (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => resolve(text));
        });
        req.on("error", reject);
        req.end();
      });

      expect(page).toContain(
        "curl -s http://evil.example&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;/api/v1/balance",
      );
      expect(page).not.toContain("<script>");
    } finally {
      await server.close();
    }
  });
});
