import { freePort } from "../../scripts/pg-cluster.js";
import { startNode } from "../lib/process.js";
import { serverArgs } from "../lib/server.js";

/** Milliseconds from spawning the server to its first `/health` answer: the median of `runs`. */
export async function startupToHealth(runs = 3): Promise<{ ms: number; compiled: boolean }> {
  const args = serverArgs();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const server = await startNode(args, { port: await freePort(), env: { RATE_LIMITS: "off" }, pollMs: 5 });
    times.push(performance.now() - t);
    await server.stop();
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)] ?? NaN, compiled: !args.includes("tsx") };
}
