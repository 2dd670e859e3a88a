import { spawn } from "node:child_process";
import { childResult } from "../lib/process.js";
import type { BankResult } from "./bank-child.js";

/**
 * A public unicast address put on the loopback of the section's own network namespace: a
 * production webhook endpoint must be public (the server refuses loopback and private ranges for
 * it, server/src/webhooks/ssrf.ts), so the merchant's receiver listens there. Nothing leaves the
 * namespace: it has no other interface.
 */
const receiverAddress = "11.0.0.1";

/** Whether `unshare -n` (a network namespace of our own, root or CAP_SYS_ADMIN) works here. */
function canUnshare(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn("unshare", ["-n", "--", "ip", "link", "set", "lo", "up"], { stdio: "ignore" });
    child.on("error", () => resolve(false));
    child.on("exit", (code) => resolve(code === 0));
  });
}

/**
 * The bank section (issue 35's speed targets): bench/sections/bank-child.ts in a child process,
 * in a network namespace of its own when `unshare -n` works (else the callback measurement is
 * skipped and says so). `stores` are the stores to measure, a PostgreSQL one by a URL the
 * namespace reaches (the cluster's Unix socket: the namespace has a loopback of its own).
 */
export async function bankSection(
  stores: { name: string; databaseUrl?: string }[],
  quick: boolean,
): Promise<{ results: BankResult[]; namespace: boolean }> {
  const namespace = await canUnshare();
  return runChild(stores, quick, namespace);
}

async function runChild(
  stores: { name: string; databaseUrl?: string }[],
  quick: boolean,
  namespace: boolean,
): Promise<{ results: BankResult[]; namespace: boolean }> {
  const node = [process.execPath, "--import", "tsx", "bench/sections/bank-child.ts"];
  const [command, ...args] = namespace
    ? [
        "unshare",
        "-n",
        "--",
        "sh",
        "-c",
        `ip link set lo up && ip addr add ${receiverAddress}/32 dev lo && exec "$0" "$@"`,
        ...node,
      ]
    : node;
  const results = await childResult<BankResult[]>(
    command as string,
    args,
    {
      BENCH_BANK_STORES: JSON.stringify(stores),
      BENCH_BANK_QUICK: quick ? "1" : "0",
      ...(namespace ? { BENCH_BANK_PUBLIC_ADDRESS: receiverAddress } : {}),
    },
    "BANK-RESULT",
  );
  return { results, namespace };
}
