/**
 * `npm run start:pg`: the server on a local PostgreSQL cluster that keeps its data between runs
 * (`npm start` keeps everything in memory: a restart forgets every account, key and charge).
 *
 * The cluster is `.data/postgres/` in the checkout (git-ignored), created the first time with this
 * machine's PostgreSQL server binaries (Debian's `postgresql` package), started on a free port of
 * 127.0.0.1, or reused when it already runs. SIGINT and SIGTERM are relayed to the server; once it
 * has stopped, the cluster is stopped too, unless another client still uses it (a second
 * `start:pg`, a worker). As root the cluster belongs to the `postgres` system user; when that user
 * cannot reach the checkout (under /root, say), the cluster goes to
 * `/var/lib/pix-charging/<checkout>-<hash>/` instead, and the script says so.
 *
 *   npm run start:pg                                   # npm start's command, on the cluster
 *   npm run start:pg -- --dir /srv/pix-postgres        # another folder for the cluster
 *   npm run start:pg -- -- npx tsx watch server/src/main.ts   # another server command
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { appendFile, chown, mkdir, readFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import pg from "pg";
import { createDatabase, ensurePostgresUser, findPostgresBin, freePort } from "./pg-cluster.js";

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const isRoot = process.getuid?.() === 0;
const database = "pix";

/** A failure to explain to the person who ran the command (no stack trace). */
class StartError extends Error {}

/** The command `npm start` runs (`node …`, after an optional `exec`), with this node. */
function npmStartCommand(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/).filter(Boolean);
  if (words[0] === "exec") words.shift();
  if (words[0] !== "node") throw new StartError(`o script start não começa por node: ${pkg.scripts.start}`);
  return [process.execPath, ...words.slice(1)];
}

/** Runs a PostgreSQL program as the cluster's owner: `postgres` as root, else this user. */
function asOwner(bin: string, program: string, args: string[]) {
  // From `/`: the owner may not be allowed into the checkout (PostgreSQL's programs then complain).
  const options = { cwd: "/", env: { ...process.env, LC_ALL: "C", LANG: "C" } };
  if (isRoot) return run("runuser", ["-u", "postgres", "--", join(bin, program), ...args], options);
  return run(join(bin, program), args, options);
}

/** Creates `dir` for the cluster's owner; whether that owner can write in it (every parent reachable). */
async function prepareFolder(dir: string): Promise<boolean> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  if (!isRoot) return true;
  const { uid, gid } = await ensurePostgresUser();
  await chown(dir, uid, gid);
  return run("runuser", ["-u", "postgres", "--", "test", "-w", dir, "-a", "-x", dir]).then(
    () => true,
    () => false,
  );
}

/** The cluster's folder: `--dir`, else `.data/postgres`, else (as root) one under /var/lib. */
async function clusterFolder(requested: string | undefined): Promise<string> {
  const preferred = resolve(requested ?? join(root, ".data", "postgres"));
  if (await prepareFolder(preferred)) return preferred;
  const unreachable = `o usuário postgres não alcança ${preferred} (uma pasta acima dela não lhe dá acesso)`;
  if (requested) throw new StartError(`${unreachable}: escolha outra com --dir`);
  const hash = createHash("sha256").update(root).digest("hex").slice(0, 8);
  const fallback = join("/var/lib/pix-charging", `${basename(root)}-${hash}`);
  if (!(await prepareFolder(fallback))) throw new StartError(`${unreachable}, nem ${fallback}: use --dir`);
  console.log(`start:pg: ${unreachable}; o cluster fica em ${fallback}`);
  return fallback;
}

/** The binaries of the cluster's PostgreSQL version, or of the newest installed for a new cluster. */
async function serverBinaries(data: string): Promise<string> {
  const versionFile = join(data, "PG_VERSION");
  if (existsSync(versionFile)) {
    const version = (await readFile(versionFile, "utf8")).trim();
    const bin = join("/usr/lib/postgresql", version, "bin");
    if (existsSync(join(bin, "pg_ctl"))) return bin;
    throw new StartError(`o cluster em ${data} é do PostgreSQL ${version}, que não está instalado (${bin})`);
  }
  const bin = await findPostgresBin();
  if (!bin) throw new StartError("PostgreSQL não está instalado (Debian/Ubuntu: apt-get install postgresql)");
  return bin;
}

