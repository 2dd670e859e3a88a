import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPixClient, newIdempotencyKey, type PixClientOptions } from "../src/index.js";
import { type ReceivedRequest, type ScriptedServer, startScriptedServer } from "./support/scripted-server.js";

const API_KEY = "svc_test_0123456789abcdef";
const FAST = { initialDelayMs: 1, maxDelayMs: 5 };

const charge = {
  amountCents: 8990,
  description: "Pedido #1234 - Camiseta azul",
  customer: {
    name: "Maria da Silva Santos",
    email: "maria.santos@example.com.br",
    phone: "11987654321",
    documentType: "CPF" as const,
    document: "52998224725",
  },
};

const unavailable = {
  status: 503,
  body: { ok: false, code: "INTERNAL_ERROR", message: "Serviço indisponível." },
};

describe("retries", () => {
  let server: ScriptedServer;

  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(() => server.close());

  function client(options: Omit<Partial<PixClientOptions>, "throwOnError"> = {}) {
    return createPixClient({ apiKey: API_KEY, baseUrl: server.baseUrl, retryBackoff: FAST, ...options });
  }

  const keys = (requests: ReceivedRequest[]) => requests.map((r) => r.headers["idempotency-key"]);

  it("when a GET meets two 503s, then the third attempt's answer is returned", async () => {
    server.plan([unavailable, unavailable, { status: 200, body: { availableCents: 100 } }]);

    const { data, response } = await client().GET("/api/v1/balance");

    expect(response.status).toBe(200);
    expect(data).toEqual({ availableCents: 100 });
    expect(server.received.map((r) => `${r.method} ${r.path}`)).toEqual(Array(3).fill("GET /api/v1/balance"));
  });

  it("when a POST without a key meets a 500, then both attempts carry one generated key and the whole body", async () => {
    server.plan([
      { status: 500, body: {} },
      { status: 201, body: { id: "txn_1" } },
    ]);

    const { data } = await client().POST("/api/v1/charges/pix", { body: charge });

    expect(data).toEqual({ id: "txn_1" });
    expect(server.received).toHaveLength(2);
    const [first, second] = keys(server.received);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
    expect(server.received.map((r) => JSON.parse(r.body) as unknown)).toEqual([charge, charge]);
  });

  it("when two POSTs are sent, then each gets its own generated key", async () => {
    server.plan([]);

    await client().POST("/api/v1/charges/pix", { body: charge });
    await client().POST("/api/v1/charges/pix", { body: charge });

    const [first, second] = keys(server.received);
    expect(first).toEqual(expect.any(String));
    expect(second).toEqual(expect.any(String));
    expect(second).not.toBe(first);
  });

  it("when a POST with the caller's key meets a dropped connection, then the retry carries the caller's key", async () => {
    const key = newIdempotencyKey("order-1234");
    server.plan(["drop", { status: 201, body: { id: "txn_2" } }]);

    const { data } = await client().POST("/api/v1/charges/pix", {
      params: { header: { "idempotency-key": key } },
      body: charge,
    });

    expect(data).toEqual({ id: "txn_2" });
    expect(keys(server.received)).toEqual([key, key]);
  });

  it("when a 429 asks Retry-After: 1, then the retry waits a second", async () => {
    server.plan([{ status: 429, headers: { "retry-after": "1" }, body: {} }]);

    const { response } = await client().GET("/api/v1/balance");

    expect(response.status).toBe(200);
    expect(server.received).toHaveLength(2);
    const [first, second] = server.received as [ReceivedRequest, ReceivedRequest];
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
  });

  it("when a 503 asks a Retry-After longer than maxRetryAfterMs, then it is returned without retrying", async () => {
    server.plan([{ ...unavailable, headers: { "retry-after": "2" } }]);

    const { error, response } = await client({ retryBackoff: { ...FAST, maxRetryAfterMs: 1_000 } }).GET(
      "/api/v1/balance",
    );

    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(error).toMatchObject({ message: "Serviço indisponível." });
    expect(server.received).toHaveLength(1);
  });

  it("when a 503 asks Retry-After as an HTTP date in the past, then the retry is immediate", async () => {
    server.plan([{ ...unavailable, headers: { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" } }]);

    const { response } = await client({ retryBackoff: { initialDelayMs: 5_000, maxDelayMs: 5_000 } }).GET(
      "/api/v1/balance",
    );

    expect(response.status).toBe(200);
    expect(server.received).toHaveLength(2);
  });

  it("when every attempt fails, then maxRetries bounds the attempts and the last answer is returned", async () => {
    for (const maxRetries of [0, 1, 2, 4]) {
      server.plan([], unavailable);

      const { response } = await client({ maxRetries }).GET("/api/v1/balance");

      expect(response.status).toBe(503);
      expect(server.received, `maxRetries ${maxRetries}`).toHaveLength(maxRetries + 1);
    }
  });

  it("when maxRetries is not set, then a failing request is sent 3 times", async () => {
    server.plan([], unavailable);

    await client().GET("/api/v1/balance");

    expect(server.received).toHaveLength(3);
  });

  it("when the connection drops on every attempt, then the network error is thrown after the last", async () => {
    server.plan([], "drop");

    await expect(client({ maxRetries: 1 }).GET("/api/v1/balance")).rejects.toThrow(TypeError);
    expect(server.received).toHaveLength(2);
  });

  it("when a PATCH has no idempotency-key, then a 503 is not retried", async () => {
    server.plan([unavailable]);

    const { response } = await client().PATCH("/api/v1/customers/{id}", {
      params: { path: { id: "cus_1" } },
      body: { name: "Maria Santos" },
    });

    expect(response.status).toBe(503);
    expect(server.received).toHaveLength(1);
    expect(server.received[0]?.headers["idempotency-key"]).toBeUndefined();
  });

  it("when a PATCH carries an idempotency-key, then a 503 is retried with the same key and body", async () => {
    server.plan([unavailable]);

    const { response } = await client().PATCH("/api/v1/customers/{id}", {
      params: { path: { id: "cus_1" } },
      headers: { "idempotency-key": "patch-1" },
      body: { name: "Maria Santos" },
    });

    expect(response.status).toBe(200);
    expect(keys(server.received)).toEqual(["patch-1", "patch-1"]);
    expect(server.received.map((r) => r.body)).toEqual(Array(2).fill(JSON.stringify({ name: "Maria Santos" })));
  });

  it("when the answer is a 4xx other than 429, then it is not retried", async () => {
    for (const status of [400, 401, 404, 409]) {
      server.plan([{ status, body: {} }]);

      const { response } = await client().POST("/api/v1/charges/pix", { body: charge });

      expect(response.status).toBe(status);
      expect(server.received).toHaveLength(1);
    }
  });

  it("when retries are off, then a POST gets no generated key", async () => {
    server.plan([]);

    await client({ maxRetries: 0 }).POST("/api/v1/charges/pix", { body: charge });

    expect(server.received[0]?.headers["idempotency-key"]).toBeUndefined();
  });

  it("when the caller aborts during the wait, then the call rejects without another attempt", async () => {
    server.plan([{ ...unavailable, headers: { "retry-after": "30" } }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("gave up")), 100);

    const started = Date.now();
    await expect(client().GET("/api/v1/balance", { signal: controller.signal })).rejects.toThrow("gave up");

    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.received).toHaveLength(1);
  });

  it("when maxRetries or a wait is not a non-negative integer, then createPixClient throws a TypeError", () => {
    expect(() => client({ maxRetries: -1 })).toThrow(TypeError);
    expect(() => client({ maxRetries: 1.5 })).toThrow(TypeError);
    expect(() => client({ retryBackoff: { initialDelayMs: Number.NaN } })).toThrow(TypeError);
  });
});
