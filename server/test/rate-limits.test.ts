import { afterAll, describe, expect, test } from "vitest";
import { loadConfig } from "../src/config.js";
import type { RateLimits } from "../src/domain/rate-limits.js";
import { type CallResult, call, chargeBody, startTestServer, type TestServer } from "./harness.js";

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
};

/** Seed §7/§8: 429, the error body, and `Retry-After` in whole seconds. */
function expectRateLimited(res: CallResult, path: string) {
  expect(res.status).toBe(429);
  expect(res.body).toMatchObject({ ok: false, code: "RATE_LIMITED", path });
  expect(res.body.errors).toBeUndefined();
  expect(typeof res.body.message).toBe("string");
  expect(res.body.message).not.toMatch(/\b(too|many|requests|retry|later)\b/i);
  expect(res.body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  const retryAfter = res.headers.get("retry-after") ?? "";
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
}

async function sequence(times: number, send: () => Promise<CallResult>): Promise<number[]> {
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
    ];
    const statuses: number[] = [];
    for (const path of paths) statuses.push((await call(server.baseUrl, "GET", path, { key: testKey })).status);

    const res = await call(server.baseUrl, "GET", "/api/v1/balance", {
      key: testKey,
    });

    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(res, "/api/v1/balance");
  });

  test("when two accounts call from one IP address, then they share the budget of that address", async () => {
    const server = await limitedServer();
    const first = await server.newAccount();
    const second = await server.newAccount();
    await sequence(budgets.get, () => call(server.baseUrl, "GET", "/api/v1/balance", { key: first.testKey }));

    const res = await call(server.baseUrl, "GET", "/api/v1/balance", {
      key: second.testKey,
    });

    expectRateLimited(res, "/api/v1/balance");
  });

  test("when the GET budget is spent, then POSTs still have their own budget", async () => {
    const server = await limitedServer();
    const { testKey } = await server.newAccount();
    await sequence(budgets.get + 1, () => call(server.baseUrl, "GET", "/api/v1/balance", { key: testKey }));

    const res = await call(server.baseUrl, "POST", "/api/v1/charges/pix", {
      key: testKey,
      body: chargeBody(),
    });

    expect(res.status).toBe(201);
  });
});

describe("POST and PATCH routes (60 per minute per IP)", () => {
  test("when the POST budget is spent, then the next POST is 429, creates nothing, and GETs still pass", async () => {
    const server = await limitedServer();
    const { testKey } = await server.newAccount();
    const post = () =>
      call(server.baseUrl, "POST", "/api/v1/charges/pix", {
        key: testKey,
        body: chargeBody(),
      });
    const statuses = await sequence(budgets.write, post);

    const res = await post();

    expect(statuses).toEqual([201, 201, 201]);
    expectRateLimited(res, "/api/v1/charges/pix");
    const list = await call(server.baseUrl, "GET", "/api/v1/transactions", {
      key: testKey,
    });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(budgets.write);
  });

  test("when PATCH requests are made, then they spend the POST budget", async () => {
    const server = await limitedServer();
    const { testKey } = await server.newAccount();
    const created = await call(server.baseUrl, "POST", "/api/v1/customers", {
      key: testKey,
      body: { name: "João Pereira", document: "11222333000181" },
    });
    const patch = await call(server.baseUrl, "PATCH", `/api/v1/customers/${created.body.id}`, {
      key: testKey,
      body: { name: "João Pereira Lima" },
    });
    await call(server.baseUrl, "POST", "/api/v1/charges/pix", {
      key: testKey,
      body: chargeBody(),
    });

    const res = await call(server.baseUrl, "PATCH", `/api/v1/customers/${created.body.id}`, {
      key: testKey,
      body: { name: "Outro Nome" },
    });

    expect([created.status, patch.status]).toEqual([201, 200]);
    expectRateLimited(res, `/api/v1/customers/${created.body.id}`);
    const customer = await call(server.baseUrl, "GET", `/api/v1/customers/${created.body.id}`, { key: testKey });
    expect(customer.body.name).toBe("João Pereira Lima");
  });
});

describe("POST /api/v1/withdrawals (20 per minute per IP)", () => {
  test("when the withdrawal budget is spent, then the next withdrawal is 429 although the POST budget is not", async () => {
    const server = await limitedServer();
    const { testKey } = await server.newAccount();
    const withdraw = () =>
      call(server.baseUrl, "POST", "/api/v1/withdrawals", {
        key: testKey,
        body: withdrawalBody,
      });
    const statuses = await sequence(budgets.withdrawals, withdraw);

    const res = await withdraw();

    expect(statuses).not.toContain(429);
    expectRateLimited(res, "/api/v1/withdrawals");
  });

  test("when withdrawals are made, then they also spend the POST budget", async () => {
    const server = await limitedServer();
    const { testKey } = await server.newAccount();
    const post = () =>
      call(server.baseUrl, "POST", "/api/v1/charges/pix", {
        key: testKey,
        body: chargeBody(),
      });
    await sequence(budgets.withdrawals, () =>
      call(server.baseUrl, "POST", "/api/v1/withdrawals", {
        key: testKey,
        body: withdrawalBody,
      }),
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
    const statuses = await sequence(budgets.get, () => call(server.baseUrl, "GET", "/api/v1/balance"));

    const res = await call(server.baseUrl, "GET", "/api/v1/balance");

    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    expectRateLimited(res, "/api/v1/balance");
  });

  test("when POSTs carry an unknown key, then they are limited too", async () => {
    const server = await limitedServer();
    const post = () =>
      call(server.baseUrl, "POST", "/api/v1/charges/pix", {
        key: `svc_test_${"X".repeat(32)}`,
        body: chargeBody(),
      });
    const statuses = await sequence(budgets.write, post);

    const res = await post();

    expect(statuses).toEqual([401, 401, 401]);
    expectRateLimited(res, "/api/v1/charges/pix");
  });
});

describe("GET /health", () => {
  test("when the GET budget is spent, then /health still answers 200 however often it is called", async () => {
    const server = await limitedServer();
    await sequence(budgets.get + 1, () => call(server.baseUrl, "GET", "/api/v1/balance"));

    const statuses = await sequence(budgets.get * 3, () => call(server.baseUrl, "GET", "/health"));

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
    const statuses = await sequence(120, () => call(server.baseUrl, "GET", "/api/v1/balance"));

    const res = await call(server.baseUrl, "GET", "/api/v1/balance");

    expect(statuses.filter((s) => s === 429)).toEqual([]);
    expectRateLimited(res, "/api/v1/balance");
  });
});
