import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createPool, PostgresStore } from "../../src/store/postgres/index.js";
import { startTestServer, type TestServer } from "../harness.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";
import { describeFailures, fuzz } from "./fuzzer.js";
import { prepareTarget } from "./target.js";

// The spec-driven fuzzer at CI size, on both stores (rate limits off, so 429s do not drown the
// rest). A failure prints its seed; `npm run fuzz -- --seed N` replays it, and runs longer.
// FUZZ_SEED and FUZZ_REQUESTS override the defaults.

const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const requests = Number(process.env.FUZZ_REQUESTS ?? 2000);

async function run(name: string, server: TestServer) {
  const target = await prepareTarget(name, server);
  const report = await fuzz(target, { seed, requests });
  expect(report.failures, describeFailures(report)).toEqual([]);
  // The run must have reached the handlers, not only the validator's refusals.
  expect(Object.keys(report.statuses).some((s) => s.startsWith("2"))).toBe(true);
}

describe("fuzzing the public API and the checkout on the memory store", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  test(`when ${requests} generated requests (seed ${seed}) are sent, then every answer is declared, valid and not 5xx`, async () => {
    await run("memory", server);
  }, 120_000);
});

describePg("fuzzing the public API and the checkout on the PostgreSQL store", () => {
  let database: TestDatabase;
  let server: TestServer;
  beforeAll(async () => {
    database = await createTestDatabase("fuzz");
    server = await startTestServer({ store: new PostgresStore(createPool(database.url, { max: 5 })) });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await server?.store.close();
    await database?.drop();
  });

  test(`when ${requests} generated requests (seed ${seed}) are sent, then every answer is declared, valid and not 5xx`, async () => {
    await run("postgres", server);
  }, 120_000);
});
