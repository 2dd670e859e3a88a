import { afterAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config.js";
import type { RateLimits } from "../../src/domain/core/rate-limits.js";
import { chargeBody, type ErrorBody, expectStatus, publicApi, startTestServer, type TestServer } from "../harness.js";

// Counters are per IP and every test calls from 127.0.0.1, so each test gets its own server.
const budgets: RateLimits = { get: 5, write: 3, withdrawals: 2 };
const servers: TestServer[] = [];
async function limitedServer(limits: RateLimits = budgets): Promise<TestServer> {
  const server = await startTestServer({ rateLimits: limits });
  servers.push(server);
  return server;
}
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const withdrawalBody = {
  amountCents: 1000,
  pixKey: "52998224725",
  pixKeyType: "CPF",
} as const;

const api = (server: TestServer, key?: string) => publicApi(server.baseUrl, key === undefined ? {} : { key });
const balance = (server: TestServer, key?: string) => api(server, key).GET("/api/v1/balance");
const createCharge = (server: TestServer, key: string) =>
  api(server, key).POST("/api/v1/charges/pix", { body: chargeBody() });

/** Seed §7/§8: 429, the error body, and `Retry-After` in whole seconds. */
function expectRateLimited(res: { status: number; body: unknown; headers: Headers }, path: string) {
  expect(res.status).toBe(429);
  expect(res.body).toMatchObject({ ok: false, code: "RATE_LIMITED", path });
  const body = res.body as ErrorBody;
  expect(body.errors).toBeUndefined();
  expect(typeof body.message).toBe("string");
  expect(body.message).not.toMatch(/\b(too|many|requests|retry|later)\b/i);
  expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  const retryAfter = res.headers.get("retry-after") ?? "";
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
}

async function sequence(times: number, send: () => Promise<{ status: number }>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await send()).status);
  return statuses;
}

describe("GET routes (120 per minute per IP)", () => {
  test("when the GET budget is spent, then the next GET is 429 RATE_LIMITED with Retry-After", async () => {
    const server = await limitedServer();
    const { testKey } = await server.newAccount();
    const paths = [
      "/api/v1/balance",
      "/api/v1/transactions",
      "/api/v1/customers",
      "/api/v1/payment-links",
      "/api/v1/withdrawals",
    ] as const;
    const statuses: number[] = [];
    for (const path of paths) statuses.push((await api(server, testKey).GET(path)).status);

    const res = await balance(server, testKey);

    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(res, "/api/v1/balance");
  });

  test("when two accounts call from one IP address, then they share the budget of that address", async () => {
    const server = await limitedServer();
    const first = await server.newAccount();
    const second = await server.newAccount();
    await sequence(budgets.get, () => balance(server, first.testKey));

    const res = await balance(server, second.testKey);

    expectRateLimited(res, "/api/v1/balance");
  });

  test("when the GET budget is spent, then POSTs still have their own budget", async () => {
    const server = await limitedServer();
    const { testKey } = await server.newAccount();
    await sequence(budgets.get + 1, () => balance(server, testKey));

    const res = await createCharge(server, testKey);

    expect(res.status).toBe(201);
  });
});

describe("POST and PATCH routes (60 per minute per IP)", () => {
  test("when the POST budget is spent, then the next POST is 429, creates nothing, and GETs still pass", async () => {
    const server = await limitedServer();
    const { testKey } = await server.newAccount();
    const post = () => createCharge(server, testKey);
    const statuses = await sequence(budgets.write, post);

    const res = await post();

    expect(statuses).toEqual([201, 201, 201]);
    expectRateLimited(res, "/api/v1/charges/pix");
    const list = await api(server, testKey).GET("/api/v1/transactions");
    expectStatus(list, 200);
    expect(list.body.data).toHaveLength(budgets.write);
  });

  test("when PATCH requests are made, then they spend the POST budget", async () => {
    const server = await limitedServer();
    const { testKey } = await server.newAccount();
    const created = await api(server, testKey).POST("/api/v1/customers", {
      body: { name: "João Pereira", document: "11222333000181" },
    });
    expectStatus(created, 201);
    const path = { params: { path: { id: created.body.id } } };
    const patch = await api(server, testKey).PATCH("/api/v1/customers/{id}", {
      ...path,
      body: { name: "João Pereira Lima" },
    });
    await createCharge(server, testKey);

    const res = await api(server, testKey).PATCH("/api/v1/customers/{id}", { ...path, body: { name: "Outro Nome" } });

    expect(patch.status).toBe(200);
    expectRateLimited(res, `/api/v1/customers/${created.body.id}`);
    const customer = await api(server, testKey).GET("/api/v1/customers/{id}", path);
    expectStatus(customer, 200);
    expect(customer.body.name).toBe("João Pereira Lima");
  });
});

