import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
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

/** English words that would betray an untranslated message from a library. */
const english = /\b(the|is|not|found|invalid|method|allowed|request|entity|too|large|unsupported|error|unexpected)\b/i;

/** The error body: nothing more, nothing less, no internals. */
function expectSeedError(
  res: { status: number; body: unknown; headers: Headers },
  status: number,
  code: string,
  path: string,
): asserts res is { status: number; body: ErrorBody; headers: Headers } {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ ok: false, code, path });
  const body = res.body as ErrorBody;
  expect(typeof body.message).toBe("string");
  expect(body.message.length).toBeGreaterThan(0);
  expect(body.message).not.toMatch(english);
  expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  const allowed =
    code === "VALIDATION_ERROR"
      ? ["ok", "code", "message", "errors", "path", "timestamp"]
      : ["ok", "code", "message", "path", "timestamp"];
  for (const field of Object.keys(body)) expect(allowed).toContain(field);
  expect(JSON.stringify(body)).not.toMatch(/stack|\bat .+\.(js|ts):\d+|node_modules/);
}

const api = (key: string) => publicApi(server.baseUrl, { key });

async function countCharges(key: string) {
  const res = await api(key).GET("/api/v1/transactions", { params: { query: { limit: 100 } } });
  expectStatus(res, 200);
  return res.body.data.length;
}

// Most requests here are broken on purpose (malformed bodies, unknown routes and methods,
// parameters out of range): they go untyped, through rawCall.

describe("POST /api/v1/charges/pix (body parsing)", () => {
  test("when the body is malformed JSON, then 400 VALIDATION_ERROR on the path body and nothing is created", async () => {
    const { testKey } = await server.newAccount();

    const res = await rawCall(server.baseUrl, "POST", "/api/v1/charges/pix", {
      key: testKey,
      rawBody: '{"amountCents": 8990, "description": ',
      headers: { "content-type": "application/json" },
    });

    expectSeedError(res, 400, "VALIDATION_ERROR", "/api/v1/charges/pix");
    expect(res.body.errors?.[0]?.path).toBe("body");
    expect(res.body.errors?.[0]?.message).not.toMatch(english);
    expect(await countCharges(testKey)).toBe(0);
  });

  test.each([
    { name: "malformed JSON", rawBody: '{"amountCents": ' },
    { name: "a JSON string", rawBody: '"texto"' },
    { name: "larger than 64 KiB", rawBody: JSON.stringify(chargeBody({ metadata: { note: "x".repeat(70_000) } })) },
  ])(
    "when the body is $name and no key is sent, then 401 UNAUTHORIZED (the key is checked before the body)",
    async (c) => {
      const res = await rawCall(server.baseUrl, "POST", "/api/v1/charges/pix", {
        rawBody: c.rawBody,
        headers: { "content-type": "application/json" },
      });

      expectSeedError(res, 401, "UNAUTHORIZED", "/api/v1/charges/pix");
    },
  );

  test("when the body is larger than 64 KiB, then 413 PAYLOAD_TOO_LARGE and nothing is created", async () => {
    const { testKey } = await server.newAccount();
    const body = chargeBody({ metadata: { note: "x".repeat(64 * 1024) } });

    const res = await rawCall(server.baseUrl, "POST", "/api/v1/charges/pix", {
      key: testKey,
      body,
    });

    expectSeedError(res, 413, "PAYLOAD_TOO_LARGE", "/api/v1/charges/pix");
    expect(await countCharges(testKey)).toBe(0);
  });

  test("when the body is just under 64 KiB, then it is read (and refused only by the metadata rule)", async () => {
    const { testKey } = await server.newAccount();
    const body = chargeBody({ metadata: { note: "x".repeat(60 * 1024) } });

    const res = await rawCall(server.baseUrl, "POST", "/api/v1/charges/pix", {
      key: testKey,
      body,
    });

    expectSeedError(res, 400, "VALIDATION_ERROR", "/api/v1/charges/pix");
    // The value passes the 8185 characters a string metadata value may have (spec/common/scalars.tsp).
    expect(res.body.errors?.map((e) => e.path)).toEqual(["metadata.note"]);
  });

  test("when the body has 500 unknown fields, then 400 VALIDATION_ERROR lists the first 100 and nothing is created", async () => {
    const { testKey } = await server.newAccount();
    const extra = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`extra${i}`, i]));

    const res = await rawCall(server.baseUrl, "POST", "/api/v1/charges/pix", { key: testKey, body: chargeBody(extra) });

    expectSeedError(res, 400, "VALIDATION_ERROR", "/api/v1/charges/pix");
    expect(res.body.errors).toHaveLength(100);
    expect(res.body.errors?.[0]).toEqual({ path: "extra0", message: "campo não permitido" });
    expect(await countCharges(testKey)).toBe(0);
  });

  test("when the content-type is text/plain, then 415 UNSUPPORTED_MEDIA_TYPE and nothing is created", async () => {
    const { testKey } = await server.newAccount();

    const res = await rawCall(server.baseUrl, "POST", "/api/v1/charges/pix", {
      key: testKey,
      rawBody: JSON.stringify(chargeBody()),
      headers: { "content-type": "text/plain" },
    });

    expectSeedError(res, 415, "UNSUPPORTED_MEDIA_TYPE", "/api/v1/charges/pix");
    expect(await countCharges(testKey)).toBe(0);
  });
});

