import { afterAll, beforeAll, describe } from "vitest";
import { createPool, PostgresStore } from "../../src/store/postgres/index.js";
import { startTestServer, type TestServer } from "../harness.js";
import { createTestDatabase, describePg } from "./pg.js";

// The component suites that must behave the same on every store run once a store:
//
//   for (const store of eachStore("refunds")) {
//     store.describe(`refunds on the ${store.name} store`, () => {
//       const server = serverOn(store);
//       test("when …, then …", async () => { … server.baseUrl … });
//     });
//   }

/** What `startTestServer` takes, but the store: that is the one under test. */
export type ServerOptions = Omit<NonNullable<Parameters<typeof startTestServer>[0]>, "store">;

export interface StartedServer {
  server: TestServer;
  /** Closes the server and its store, and drops the database the store was made on. */
  stop(): Promise<void>;
}

export interface StoreUnderTest {
  name: "memory" | "PostgreSQL";
  /** `describe`, or for PostgreSQL `describePg`: skipped when the run has no PostgreSQL server. */
  describe: typeof describe;
  /** A test server on a new, empty store of this kind. */
  start(options?: ServerOptions): Promise<StartedServer>;
}

const memoryStore: StoreUnderTest = {
  name: "memory",
  describe,
  async start(options = {}) {
    const server = await startTestServer(options);
    return { server, stop: () => server.close() };
  },
};

/** PostgreSQL on a fresh migrated database named after `label`, through a pool of `poolMax` connections. */
export function postgresStore(label: string, { poolMax = 5 }: { poolMax?: number } = {}): StoreUnderTest {
  return {
    name: "PostgreSQL",
    describe: describePg as typeof describe,
    async start(options = {}) {
      const database = await createTestDatabase(label);
      const server = await startTestServer({
        ...options,
        store: new PostgresStore(createPool(database.url, { max: poolMax })),
      });
      return {
        server,
        async stop() {
          await server.close();
          await server.store.close();
          await database.drop();
        },
      };
    },
  };
}

/**
 * The memory store and PostgreSQL (see `postgresStore` for `label` and `poolMax`), or the one that
 * PIX_TEST_STORES names (`memory` or `postgres`).
 */
export function eachStore(label: string, options: { poolMax?: number } = {}): StoreUnderTest[] {
  const all = [memoryStore, postgresStore(label, options)];
  // vitest.config.ts runs such a file in `component` on memory and in `postgres` on PostgreSQL.
  const only = process.env.PIX_TEST_STORES;
  if (only === "memory") return [memoryStore];
  if (only === "postgres") return all.slice(1);
  return all;
}

/**
 * Starts a test server on `store` before the tests of the enclosing `describe` (its `beforeAll`
 * is registered first, so later hooks see the server) and stops it after them. The value
 * returned stands for that server from then on; read before it has started, it throws.
 */
export function serverOn(store: StoreUnderTest, options: ServerOptions = {}): TestServer {
  let started: StartedServer | undefined;
  beforeAll(async () => {
    started = await store.start(options);
  }, 60_000);
  afterAll(async () => {
    await started?.stop();
  });
  return new Proxy({} as TestServer, {
    get(_target, property) {
      if (!started) throw new Error(`the test server on the ${store.name} store is not started yet`);
      const value: unknown = Reflect.get(started.server, property);
      return typeof value === "function" ? value.bind(started.server) : value;
    },
  });
}
