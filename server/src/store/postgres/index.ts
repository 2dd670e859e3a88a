/** The PostgreSQL adapter of the store port (docs/decisions/0003-two-stores-memory-and-postgresql.md), and of the HTTP layer's rate-limit counters. */
export { isConnectionError, toStoreError } from "./connection/errors.js";
export { migrateDatabase, migrationsDir } from "./connection/migrate.js";
export { createPool } from "./connection/pool.js";
export { pgRateLimitCounters } from "./rate-limit-counters.js";
export { PostgresStore } from "./store.js";