describe("Routing", () => {
  test.each([
    { name: "an unknown route under /api/v1", path: "/api/v1/refunds" },
    {
      name: "an unknown sub-route of a known resource",
      path: "/api/v1/charges/boleto",
    },
    { name: "an unknown version", path: "/api/v2/balance" },
  ])("when $name is called, then 404 NOT_FOUND in the seed shape", async ({ path }) => {
    const { testKey } = await server.newAccount();

    const res = await rawCall(server.baseUrl, "GET", path, { key: testKey });

    expectSeedError(res, 404, "NOT_FOUND", path);
  });

  test.each([
    { name: "a probe with a trailing slash and NUL in its query", method: "GET", path: "/ready/?a=%00" },
    { name: "a probe in another case with NUL in its query", method: "GET", path: "/Health?a=%00" },
    { name: "an unknown page with NUL in its query", method: "GET", path: "/nowhere?q=%00" },
    { name: "an unknown page with a malformed JSON body", method: "POST", path: "/nowhere", rawBody: "{" },
  ])(
    "when $name is requested outside /api, then 404 NOT_FOUND, not the API's 400",
    async ({ method, path, rawBody }) => {
      const { testKey } = await server.newAccount();

      const res = await rawCall(server.baseUrl, method, path, {
        key: testKey,
        ...(rawBody ? { rawBody, headers: { "content-type": "application/json" } } : {}),
      });

      expectSeedError(res, 404, "NOT_FOUND", path.split("?")[0]!);
    },
  );

  test("when POST /health is sent with a malformed JSON body, then 404 NOT_FOUND, the one error the probe declares", async () => {
    const res = await rawCall(server.baseUrl, "POST", "/health", {
      rawBody: "{",
      headers: { "content-type": "application/json" },
    });

    expectSeedError(res, 404, "NOT_FOUND", "/health");
  });

  test.each([
    {
      name: "DELETE /api/v1/charges/pix",
      method: "DELETE",
      path: "/api/v1/charges/pix",
    },
    {
      name: "PUT /api/v1/customers/{id}",
      method: "PUT",
      path: "/api/v1/customers/cus_1",
    },
    {
      name: "DELETE /api/v1/customers",
      method: "DELETE",
      path: "/api/v1/customers",
    },
  ])("when $name is sent, then 405 METHOD_NOT_ALLOWED in the seed shape", async ({ method, path }) => {
    const { testKey } = await server.newAccount();

    const res = await rawCall(server.baseUrl, method, path, { key: testKey });

    expectSeedError(res, 405, "METHOD_NOT_ALLOWED", path);
  });

  test.each([
    {
      name: "DELETE /api/v1/charges/pix",
      method: "DELETE",
      path: "/api/v1/charges/pix",
      allowed: ["POST"],
    },
    {
      name: "PUT /api/v1/customers/{id}",
      method: "PUT",
      path: "/api/v1/customers/cus_1",
      allowed: ["GET", "PATCH"],
    },
  ])(
    "when $name is refused with 405, then Allow lists the methods the path has (RFC 9110 §15.5.6)",
    async ({ method, path, allowed }) => {
      const { testKey } = await server.newAccount();

      const res = await rawCall(server.baseUrl, method, path, { key: testKey });

      expect(res.status).toBe(405);
      const allow = (res.headers.get("allow") ?? "").split(",").map((m) => m.trim().toUpperCase());
      expect(allow).toEqual(expect.arrayContaining(allowed));
      expect(allow).not.toContain(method);
    },
  );
});

