/**
 * A throwaway PostgreSQL cluster for tests and local runs: initdb into a temporary folder, start it
 * on 127.0.0.1 and a free port, hand back its `DATABASE_URL` and a `stop` that removes everything.
 *
 * PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` system user
 * (created when missing) and every server binary runs through `runuser -u postgres`.
 *
 *   npx tsx scripts/pg-cluster.ts          # starts one, prints DATABASE_URL, stops on Ctrl-C
 */
import { execFile } from "node:child_process";
import { access, chown, constants, mkdtemp, readdir, readFile, rm, stat, statfs } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface ThrowawayCluster {
  /** `postgres://postgres@127.0.0.1:<port>/<database>`: the database created for the caller. */
  databaseUrl: string;
  /** The same server's `postgres` maintenance database, for CREATE DATABASE. */
  adminUrl: string;
  port: number;
  /** The cluster's folder: data, socket and log. */
  dir: string;
  /** `pg_ctl stop -m immediate`, then removes the folder. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops the server and keeps its data (for fault tests): `fast` ends sessions, `immediate` is a crash. */
  halt(mode: "smart" | "fast" | "immediate"): Promise<void>;
  /** Starts the halted server again on the same port and data. */
  resume(): Promise<void>;
  /** `pg_ctl restart -m <mode>`: every session ends, the server comes back on the same port. */
  restart(mode: "smart" | "fast" | "immediate"): Promise<void>;
}

/** The newest installed PostgreSQL server's bin folder (Debian layout), or null when none is. */
export async function findPostgresBin(root = "/usr/lib/postgresql"): Promise<string | null> {
  let versions: string[];
  try {
    versions = await readdir(root);
  } catch {
    return null;
  }
  const ordered = versions.filter((v) => /^\d+(\.\d+)?$/.test(v)).sort((a, b) => Number(b) - Number(a));
  for (const version of ordered) {
    const bin = join(root, version, "bin");
    try {
      await stat(join(bin, "pg_ctl"));
      await stat(join(bin, "initdb"));
      return bin;
    } catch {
      // not a server install: try the next version
    }
  }
  return null;
}

/**
 * A port that was free on 127.0.0.1 a moment ago (the kernel's pick). Another process can take it
 * before the caller binds it (any outgoing connection's local port comes from the same range): a
 * server process started on it is started again on another (`startServerProcess`), and the bank
 * listener tries its bind again.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const isRoot = () => process.getuid?.() === 0;

/**
 * /dev/shm when it is a writable tmpfs with room (a database there is created in ~20 ms instead of
 * ~400 ms on a disk), else the OS temp folder.
 */
export async function defaultClusterParent(): Promise<string> {
  try {
    await access("/dev/shm", constants.W_OK);
    const fs = await statfs("/dev/shm");
    if (fs.bavail * fs.bsize >= 1024 ** 3) return "/dev/shm";
  } catch {
    // no usable /dev/shm
  }
  return tmpdir();
}

/** Creates the `postgres` system user when running as root and it does not exist. */
export async function ensurePostgresUser(): Promise<{ uid: number; gid: number }> {
  const lookup = async () => {
    const { stdout: uid } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
  };
  try {
    return await lookup();
  } catch {
    await run("useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/bin/false", "postgres"]);
    return lookup();
  }
}

export interface StartOptions {
  /** The database to create for the caller; default `pix`. */
  database?: string;
  /** Default: a free port. */
  port?: number;
  /** Where the temporary folder goes; default `defaultClusterParent()` (keep it short: socket paths). */
  parent?: string;
  /**
   * Commits that survive a crash of the server (`halt("immediate")`): synchronous_commit stays on.
   * Off by default (faster): a crash then loses the last commits, which a fault test must not see.
   */
  crashSafeCommits?: boolean;
}

/**
 * Starts a throwaway cluster tuned for tests (no fsync: nothing here must survive a crash of the
 * machine). Throws when no PostgreSQL server binaries are installed: see `findPostgresBin`.
 */
