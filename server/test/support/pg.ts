import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import { runner } from "node-pg-migrate";
import { describe, inject } from "vitest";
import { copyDatabase, createDatabase, dropDatabase } from "../../../scripts/pg-cluster.js";
import { migrateDatabase, migrationsDir } from "../../src/store/postgres/index.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** A URL of the PostgreSQL server for tests (CREATE DATABASE allowed), or null: none. */
    pgAdminUrl: string | null;
  }
}

/** The PostgreSQL server of this run (support/pg-global-setup.ts), or null when there is none. */
export const pgAdminUrl: string | null = inject("pgAdminUrl") ?? null;
/** The run's migrated template database (support/pg-global-setup.ts). */
const pgTemplate: string | null = inject("pgTemplate") ?? null;

/** `describe` when a PostgreSQL server is there, else `describe.skip`. */
export const describePg = pgAdminUrl ? describe : describe.skip;

export interface TestDatabase {
  name: string;
  url: string;
  /** A new database copied from this one (which must have no open connection). */
  clone(label?: string): Promise<TestDatabase>;
  /** Drops this database and every clone of it. */
  drop(): Promise<void>;
}

const databaseName = (label: string) =>
  `pix_${label.replace(/[^a-z0-9_]/g, "_").slice(0, 30)}_${randomBytes(5).toString("hex")}`;

/**
 * A fresh database for one test file: migrated (a copy of the run's migrated template), or, with
 * `migrate: false`, empty (from template0).
 */
export async function createTestDatabase(label: string, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  if (!pgAdminUrl) throw new Error("no PostgreSQL server for tests");
  const admin = pgAdminUrl;
  const name = databaseName(label);
  const migrate = options.migrate ?? true;
  let url: string;
  if (migrate && pgTemplate) url = await copyDatabase(admin, pgTemplate, name);
  else {
    url = await createDatabase(admin, name);
    if (migrate) await migrateDatabase(url);
  }
  const clones: string[] = [];
  const self: TestDatabase = {
    name,
    url,
    async clone(cloneLabel = label) {
      const copy = databaseName(cloneLabel);
      const copyUrl = await copyDatabase(admin, name, copy);
      clones.push(copy);
      return {
        name: copy,
        url: copyUrl,
        clone: () => Promise.reject(new Error("clone a clone: not supported")),
        drop: () => dropDatabase(admin, copy),
      };
    },
    async drop() {
      for (const copy of clones.splice(0)) await dropDatabase(admin, copy);
      await dropDatabase(admin, name);
    },
  };
  return self;
}

/**
 * Runs every migration whose file name sorts before `firstLeftOut` (e.g. `"1764200000000"`): the
 * schema as it was before that migration, to test what the migration does to existing rows.
 */
export async function migrateUpToBefore(databaseUrl: string, firstLeftOut: string): Promise<void> {
  const count = (await readdir(migrationsDir)).filter((f) => f.endsWith(".sql") && f < firstLeftOut).length;
  await runner({
    databaseUrl,
    dir: migrationsDir,
    migrationsTable: "pgmigrations",
    direction: "up",
    count,
    verbose: false,
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
}
