import { spawn } from "node:child_process";
import type { WithdrawalsResult } from "./withdrawals-child.js";

/**
 * The withdrawals section (issue 36 §3): bench/sections/withdrawals-child.ts in a child process,
 * against the run's build of this checkout as deployed (bench/lib/server.ts).
 * `stores` are the stores to measure, a PostgreSQL one by its URL.
 */
export async function withdrawalsSection(
  stores: { name: string; databaseUrl?: string }[],
  quick: boolean,
): Promise<WithdrawalsResult[]> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/sections/withdrawals-child.ts"], {
    env: {
      ...process.env,
      BENCH_WITHDRAWALS_STORES: JSON.stringify(stores),
      BENCH_WITHDRAWALS_QUICK: quick ? "1" : "0",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  const line = out.split("\n").find((l) => l.startsWith("WITHDRAWALS-RESULT "));
  if (code !== 0 || !line) throw new Error(`withdrawals section: exit ${code}\n${out}`);
  return JSON.parse(line.slice("WITHDRAWALS-RESULT ".length)) as WithdrawalsResult[];
}
