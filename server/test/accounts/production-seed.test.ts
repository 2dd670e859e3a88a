import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, test } from "vitest";
import { expectStatus, operatorApi } from "../harness.js";
import { createTestDatabase, describePg, type TestDatabase } from "../support/pg.js";
import { type ServerProcess, startServerProcess } from "../support/server-process.js";

// `npm start` on an empty store seeds a development account and prints its test key, outside
// production only (issue 33 §2): with NODE_ENV=production the built server, started as a child
// process, creates no account and writes no key to its output, on either store.

const adminToken = "adm_production_seed_test_0123456789";

const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

/** The built server with NODE_ENV=production on an empty store, once its banner is out. */
async function productionServer(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess({
    name: "production seed",
    env: {
      NODE_ENV: "production",
      PUBLIC_BASE_URL: "https://pix.example.com.br",
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: "info",
      ...env,
    },
    track: (stop) => stops.push(stop),
  });
  const deadline = Date.now() + 20_000;
  while (!server.output().includes("ouvindo em") && Date.now() < deadline) await sleep(50);
  // The banner is written at once; a moment more lets every line of it arrive through the pipe.
  await sleep(300);
  return server;
}

/** Every account the operator API lists. */
async function accounts(server: ServerProcess) {
  const answer = await operatorApi(server.baseUrl, { token: adminToken }).GET("/admin/v1/accounts");
  expectStatus(answer, 200);
  return answer.body.data;
}

function expectNothingSeeded(output: string) {
  expect(output).toContain("ouvindo em");
  expect(output).not.toMatch(/svc_(test_)?[A-Za-z0-9]{8,}/);
  expect(output).not.toContain("Loja de Desenvolvimento");
  expect(output).not.toContain("Chave de teste de desenvolvimento");
}

describe("NODE_ENV=production on the memory store", () => {
  test("when the server starts on an empty store, then no account exists and its output holds no key", async () => {
    const server = await productionServer({});

    const listed = await accounts(server);

    expect(listed).toEqual([]);
    expectNothingSeeded(server.output());
  });
});

describePg("NODE_ENV=production on the PostgreSQL store", () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    for (const stop of stops.splice(0)) await stop();
    await database?.drop();
  });

  test("when the server starts on an empty database, then no account exists and its output holds no key", async () => {
    database = await createTestDatabase("production_seed");
    const server = await productionServer({ DATABASE_URL: database.url });

    const listed = await accounts(server);

    expect(listed).toEqual([]);
    expectNothingSeeded(server.output());
  });
});
