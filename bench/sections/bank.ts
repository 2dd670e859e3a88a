import { spawn } from "node:child_process";
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
  const child = spawn(command as string, args, {
    env: {
      ...process.env,
      BENCH_BANK_STORES: JSON.stringify(stores),
      BENCH_BANK_QUICK: quick ? "1" : "0",
      ...(namespace ? { BENCH_BANK_PUBLIC_ADDRESS: receiverAddress } : {}),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  const line = out.split("\n").find((l) => l.startsWith("BANK-RESULT "));
  if (code !== 0 || !line) throw new Error(`bank section: exit ${code}\n${out}`);
  return { results: JSON.parse(line.slice("BANK-RESULT ".length)) as BankResult[], namespace };
}
