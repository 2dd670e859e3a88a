/**
 * The server as a process, signalled the way an operator, a terminal or a test harness does:
 * through `npm start` (the pid npm got is the one signalled), and with a standard output nobody
 * reads any more or that was closed (issue 24, §4.1 and §4.2).
 *
 * `npm start` runs in a scratch copy of what it needs (package.json, the build script, the
 * sources and the generated documents; node_modules linked), so its `prestart` build does not
 * replace the dist/ of a server running from this checkout.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { testRunMarker } from "../support/child-process-check.js";
import { listensOn, onFreePort, PortTakenError, portTakenIn } from "../support/server-process.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const scratch = join(root, "test-artifacts", `process-signals-${process.pid}`);
const adminToken = `adm_${"s".repeat(32)}`;
/** Marks every process this file starts, so the test can tell whether one is left. */
const marker = `PIX_SIGNALS_TEST=${randomBytes(6).toString("hex")}`;

interface Started {
  child: ChildProcess;
  port: number;
  stderr: () => string;
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];

/**
 * `command` in the scratch copy on a free port and the memory store. `stdout`: "read" (collected),
 * "unread" (a pipe nobody reads: it fills) or "closed" (our end closed at once).
 */
async function start(command: string[], options: StartOptions): Promise<Started> {
  // A port picked free can be taken before the server binds it: it is started again on another.
  return onFreePort((port) => startOn(port, command, options));
}

interface StartOptions {
  stdout: "read" | "unread" | "closed";
  env?: Record<string, string>;
  detached?: boolean;
}

async function startOn(port: number, command: string[], options: StartOptions): Promise<Started> {
  const [file = "", ...args] = command;
  const [markerName = "", markerValue = ""] = marker.split("=");
  const child = spawn(file, args, {
    cwd: scratch,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      [testRunMarker]: process.env[testRunMarker],
      [markerName]: markerValue,
      PORT: String(port),
      HOST: "127.0.0.1",
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  if (options.stdout === "read") child.stdout?.on("data", (chunk) => (stdout += chunk));
  if (options.stdout === "closed") child.stdout?.destroy();
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const message = `exited before serving (${child.exitCode ?? child.signalCode}):\n${stdout}\n${stderr}`;
      throw portTakenIn(stderr, port) ? new PortTakenError(message) : new Error(message);
    }
    const healthy = await fetch(`http://127.0.0.1:${port}/health`).then(
      (res) => res.ok,
      () => false,
    );
    // The answer must be this child's (or its child's, under npm): another process may hold the port.
    if (healthy && (await ownsPort(child.pid as number, port))) break;
    if (Date.now() > deadline) throw new Error(`no /health in time:\n${stdout}\n${stderr}`);
    await sleep(100);
  }
  return { child, port, stdout: () => stdout, stderr: () => stderr, exited };
}

/** The node build in the scratch copy, as `npm start` runs it. */
const serverCommand = [process.execPath, "--enable-source-maps", "dist/server/src/main.js"];

async function exitWithin(started: Started, ms: number) {
  const timeout = sleep(ms).then(() => {
    throw new Error(`no exit within ${ms} ms:\n${started.stderr()}`);
  });
  return Promise.race([started.exited, timeout]);
}

/** Processes still running that this file started (they carry its marker). */
async function leftovers(): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const environ = await readFile(`/proc/${entry}/environ`, "utf8").catch(() => "");
    if (!environ.split("\0").includes(marker)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    if (/\) Z /.test(stat)) continue; // exited, not yet reaped
    found.push(`${entry} ${(await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "")).split("\0").join(" ")}`);
  }
  return found;
}