export async function startThrowawayCluster(options: StartOptions = {}): Promise<ThrowawayCluster> {
  const bin = await findPostgresBin();
  if (!bin)
    throw new Error("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)");
  const dir = await mkdtemp(join(options.parent ?? (await defaultClusterParent()), "pix-pg-"));
  const data = join(dir, "data");
  const log = join(dir, "postgres.log");
  const port = options.port ?? (await freePort());
  const database = options.database ?? "pix";

  const asOwner = async (file: string, args: string[]) => {
    const env = { ...process.env, LC_ALL: "C", LANG: "C" };
    if (isRoot()) return run("runuser", ["-u", "postgres", "--", join(bin, file), ...args], { cwd: dir, env });
    return run(join(bin, file), args, { cwd: dir, env });
  };

  if (isRoot()) {
    const { uid, gid } = await ensurePostgresUser();
    await chown(dir, uid, gid);
  }
  let started = false;
  const stop = async () => {
    if (started) {
      started = false;
      await asOwner("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]).catch(() => undefined);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await asOwner("initdb", [
      "-D",
      data,
      "-A",
      "trust",
      "-U",
      "postgres",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
      "--no-instructions",
    ]);
    const serverOptions = [
      `-p ${port}`,
      `-k ${dir}`,
      "-c listen_addresses=127.0.0.1",
      "-c max_connections=200",
      "-c fsync=off",
      ...(options.crashSafeCommits ? [] : ["-c synchronous_commit=off"]),
      "-c full_page_writes=off",
    ].join(" ");
    const startServer = () =>
      asOwner("pg_ctl", ["start", "-D", data, "-l", log, "-w", "-t", "60", "-o", serverOptions]);
    await startServer();
    started = true;
    const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    await createDatabase(adminUrl, database);
    return {
      databaseUrl: `postgres://postgres@127.0.0.1:${port}/${database}`,
      adminUrl,
      port,
      dir,
      stop,
      async halt(mode) {
        await asOwner("pg_ctl", ["stop", "-D", data, "-m", mode, "-w", "-t", "60"]);
      },
      async resume() {
        await startServer();
      },
      async restart(mode) {
        await asOwner("pg_ctl", ["restart", "-D", data, "-l", log, "-m", mode, "-w", "-t", "60", "-o", serverOptions]);
      },
    };
  } catch (error) {
    const tail = await readFile(log, "utf8").catch(() => "");
    await stop();
    const detail = tail ? `\n--- postgres.log ---\n${tail.split("\n").slice(-20).join("\n")}` : "";
    throw new Error(`could not start a throwaway PostgreSQL cluster: ${(error as Error).message}${detail}`);
  }
}

/** CREATE DATABASE `name` (from template0) on the server of `adminUrl`; returns its URL. */
export function createDatabase(adminUrl: string, name: string): Promise<string> {
  return copyDatabase(adminUrl, "template0", name);
}

/**
 * CREATE DATABASE `name` as a copy of `template` on the server of `adminUrl`; returns its URL.
 * From PostgreSQL 15 the copy is made with `STRATEGY FILE_COPY` (the files copied after a
 * checkpoint, as before 15) where 15's default, `WAL_LOG`, writes every page of the template to
 * the write-ahead log: here a migrated template's copy 28–62 ms against 14.5, and its later drop
 * 12–32 ms against 6.5, hundreds of both a test run. The checkpoint costs a busy server more; these
 * are test and throwaway databases.
 */
export async function copyDatabase(adminUrl: string, template: string, name: string): Promise<string> {
  for (const identifier of [name, template]) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(identifier)) throw new Error(`unsafe database name: ${identifier}`);
  }
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version_num: string }>("SHOW server_version_num");
    const strategy = Number(rows[0]?.server_version_num) >= 150000 ? " STRATEGY FILE_COPY" : "";
    const encoding = template === "template0" ? " ENCODING 'UTF8'" : "";
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}${encoding}${strategy}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** DROP DATABASE `name`, closing whatever connections are left on it. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`unsafe database name: ${name}`);
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const cluster = await startThrowawayCluster();
  console.log(`DATABASE_URL=${cluster.databaseUrl}`);
  console.log(`(cluster in ${cluster.dir}; Ctrl-C stops it and removes the folder)`);
  const stopAndExit = () => {
    cluster.stop().finally(() => process.exit(0));
  };
  process.on("SIGINT", stopAndExit);
  process.on("SIGTERM", stopAndExit);
  setInterval(() => undefined, 1 << 30);
}
