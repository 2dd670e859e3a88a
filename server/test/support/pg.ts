import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import { runner } from "node-pg-migrate";
import { describe, inject } from "vitest";
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

type Pool = import("pg").Pool;
let adminPool: Promise<Pool> | undefined;

/**
 * A statement on the run's server as its administrator, through connections this worker keeps
 * (a file makes and drops its databases one statement each): a connection of its own for each
 * statement had cost PostgreSQL about 30 ms of CPU (the fork, authentication, start-up), and the
 * `postgres` project opened 330 of its 1,110 connections for them. The connections idle on the
 * `postgres` database, never on a template being copied; the run's one server is not restarted
 * (the fault tests take clusters of their own), and one that ends them (the run's end) leaves the
 * pool to connect again on its next statement.
 */
async function admin(sql: string): Promise<void> {
  if (!pgAdminUrl) throw new Error("no PostgreSQL server for tests");
  const url = pgAdminUrl;
  adminPool ??= import("pg").then(({ default: pg }) => {
    const pool = new pg.Pool({ connectionString: url, max: 2, idleTimeoutMillis: 30_000, allowExitOnIdle: true });
    // An idle connection the server ended (its shutdown at the run's end): the pool drops it.
    pool.on("error", () => undefined);
    return pool;
  });
  await (await adminPool).query(sql);
}

/** A database name as the statements here take it (no quoting needed; `databaseName` makes them). */
function safe(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`unsafe database name: ${name}`);
  return name;
}

function urlOf(name: string): string {
  const url = new URL(pgAdminUrl ?? "");
  url.pathname = `/${name}`;
  return url.toString();
}

/** CREATE DATABASE `name` as a copy of `template` (from template0 when none); its URL. */
async function createFrom(template: string, name: string): Promise<string> {
  await admin(
    `CREATE DATABASE ${safe(name)} TEMPLATE ${safe(template)}${template === "template0" ? " ENCODING 'UTF8'" : ""}`,
  );
  return urlOf(name);
}

/** DROP DATABASE `name`, closing whatever connections are left on it. */
const dropDatabase = (name: string) => admin(`DROP DATABASE IF EXISTS ${safe(name)} WITH (FORCE)`);

/**
 * A fresh database for one test file: migrated (a copy of the run's migrated template), or, with
 * `migrate: false`, empty (from template0).
 */
export async function createTestDatabase(label: string, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  if (!pgAdminUrl) throw new Error("no PostgreSQL server for tests");
  const name = databaseName(label);
  const migrate = options.migrate ?? true;
  let url: string;
  if (migrate && pgTemplate) url = await createFrom(pgTemplate, name);
  else {
    url = await createFrom("template0", name);
    if (migrate) await migrateDatabase(url);
  }
  const clones: string[] = [];
  const self: TestDatabase = {
    name,
    url,
    async clone(cloneLabel = label) {
      const copy = databaseName(cloneLabel);
      const copyUrl = await createFrom(name, copy);
      clones.push(copy);
      return {
        name: copy,
        url: copyUrl,
        clone: () => Promise.reject(new Error("clone a clone: not supported")),
        drop: () => dropDatabase(copy),
      };
    },
    async drop() {
      for (const copy of clones.splice(0)) await dropDatabase(copy);
      await dropDatabase(name);
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
