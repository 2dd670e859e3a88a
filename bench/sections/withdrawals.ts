import { execFile, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import type { WithdrawalsResult } from "./withdrawals-child.js";

/**
 * The withdrawals section (issue 36 §3): bench/sections/withdrawals-child.ts in a child process,
 * against the build of this checkout as deployed (made for this run, as the bank section's).
 * `stores` are the stores to measure, a PostgreSQL one by its URL.
 */
export async function withdrawalsSection(
  stores: { name: string; databaseUrl?: string }[],
  quick: boolean,
): Promise<WithdrawalsResult[]> {
  const buildDir = join("test-artifacts", `bench-build-withdrawals-${process.pid}`);
  await promisify(execFile)(
    process.execPath,
    ["scripts/build.mjs", "--quiet", "--without-panel", "--without-docs", `--outdir=${buildDir}`],
    { timeout: 300_000 },
  );
  try {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/sections/withdrawals-child.ts"], {
      env: {
        ...process.env,
        BENCH_WITHDRAWALS_STORES: JSON.stringify(stores),
        BENCH_WITHDRAWALS_QUICK: quick ? "1" : "0",
        BENCH_WITHDRAWALS_SERVER_ENTRY: join(buildDir, "server/src/main.js"),
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    const line = out.split("\n").find((l) => l.startsWith("WITHDRAWALS-RESULT "));
    if (code !== 0 || !line) throw new Error(`withdrawals section: exit ${code}\n${out}`);
    return JSON.parse(line.slice("WITHDRAWALS-RESULT ".length)) as WithdrawalsResult[];
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }
}
