/**
 * `npm run bench:processes`: create-charge throughput of the compiled server on PostgreSQL with
 * `WEB_CONCURRENCY=1` and `2`. Measured, not asserted: the numbers depend on the machine's cores
 * (and the load generator runs on the same machine). Uses `DATABASE_URL` when set (the user needs
 * CREATEDB), else a throwaway cluster. Everything stays on 127.0.0.1 and is bounded.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { createDatabase, dropDatabase, freePort, startThrowawayCluster } from "../scripts/pg-cluster.js";
import { chargeBody } from "../server/test/harness.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const seconds = Number(process.argv[2] ?? 5);
const clients = 32;

execFileSync(process.execPath, ["scripts/build.mjs", "--quiet"], { cwd: root, stdio: "inherit" });
const cluster = process.env.DATABASE_URL ? null : await startThrowawayCluster({ database: "bench" });
const adminUrl = process.env.DATABASE_URL ?? cluster?.adminUrl ?? "";

async function measure(processes: number): Promise<{ processes: number; perSecond: number; errors: number }> {
  const database = `bench_processes_${processes}_${Date.now() % 1e6}`;
  const url = await createDatabase(adminUrl, database);
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(root, "dist/server/src/main.js")], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: url,
      WEB_CONCURRENCY: String(processes),
      RATE_LIMITS: "off",
      LOG_LEVEL: "warn",
      LOG_FORMAT: "json",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    let output = "";
    child.stdout?.on("data", (chunk) => (output += chunk));
    const deadline = Date.now() + 60_000;
    let key: string | undefined;
    while (!key && Date.now() < deadline && child.exitCode === null) {
      key = /(svc_test_[A-Za-z0-9]+)/.exec(output)?.[1];
      await sleep(100);
    }
    if (!key) throw new Error(`the server did not start:\n${output}`);
    const base = `http://127.0.0.1:${port}`;
    const post = () =>
      fetch(`${base}/api/v1/charges/pix`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify(chargeBody()),
      }).then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      });
    for (let i = 0; i < 50; i++) await post(); // warm-up: validator loaded, pool filled
    let ok = 0;
    let errors = 0;
    const end = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (Date.now() < end) {
          if ((await post()) === 201) ok++;
          else errors++;
        }
      }),
    );
    return { processes, perSecond: ok / seconds, errors };
  } finally {
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(killer);
    await dropDatabase(adminUrl, database);
  }
}

try {
  const results = [];
  for (const processes of [1, 2]) results.push(await measure(processes));
  console.log(`create charge on PostgreSQL, ${clients} concurrent clients, ${seconds} s each:`);
  for (const r of results) {
    console.log(`  WEB_CONCURRENCY=${r.processes}: ${r.perSecond.toFixed(0)} charges/s (${r.errors} non-201)`);
  }
} finally {
  await cluster?.stop();
}