describe("x-request-id", () => {
  test.each([
    {
      name: "GET /health",
      method: "GET",
      path: "/health",
      status: 200,
      key: false,
    },
    {
      name: "a call without a key",
      method: "GET",
      path: "/api/v1/balance",
      status: 401,
      key: false,
    },
    {
      name: "an authenticated call",
      method: "GET",
      path: "/api/v1/balance",
      status: 200,
      key: true,
    },
    {
      name: "an unknown route",
      method: "GET",
      path: "/api/v1/nothing",
      status: 404,
      key: true,
    },
  ])(
    "when $name has no x-request-id, then the response carries a generated one",
    async ({ method, path, status, key }) => {
      const { testKey } = await server.newAccount();

      const first = await rawCall(server.baseUrl, method, path, key ? { key: testKey } : {});
      const second = await rawCall(server.baseUrl, method, path, key ? { key: testKey } : {});

      expect(first.status).toBe(status);
      expect(first.headers.get("x-request-id")).toMatch(/^[\w.:-]{8,128}$/);
      expect(second.headers.get("x-request-id")).toMatch(/^[\w.:-]{8,128}$/);
      expect(second.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    },
  );

  test.each([
    { name: "a sane id on a success", path: "/api/v1/balance", key: true },
    { name: "a sane id on a refusal", path: "/api/v1/balance", key: false },
  ] as const)("when the client sends $name, then it is echoed", async ({ path, key }) => {
    const { testKey } = await server.newAccount();

    const res = await publicApi(server.baseUrl, {
      ...(key ? { key: testKey } : {}),
      headers: { "x-request-id": "pedido-1234.tentativa:2" },
    }).GET(path);

    expect(res.headers.get("x-request-id")).toBe("pedido-1234.tentativa:2");
  });

  test.each([
    { name: "spaces and markup", id: "<script>alert(1)</script> x" },
    { name: "more than 128 characters", id: "a".repeat(129) },
  ])("when the client sends an id with $name, then a fresh id replaces it", async ({ id }) => {
    const res = await publicApi(server.baseUrl, { headers: { "x-request-id": id } }).GET("/health");

    expect(res.headers.get("x-request-id")).toMatch(/^[\w.:-]{8,128}$/);
    expect(res.headers.get("x-request-id")).not.toBe(id);
  });
});

describe("Unexpected failures", () => {
  test("when a handler throws, then 500 INTERNAL_ERROR without internals", async () => {
    const { testKey } = await server.newAccount();
    const original = server.domain.balance.get;
    server.domain.balance.get = async () => {
      throw new Error("boom secret at /srv/app/server/src/domain/balance.ts:12");
    };
    let res: Awaited<ReturnType<typeof rawCall>>;
    try {
      res = await api(testKey).GET("/api/v1/balance");
    } finally {
      server.domain.balance.get = original;
    }

    expectSeedError(res, 500, "INTERNAL_ERROR", "/api/v1/balance");
    const text = JSON.stringify(res.body);
    expect(text).not.toContain("boom");
    expect(text).not.toContain("secret");
    expect(text).not.toContain("balance.ts");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect((await api(testKey).GET("/api/v1/balance")).status).toBe(200);
  });
});

describe("GET /health", () => {
  test("when called without a key, then 200", async () => {
    const res = await publicApi(server.baseUrl).GET("/health");

    expectStatus(res, 200);
    expect(res.body).toEqual({ ok: true });
  });
});

describe("GET /openapi.yaml", () => {
  test("when called without a key, then the public OpenAPI document is served", async () => {
    const res = await rawCall<string>(server.baseUrl, "GET", "/openapi.yaml");

    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/yaml/);
    expect(res.body).toContain("openapi: 3.0.0");
    expect(res.body).toContain("/api/v1/charges/pix:");
  });
});

