import { fileURLToPath } from "node:url";
import { runner } from "node-pg-migrate";
import { silentLogger, type StoreLogger } from "./pool.js";

/** The migration files, applied by `migrateDatabase` and by `npm run migrate` (same table). */
export const migrationsDir = fileURLToPath(new URL("../../migrations/", import.meta.url));
const migrationsTable = "pgmigrations";

/**
 * Applies the pending migrations. Several processes may start at once: node-pg-migrate's advisory
 * lock makes the others wait, and they then find nothing left to do.
 */
export async function migrateDatabase(databaseUrl: string, logger?: StoreLogger): Promise<void> {
  const log = logger ?? silentLogger;
  await runner({
    databaseUrl,
    dir: migrationsDir,
    migrationsTable,
    direction: "up",
    singleTransaction: true,
    checkOrder: true,
    advisoryLockMode: "wait",
    verbose: false,
    logger: {
      debug: () => undefined,
      info: () => undefined,
      warn: (message) => log.warn({}, message),
      error: (message) => log.error({}, message),
    },
  });
}
