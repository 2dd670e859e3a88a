import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { defaultRateLimits } from "../../src/domain/core/rate-limits.js";
import { operatorAuthFailuresPerMinute } from "../../src/http/operator/handlers.js";
import { createPool, PostgresStore, pgRateLimitCounters } from "../../src/store/postgres/index.js";
import { sharedRateLimitStore } from "../../src/http/kit/rate-limit-store.js";
import { expectStatus, operatorApi, startTestServer, type TestServer, testAdminToken } from "../harness.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";
import { readOpenApiDocument } from "../../../server/src/http/kit/openapi-document.js";

// The operator API had no rate limit: 200 requests with a wrong token got 200 answers 401 (issue 24
// §3). Failed authentications are now counted per IP address; a spent budget answers 429 to every
// operator request of that address, and no other address.

const attacker = { "x-forwarded-for": "203.0.113.7" };
const operator = { "x-forwarded-for": "198.51.100.2" };

const adminGet = (server: TestServer, token: string | undefined, headers: Record<string, string>) =>
  operatorApi(server.baseUrl, { ...(token ? { token } : {}), headers }).GET("/admin/v1/accounts");

function suite(start: () => Promise<TestServer>) {
  let server: TestServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());

  test("when 200 wrong tokens come from one address, then 401 until the budget is spent and 429 RATE_LIMITED with Retry-After after", async () => {
    const statuses: number[] = [];
    let last = await adminGet(server, "adm_wrong", attacker);
    statuses.push(last.status);
    for (let i = 1; i < 200; i++) {
      last = await adminGet(server, i % 2 ? "adm_wrong" : undefined, attacker);
      statuses.push(last.status);
    }

    expect(statuses.slice(0, operatorAuthFailuresPerMinute)).toEqual(Array(operatorAuthFailuresPerMinute).fill(401));
    expect(new Set(statuses.slice(operatorAuthFailuresPerMinute))).toEqual(new Set([429]));
    expect(last.body).toMatchObject({ ok: false, code: "RATE_LIMITED", path: "/admin/v1/accounts" });
    expectStatus(last, 429);
    expect(last.body.message).toMatch(/^Muitas tentativas com token de operador .* Aguarde \d+ segundos/);
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(last.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  });

  test("when another address has spent its budget, then the right token still works from this one, and its requests are not counted", async () => {
    for (let i = 0; i <= operatorAuthFailuresPerMinute; i++) await adminGet(server, "adm_wrong", attacker);
    expect((await adminGet(server, "adm_wrong", attacker)).status).toBe(429);

    const statuses: number[] = [];
    for (let i = 0; i < operatorAuthFailuresPerMinute * 2; i++) {
      statuses.push((await adminGet(server, testAdminToken, operator)).status);
    }
    const answered = await adminGet(server, testAdminToken, operator);

    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(answered.headers.get("ratelimit")).toMatch(
      new RegExp(`^limit=${operatorAuthFailuresPerMinute}, remaining=`),
    );
  });

  test("when an address has spent its budget, then the right token from it is refused too (guessing learns nothing more)", async () => {
    const guesser = { "x-forwarded-for": "192.0.2.44" };
    for (let i = 0; i < operatorAuthFailuresPerMinute; i++) await adminGet(server, "adm_wrong", guesser);
    expect((await adminGet(server, testAdminToken, guesser)).status).toBe(429);
  });
}

describe("failed operator authentications, counters in memory", () => {
  suite(() => startTestServer({ rateLimits: defaultRateLimits, trustProxy: 1 }));

  test("when rate limiting is off (local test runs), then wrong tokens only get 401", async () => {
    const off = await startTestServer({ rateLimits: "off" });
    try {
      const statuses = new Set<number>();
      for (let i = 0; i <= operatorAuthFailuresPerMinute; i++) statuses.add((await adminGet(off, "x", {})).status);
      expect(statuses).toEqual(new Set([401]));
    } finally {
      await off.close();
    }
  });
});

describePg("failed operator authentications, counters in PostgreSQL (shared by processes)", () => {
  let database: TestDatabase;
  let store: PostgresStore;
  const pools: ReturnType<typeof createPool>[] = [];
  beforeAll(async () => {
    database = await createTestDatabase("operator_rate_limit");
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await Promise.all(pools.map((pool) => pool.end()));
    await database?.drop();
  });

  suite(async () => {
    const counters = createPool(database.url, { max: 2 });
    pools.push(counters);
    store = new PostgresStore(createPool(database.url, { max: 4 }));
    return startTestServer({
      store,
      rateLimits: defaultRateLimits,
      trustProxy: 1,
      rateLimitStore: sharedRateLimitStore(pgRateLimitCounters(counters)),
    });
  });
});

describe("the operator document", () => {
  test("when its 429 is read, then it states the server's budget and Retry-After on every operation", () => {
    const document = readOpenApiDocument("generated/admin-openapi.yaml");
    const operations = Object.values(document.paths as Record<string, Record<string, any>>).flatMap((item) =>
      Object.values(item),
    );
    expect(operations.length).toBeGreaterThan(20);
    for (const operation of operations) {
      const tooMany = operation.responses["429"];
      expect(tooMany.description).toContain(`after ${operatorAuthFailuresPerMinute} requests with a`);
      expect(tooMany.headers["Retry-After"].required).toBe(true);
    }
  });
});