describe("GET /docs/api/public/", () => {
  test("when called, then the HTML loads only local scripts and stylesheets, and each of them is served", async () => {
    const res = await rawCall<string>(server.baseUrl, "GET", "/docs/api/public/");
    const html = String(res.body);
    const scripts = [...html.matchAll(/<script\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1] as string);
    const styles = [...html.matchAll(/<link\b[^>]*\bhref\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1] as string);

    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(scripts.length).toBeGreaterThan(0);
    expect(styles.length).toBeGreaterThan(0);
    expect(html).not.toMatch(/https?:\/\//);
    for (const url of [...scripts, ...styles]) {
      expect(url).toMatch(/^\/docs\//);
      const asset = await fetch(`${server.baseUrl}${url}`);
      await asset.arrayBuffer();
      expect(asset.status, url).toBe(200);
    }
  });
});

describe("GET /api/v1/transactions (query validation)", () => {
  test.each([
    { name: "limit is 0", query: "limit=0", parameter: "limit" },
    { name: "limit is 101", query: "limit=101", parameter: "limit" },
    { name: "limit is not a number", query: "limit=abc", parameter: "limit" },
    { name: "limit is a fraction", query: "limit=2.5", parameter: "limit" },
    {
      name: "startingAfter is longer than 64",
      query: `startingAfter=txn_${"a".repeat(61)}`,
      parameter: "startingAfter",
    },
    {
      name: "status is longer than 32",
      query: `status=${"A".repeat(33)}`,
      parameter: "status",
    },
    {
      name: "createdFrom has an offset",
      query: "createdFrom=2026-10-04T12:00:00-03:00",
      parameter: "createdFrom",
    },
  ])("when $name, then 400 VALIDATION_ERROR names the parameter", async ({ query, parameter }) => {
    const { testKey } = await server.newAccount();

    const res = await rawCall(server.baseUrl, "GET", `/api/v1/transactions?${query}`, { key: testKey });

    expectSeedError(res, 400, "VALIDATION_ERROR", "/api/v1/transactions");
    expect(res.body.errors?.map((e) => e.path)).toContain(parameter);
    for (const e of res.body.errors ?? []) expect(e.message).not.toMatch(english);
  });

  test.each([
    { name: "limit is 1", query: "limit=1" },
    { name: "limit is 100", query: "limit=100" },
  ])("when $name, then the page is served", async ({ query }) => {
    const { testKey } = await server.newAccount();
    expectStatus(await api(testKey).POST("/api/v1/charges/pix", { body: chargeBody() }), 201);

    const res = await rawCall<{ data: unknown[] }>(server.baseUrl, "GET", `/api/v1/transactions?${query}`, {
      key: testKey,
    });

    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
  });

  test.each([
    { name: "names no item at all", cursor: () => "txn_naoexiste00000000000" },
    {
      name: "names a charge of another account",
      cursor: async () => {
        const other = await server.newAccount();
        const res = await api(other.testKey).POST("/api/v1/charges/pix", { body: chargeBody() });
        expectStatus(res, 201);
        return res.body.id;
      },
    },
  ])("when the startingAfter cursor $name, then 400 VALIDATION_ERROR on startingAfter", async ({ cursor }) => {
    const { testKey } = await server.newAccount();
    expectStatus(await api(testKey).POST("/api/v1/charges/pix", { body: chargeBody() }), 201);
    const startingAfter = await cursor();

    const res = await api(testKey).GET("/api/v1/transactions", { params: { query: { startingAfter } } });

    expectSeedError(res, 400, "VALIDATION_ERROR", "/api/v1/transactions");
    expect(res.body.errors?.map((e) => e.path)).toEqual(["startingAfter"]);
  });
});

describe("NUL characters", () => {
  test.each([
    { name: "in a body string", path: "/api/v1/charges/pix", field: "description" },
    { name: "in a metadata value", path: "/api/v1/charges/pix", field: "metadata.note" },
    { name: "in a query value", path: "/api/v1/transactions?status=PA%00ID", field: "status" },
  ])(
    "when a NUL character comes $name, then 400 VALIDATION_ERROR names the field and nothing is created",
    async ({ path, field }) => {
      const server = await startTestServer();
      try {
        const { testKey } = await server.newAccount();
        const body =
          field === "description"
            ? chargeBody({ description: "Pedido\u0000 1" })
            : chargeBody({ metadata: { note: "a\u0000b" } });
        const res = await rawCall<ErrorBody>(server.baseUrl, path.includes("?") ? "GET" : "POST", path, {
          key: testKey,
          ...(path.includes("?") ? {} : { body }),
        });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe("VALIDATION_ERROR");
        expect(res.body.errors?.[0]?.path).toBe(field);
        const list = await publicApi(server.baseUrl, { key: testKey }).GET("/api/v1/transactions");
        expectStatus(list, 200);
        expect(list.body.data).toHaveLength(0);
      } finally {
        await server.close();
      }
    },
  );
});