async function refused(port: number): Promise<boolean> {
  const socket = connect(port, "127.0.0.1");
  return new Promise((resolve) => {
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

/** Whether `pid` or one of its children holds the listening socket of `port` (true where /proc cannot tell). */
async function ownsPort(pid: number, port: number): Promise<boolean> {
  return (await listensOn(pid, port)) !== false || (await serverUnder(pid, port)) !== undefined;
}

/** The node process serving `port` among the children of `pid` (npm's child after its exec). */
async function serverUnder(pid: number, port: number): Promise<number | undefined> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (parent === pid && (await listensOn(Number(entry), port))) return Number(entry);
  }
  return undefined;
}

/** Log lines of about 16 KB each (the URL is logged twice): enough of them fill any pipe. */
async function logLoudly(port: number, requests: number): Promise<void> {
  const path = `/nada-${"x".repeat(8000)}`;
  for (let i = 0; i < requests; i++) {
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    await res.body?.cancel();
  }
}

/** An operator request the server has begun and cannot finish: half of its body sent. */
async function requestInFlight(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.on("error", () => undefined);
  socket.write(
    `POST /admin/v1/accounts HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nauthorization: Bearer ${adminToken}\r\n` +
      `content-type: application/json\r\ncontent-length: 100\r\n\r\n{"name":`,
  );
  await sleep(200);
  return socket;
}

beforeAll(() => {
  mkdirSync(join(scratch, "scripts"), { recursive: true });
  cpSync(join(root, "package.json"), join(scratch, "package.json"));
  cpSync(join(root, "scripts/build.mjs"), join(scratch, "scripts/build.mjs"));
  for (const dir of ["server/src", "generated"]) cpSync(join(root, dir), join(scratch, dir), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(scratch, "node_modules"));
  execFileSync(process.execPath, ["scripts/build.mjs", "--quiet"], { cwd: scratch, timeout: 60_000 });
}, 90_000);

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe("npm start", () => {
  test("when the process npm start created gets SIGTERM, then the server stops: npm exits 0, the port closes and no process is left", async () => {
    const npm = await start(["npm", "start"], { stdout: "read" });
    const server = await serverUnder(npm.child.pid as number, npm.port);

    npm.child.kill("SIGTERM");
    const exit = await exitWithin(npm, 15_000);

    expect(server).toBeDefined(); // node itself, not a shell, is npm's child
    expect(exit).toEqual({ code: 0, signal: null });
    expect(npm.stdout()).toContain("ouvindo em");
    expect(await refused(npm.port)).toBe(true);
    expect(await leftovers()).toEqual([]);
  }, 60_000);

  test("when a terminal's Ctrl+C reaches npm start's process group, then the server drains once and exits 0: npm's relay of that SIGINT is not a second signal", async () => {
    const npm = await start(["npm", "start"], { stdout: "read", detached: true });

    process.kill(-(npm.child.pid as number), "SIGINT");
    const exit = await exitWithin(npm, 15_000);

    expect(exit).toEqual({ code: 0, signal: null });
    expect(npm.stdout()).toContain('"msg":"encerrado"');
    expect(npm.stdout()).not.toContain("segundo sinal");
    expect(await leftovers()).toEqual([]);
  }, 60_000);
});

describe("shutdown with a standard output nobody reads", () => {
  test.each<{ name: string; env: Record<string, string>; inFlight: boolean; second: boolean; code: number }>([
    { name: "nothing is in flight", env: {}, inFlight: false, second: false, code: 0 },
    {
      name: "a request outlasts SHUTDOWN_TIMEOUT_MS",
      env: { SHUTDOWN_TIMEOUT_MS: "500" },
      inFlight: true,
      second: false,
      code: 1,
    },
    { name: "a second signal arrives while draining", env: {}, inFlight: true, second: true, code: 1 },
  ])(
    "when $name, then the process still exits ($code)",
    async ({ env, inFlight, second, code }) => {
      const server = await start(serverCommand, { stdout: "unread", env });
      await logLoudly(server.port, 40);
      const socket = inFlight ? await requestInFlight(server.port) : undefined;

      server.child.kill("SIGTERM");
      if (second) {
        await sleep(600); // beyond the echo window (shutdown.ts)
        server.child.kill("SIGTERM");
      }
      const exit = await exitWithin(server, 5_000);
      socket?.destroy();

      expect(exit).toEqual({ code, signal: null });
      expect(await leftovers()).toEqual([]);
    },
    60_000,
  );
});

describe("shutdown with a closed standard output", () => {
  test("when stdout was closed, then the server still serves and logs nothing to it, and SIGTERM ends it with 0", async () => {
    const server = await start(serverCommand, { stdout: "closed" });
    await logLoudly(server.port, 5);
    const health = await fetch(`http://127.0.0.1:${server.port}/health`);

    server.child.kill("SIGTERM");
    const exit = await exitWithin(server, 5_000);

    expect(health.status).toBe(200);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toBe("");
  }, 60_000);
});