/** initdb, then listen on 127.0.0.1 only and on no Unix socket (no path length or folder rights to mind). */
async function createCluster(bin: string, data: string): Promise<void> {
  const args = ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-instructions"];
  await asOwner(bin, "initdb", args);
  await appendFile(
    join(data, "postgresql.conf"),
    "\n# npm run start:pg\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n",
  );
}

/** The port of the cluster's running server, or null when it does not run. */
async function runningPort(bin: string, data: string): Promise<number | null> {
  const running = await asOwner(bin, "pg_ctl", ["status", "-D", data]).then(
    () => true,
    () => false,
  );
  if (!running) return null;
  const port = Number((await readFile(join(data, "postmaster.pid"), "utf8")).split("\n")[3]);
  return Number.isInteger(port) && port > 0 ? port : null;
}

/** Runs `query` on the cluster's maintenance database. */
async function adminQuery<T extends object>(adminUrl: string, query: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query<T>(query, values)).rows;
  } finally {
    await client.end();
  }
}

/** Sessions of other clients (another server, a worker): wait a moment for those of a server that just exited. */
async function otherClients(adminUrl: string): Promise<number> {
  const query =
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()";
  let count = 0;
  for (let i = 0; i < 20; i++) {
    count = (await adminQuery<{ n: number }>(adminUrl, query))[0]?.n ?? 0;
    if (count === 0) return 0;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return count;
}

/** The server, with SIGINT and SIGTERM relayed; resolves with its exit code. */
function runServer(command: string[], databaseUrl: string, relay: { to: ChildProcess | null }): Promise<number> {
  const [program = "", ...args] = command;
  // Its own process group: a terminal's Ctrl+C reaches it only through this process, so the server
  // hears each signal once from here (it tells npm's echo of a Ctrl+C from a second one itself).
  const server = spawn(program, args, {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: "inherit",
    detached: true,
  });
  relay.to = server;
  return new Promise((resolve) => {
    server.once("error", (error) => {
      console.error(`start:pg: não foi possível executar ${program}: ${error.message}`);
      resolve(1);
    });
    server.once("exit", (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { dir: { type: "string" } }, allowPositionals: true });
  const command = positionals.length > 0 ? positionals : npmStartCommand();

  let stopRequested = false;
  const relay: { to: ChildProcess | null } = { to: null };
  const onSignal = (signal: NodeJS.Signals) => {
    stopRequested = true;
    const server = relay.to;
    if (server && server.exitCode === null && server.signalCode === null) server.kill(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const dir = await clusterFolder(values.dir);
  const data = join(dir, "data");
  const bin = await serverBinaries(data);
  if (!existsSync(join(data, "PG_VERSION"))) {
    console.log(`start:pg: criando o cluster PostgreSQL em ${dir}`);
    await createCluster(bin, data);
  }
  let port = await runningPort(bin, data);
  const reused = port !== null;
  if (port === null) {
    port = await freePort();
    const log = join(dir, "postgres.log");
    await asOwner(bin, "pg_ctl", ["start", "-D", data, "-l", log, "-w", "-t", "60", "-o", `-p ${port}`]).catch(
      async (error: Error) => {
        const tail = (await readFile(log, "utf8").catch(() => "")).split("\n").slice(-10).join("\n");
        throw new StartError(`o PostgreSQL não iniciou (${error.message.trim()})\n${tail}`);
      },
    );
  }
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  try {
    const found = await adminQuery(adminUrl, "SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (found.length === 0) await createDatabase(adminUrl, database);
    const databaseUrl = `postgres://postgres@127.0.0.1:${port}/${database}`;
    const how = reused ? "já em execução" : "iniciado";
    console.log(`start:pg: PostgreSQL ${how} em ${dir} (porta ${port}): os dados ficam entre execuções`);
    console.log(`start:pg: DATABASE_URL=${databaseUrl}`);
    return stopRequested ? 0 : await runServer(command, databaseUrl, relay);
  } finally {
    const others = await otherClients(adminUrl).catch(() => 0);
    if (others > 0) {
      console.log(`start:pg: PostgreSQL deixado em execução: ${others} outra(s) conexão(ões) o usam`);
    } else {
      await asOwner(bin, "pg_ctl", ["stop", "-D", data, "-m", "fast", "-w", "-t", "60"]);
      console.log("start:pg: PostgreSQL parado");
    }
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof StartError) console.error(`start:pg: ${error.message}`);
    else console.error(error);
    process.exit(1);
  },
);