describe("POST /api/v1/withdrawals (20 per minute per IP)", () => {
  test("when the withdrawal budget is spent, then the next withdrawal is 429 although the POST budget is not", async () => {
    const server = await limitedServer();
    const { testKey } = await server.newAccount();
    const withdraw = () => api(server, testKey).POST("/api/v1/withdrawals", { body: withdrawalBody });
    const statuses = await sequence(budgets.withdrawals, withdraw);

    const res = await withdraw();

    expect(statuses).not.toContain(429);
    expectRateLimited(res, "/api/v1/withdrawals");
  });

  test("when withdrawals are made, then they also spend the POST budget", async () => {
    const server = await limitedServer();
    const { testKey } = await server.newAccount();
    const post = () => createCharge(server, testKey);
    await sequence(budgets.withdrawals, () =>
      api(server, testKey).POST("/api/v1/withdrawals", { body: withdrawalBody }),
    );
    const third = await post();

    const fourth = await post();

    expect(third.status).toBe(201);
    expectRateLimited(fourth, "/api/v1/charges/pix");
  });
});

describe("Order of the checks", () => {
  test("when requests carry no key, then they are limited too (the limit comes before authentication)", async () => {
    const server = await limitedServer();
    const statuses = await sequence(budgets.get, () => balance(server));

    const res = await balance(server);

    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    expectRateLimited(res, "/api/v1/balance");
  });

  test("when POSTs carry an unknown key, then they are limited too", async () => {
    const server = await limitedServer();
    const post = () => createCharge(server, `svc_test_${"X".repeat(32)}`);
    const statuses = await sequence(budgets.write, post);

    const res = await post();

    expect(statuses).toEqual([401, 401, 401]);
    expectRateLimited(res, "/api/v1/charges/pix");
  });
});

describe("GET /health", () => {
  test("when the GET budget is spent, then /health still answers 200 however often it is called", async () => {
    const server = await limitedServer();
    await sequence(budgets.get + 1, () => balance(server));

    const statuses = await sequence(budgets.get * 3, () => api(server).GET("/health"));

    expect(statuses).toEqual(Array.from({ length: budgets.get * 3 }, () => 200));
  });
});

describe("loadConfig (rate limits)", () => {
  test("when nothing is configured, then the seed's budgets apply, unlike the test harness's default", async () => {
    const config = loadConfig({});

    expect(config.rateLimits).toEqual({ get: 120, write: 60, withdrawals: 20 });
    expect(config.rateLimits).not.toBe("off");
  });

  test("when RATE_LIMITS is off outside production, then limits are off", () => {
    expect(loadConfig({ RATE_LIMITS: "off" }).rateLimits).toBe("off");
    expect(loadConfig({ RATE_LIMITS: "off", NODE_ENV: "development" }).rateLimits).toBe("off");
  });

  test("when RATE_LIMITS is off with NODE_ENV=production, then the configuration is refused", () => {
    expect(() => loadConfig({ RATE_LIMITS: "off", NODE_ENV: "production" })).toThrow(/RATE_LIMITS/);
  });

  test("when the configured defaults are served, then the 121st GET within a minute is 429", async () => {
    const defaults = loadConfig({}).rateLimits;
    if (defaults === "off") throw new Error("defaults must not be off");
    const server = await limitedServer(defaults);
    const statuses = await sequence(120, () => balance(server));

    const res = await balance(server);

    expect(statuses.filter((s) => s === 429)).toEqual([]);
    expectRateLimited(res, "/api/v1/balance");
  });
});
