import type { Logger } from "pino";
import type { Store } from "../domain/ports/store.js";
import type { RateLimitCounters } from "../domain/ports/rate-limit-counters.js";
import { MemoryStore } from "./memory/index.js";

export interface OpenedStore {
  store: Store;
  kind: "memory" | "postgres";
  /** Rate-limit counters shared by every process on the database; undefined keeps them in process memory. */
  rateLimitCounters?: RateLimitCounters;
}

/**
 * The memory store, or PostgreSQL when `DATABASE_URL` is set: its pending migrations are applied
 * first (several processes starting together wait for one another), then the store and the shared
 * rate-limit counters use one pool. The PostgreSQL modules (pg, node-pg-migrate) are loaded only
 * then: a memory-store start does not pay for them.
 */
export async function openStore(databaseUrl: string | undefined, logger: Logger): Promise<OpenedStore> {
  if (!databaseUrl) return { store: new MemoryStore(), kind: "memory" };
  const { createPool, migrateDatabase, PostgresStore, pgRateLimitCounters } = await import("./postgres/index.js");
  const storeLogger = logger.child({ component: "postgres" });
  await migrateDatabase(databaseUrl, storeLogger);
  const pool = createPool(databaseUrl, { logger: storeLogger });
  return {
    store: new PostgresStore(pool, { logger: storeLogger }),
    kind: "postgres",
    rateLimitCounters: pgRateLimitCounters(pool),
  };
}
