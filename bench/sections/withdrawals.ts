import { childResult } from "../lib/process.js";
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
  return childResult<WithdrawalsResult[]>(
    process.execPath,
    ["--import", "tsx", "bench/sections/withdrawals-child.ts"],
    { BENCH_WITHDRAWALS_STORES: JSON.stringify(stores), BENCH_WITHDRAWALS_QUICK: quick ? "1" : "0" },
    "WITHDRAWALS-RESULT",
  );
}
