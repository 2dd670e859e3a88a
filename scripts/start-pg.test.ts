import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { chargeBody } from "../server/test/harness.js";
import { testRunMarker } from "../server/test/support/child-process-check.js";
import { startServerProcess } from "../server/test/support/server-process.js";
import { defaultClusterParent, findPostgresBin, freePort } from "./pg-cluster.js";

// `npm start` keeps everything in memory, so a restart forgets every key and charge: its banner
// must say so, and `npm run start:pg` (scripts/start-pg.ts) must keep them between restarts.

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = await findPostgresBin();
const isRoot = process.getuid?.() === 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the test runs and must stop. */
const running: ChildProcess[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill("SIGKILL");
    await once(child, "exit");
  }
});
afterAll(async () => {
  for (const folder of folders) {
    const data = join(folder, "pg", "data");
    if (bin && existsSync(join(data, "postmaster.pid"))) {
      // A failed test left the cluster running: stop it as its owner.
      const pgCtl = [join(bin, "pg_ctl"), "stop", "-D", data, "-m", "immediate"];
      const [program = "", ...args] = isRoot ? ["runuser", "-u", "postgres", "--", ...pgCtl] : pgCtl;
      await promisify(execFile)(program, args).catch(() => undefined);
    }
    await rm(folder, { recursive: true, force: true });
  }
});

/** A folder the `postgres` user can reach (as root the cluster belongs to it). */
async function scratchFolder(mode = 0o755): Promise<string> {
  const folder = await mkdtemp(join(await defaultClusterParent(), "pix-start-pg-"));
  folders.push(folder);
  await chmod(folder, mode);
  return folder;
}

/** `start-pg.ts --dir <folder>/pg` running the server from source on `port`; resolves once the banner is out. */
async function startPg(folder: string, port: number) {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "scripts/start-pg.ts",
      "--dir",
      join(folder, "pg"),
      "--",
      process.execPath,
      "--import",
      "tsx",
      "server/src/main.ts",
    ],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        [testRunMarker]: process.env[testRunMarker],
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  running.push(child);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const deadline = Date.now() + 90_000;
  while (!/Conta de desenvolvimento/.test(output)) {
    if (child.exitCode !== null) throw new Error(`start-pg exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`start-pg did not start the server:\n${output}`);
    await sleep(100);
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    output: () => output,
    /** SIGTERM to start-pg only (the server and the cluster stop through it); its exit code. */
    stop: async () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

describe("data between restarts", () => {
  test("when npm start runs on the memory store, then its banner says a restart loses the data and names start:pg", async () => {
    const server = await startServerProcess({ name: "memory", port: await freePort(), env: { LOG_LEVEL: "warn" } });
    try {
      for (let i = 0; i < 100 && !server.output().includes("Conta de desenvolvimento"); i++) await sleep(50);
      expect(server.output()).toMatch(/Dados só na memória: .*somem.*npm run start:pg/);
    } finally {
      await server.stop();
    }
  });

  test.skipIf(!bin)(
    "when start:pg is stopped and started again, then the key and the charge are still there and nothing is left running",
    { timeout: 180_000 },
    async () => {
      // Arrange: a first run, on a new cluster.
      const folder = await scratchFolder();
      const data = join(folder, "pg", "data");
      const first = await startPg(folder, await freePort());
      expect(first.output()).not.toMatch(/Dados só na memória/);
      const key = /svc_test_\w+/.exec(first.output())?.[0] ?? "";
      expect(key).not.toBe("");
      const created = await fetch(`${first.baseUrl}/api/v1/charges/pix`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify(chargeBody({ amountCents: 8990 })),
      });
      expect(created.status).toBe(201);
      const charge = (await created.json()) as { id: string };

      // Act: stop it (server and cluster), start it again on another port.
      expect(await first.stop(), first.output()).toBe(0);
      expect(existsSync(join(data, "postmaster.pid")), first.output()).toBe(false);
      await expect(fetch(`${first.baseUrl}/health`)).rejects.toThrow();
      const second = await startPg(folder, await freePort());

      // Assert: the same key reads the same charge; no new key was made.
      const read = await fetch(`${second.baseUrl}/api/v1/transactions/${charge.id}`, { headers: { "x-api-key": key } });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { id: string }).id).toBe(charge.id);
      expect(second.output()).not.toMatch(/svc_test_/);
      expect(await second.stop(), second.output()).toBe(0);
      expect(existsSync(join(data, "postmaster.pid")), second.output()).toBe(false);
      await expect(fetch(`${second.baseUrl}/health`)).rejects.toThrow();
    },
  );

  test.skipIf(!bin || !isRoot)(
    "when the postgres user cannot reach the folder asked for, then start:pg says so and exits 1",
    async () => {
      const folder = await scratchFolder(0o700);
      const run = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", "scripts/start-pg.ts", "--dir", join(folder, "pg"), "--", "true"],
        { cwd: root, env: { PATH: process.env.PATH, HOME: process.env.HOME } },
      ).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/o usuário postgres não alcança .*--dir/);
    },
  );
});
