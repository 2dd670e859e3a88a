/** The PostgreSQL adapter of the store port (DESIGN §2), and of the HTTP layer's rate-limit counters. */
export { isConnectionError, toStoreError } from "./connection-errors.js";
export { migrateDatabase, migrationsDir, migrationsTable } from "./migrate.js";
export { createPool, type PoolOptions, type StoreLogger } from "./pool.js";
export { pgRateLimitCounters } from "./rate-limit-counters.js";
export { scopeLockKey } from "./reads.js";
export { PostgresStore, type PostgresStoreOptions } from "./store.js";
