import { randomBytes } from "node:crypto";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { readdir, readFile, readlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { inject } from "vitest";
import { freePort } from "../../../scripts/pg-cluster.js";
import { testRunMarker } from "./child-process-check.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The server processes run the build `npm start` runs (scripts/build.mjs, without the web app,
// which they never open): `node --import tsx server/src/main.ts` compiled some thousand modules
// again at every start (about 9 s to the first /health on a loaded machine, against 2 s for the
// build's entry). One build serves every test file of the run (`serverBuildDir`, made by the
// global setup, removed at its end): the first file that needs it builds it, holding a lock
// directory; the others wait for its `ready` mark.
let built: Promise<string> | undefined;
/**
 * The built server's entry, building it on first use in the run. `inject` is asked here, not when
 * the module loads: the contract suite's global setup imports this module (`listensOn`), and a
 * global setup has no test context to inject from. The production-shape tests start this entry
 * with `node` too (http/production.test.ts): one build of the server a run, not one per file.
 */
export function serverEntry(): Promise<string> {
  built ??= (async () => {
    const buildDir = inject("serverBuildDir");
    const entry = join(buildDir, "server/src/main.js");
    const ready = join(buildDir, "ready");
    const failed = join(buildDir, "failed");
    let builder = true;
    mkdirSync(dirname(buildDir), { recursive: true });
    try {
      mkdirSync(`${buildDir}.lock`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      builder = false;
    }
    if (builder) {
      try {
        await promisify(execFile)(
          process.execPath,
          ["scripts/build.mjs", "--quiet", "--without-panel", "--without-docs", `--outdir=${buildDir}`],
          { cwd: root, timeout: 180_000 },
        );
        writeFileSync(ready, "");
      } catch (error) {
        mkdirSync(buildDir, { recursive: true });
        writeFileSync(failed, String(error));
        throw error;
      }
      return entry;
    }
    for (const deadline = Date.now() + 180_000; Date.now() < deadline; await sleep(200)) {
      if (existsSync(ready)) return entry;
      if (existsSync(failed)) throw new Error(`the server build failed: ${readFileSync(failed, "utf8")}`);
    }
    throw new Error("the server build did not finish within 3 minutes");
  })();
  return built;
}

/** A real server process of this checkout, started by `startServerProcess`. */
export interface ServerProcess {
  baseUrl: string;
  port: number;
  /** The pid of the process that serves (node itself, not a launcher). */
  pid: number;
  child: ChildProcess;
  output(): string;
  alive(): boolean;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the process has exited. */
  stop(): Promise<void>;
}

/** Whether `pid` holds the listening socket of 127.0.0.1:`port`; null where /proc cannot tell (not Linux). */
export async function listensOn(pid: number, port: number): Promise<boolean | null> {
  let table: string;
  try {
    table = await readFile("/proc/net/tcp", "utf8");
  } catch {
    return null;
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const line of table.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    // local_address is fields[1] ("0100007F:1F90"), st fields[3] ("0A": LISTEN), inode fields[9].
    if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === "0A" && fields[9]) inodes.add(`socket:[${fields[9]}]`);
  }
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
    if (inodes.has(target)) return true;
  }
  return false;
}

/**
 * The built server (its entry under test-artifacts/, as `npm start` runs it) on 127.0.0.1:`port`,
 * waited for through /health, with `env` on top of PATH, HOME, the test-run marker,
 * `LOG_LEVEL=warn`, `PIX_BANK_RETRY_SECONDS=1` and (outside production) `PIX_PASSWORD_HASH_COST=minimal`. node itself serves, so the pid handed back is checked to hold the listening
 * socket. `track` hears how to stop the process as soon as it is spawned, so a caller can clean up
 * even when the start fails.
 */
/** MASTER_KEYS of the production processes a test starts: one key per test run. */
const testMasterKeys = `test:${randomBytes(32).toString("base64")}`;

export async function startServerProcess(options: {
  name: string;
  /** The port to serve on (a restart's); absent, one free a moment ago, another if it was taken meanwhile. */
  port?: number | undefined;
  env: Record<string, string>;
  track?: (stop: () => Promise<void>) => void;
}): Promise<ServerProcess> {
  if (options.port !== undefined) return startOnPort({ ...options, port: options.port });
  return onFreePort((port) => startOnPort({ ...options, port }));
}

/**
 * `start` on a port free a moment ago, and again on another (at most three tries) when it throws
 * `PortTakenError`: a port picked free can be taken before the process binds it (another worker's
 * pick, or an outgoing connection's local port from the same range).
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (error) {
      if (attempt >= 3 || !(error instanceof PortTakenError)) throw error;
    }
  }
}

/**
 * The port a server was started on was taken before it bound it: it exited saying so (`porta em
 * uso`), or another process answers there. Its starter tries again on another port.
 */
export class PortTakenError extends Error {}

/** Whether a server's output says its port was taken (main.ts's message for EADDRINUSE). */
export const portTakenIn = (output: string, port: number) => output.includes(`porta em uso: ${port} `);

async function startOnPort(options: {
  name: string;
  port: number;
  env: Record<string, string>;
  track?: ((stop: () => Promise<void>) => void) | undefined;
}): Promise<ServerProcess> {
  const { name, port } = options;
  // Without `npm start`'s `--enable-source-maps`: with it, each process read every chunk's source
  // map as it loaded and parsed the bundle's whole map at its first stack trace, about a tenth of a
  // server process's CPU in the bank fault tests, dozens of processes a run. A trace a test prints
  // names the bundle's lines; http/process-signals.test.ts runs `npm start`'s own command.
  const child = spawn(process.execPath, [await serverEntry()], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      [testRunMarker]: process.env[testRunMarker],
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      // Cheap password hashes (docs/configuration.md), but where production is what is tested.
      ...(options.env.NODE_ENV === "production" ? {} : { PIX_PASSWORD_HASH_COST: "minimal" }),
      // The bank retried after 1 s (its default 5 s, doubling): a fault scenario waits for the retries
      // that follow a fault, not for the production pauses (docs/configuration.md).
      PIX_BANK_RETRY_SECONDS: "1",
      // Production needs MASTER_KEYS (docs/configuration.md): a key made for this run.
      ...(options.env.NODE_ENV === "production" ? { MASTER_KEYS: testMasterKeys } : {}),
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const alive = () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return false;
    try {
      process.kill(child.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(killer);
  };
  options.track?.(stop);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    if (!alive()) {
      await Promise.race([closed, sleep(1_000)]); // its last output read
      const message = `server ${name} exited with ${child.exitCode ?? child.signalCode}:\n${output}`;
      throw portTakenIn(output, port) ? new PortTakenError(message) : new Error(message);
    }
    const healthy = await fetch(`${baseUrl}/health`).then(
      (res) => res.ok,
      () => false, // not listening yet
    );
    if (healthy) {
      const pid = child.pid as number;
      if ((await listensOn(pid, port)) === false) {
        // Another process took the port and answered: this one is about to exit with `porta em uso`.
        await stop();
        throw new PortTakenError(`server ${name}: pid ${pid} does not hold the socket of port ${port}`);
      }
      return { baseUrl, port, pid, child, output: () => output, alive, stop };
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`server ${name} did not answer /health in time:\n${output}`);
}
