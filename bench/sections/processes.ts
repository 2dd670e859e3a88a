import { createDatabase, dropDatabase } from "../../scripts/pg-cluster.js";
import { type LoadOptions, requestsPerSecond } from "../lib/load.js";
import type { Running } from "../lib/process.js";
import { createChargeRequest, startOurServer } from "./throughput.js";

/**
 * Create-charge throughput of the server on PostgreSQL with `WEB_CONCURRENCY=1` and `2` (each on a
 * fresh database). Reported, not judged: the gain depends on free cores, and here the load
 * generator shares the machine. The server processes are not pinned (the point is to use both
 * cores); the load stays where the throughput section pinned it.
 */
export async function throughputByProcesses(adminUrl: string, load: LoadOptions): Promise<Record<number, number>> {
  const out: Record<number, number> = {};
  for (const processes of [1, 2]) {
    const database = `bench_processes_${processes}`;
    const url = await createDatabase(adminUrl, database);
    let running: Running | undefined;
    try {
      const { server, key } = await startOurServer(
        { DATABASE_URL: url, WEB_CONCURRENCY: String(processes) },
        {},
        { cpu: null },
      );
      running = server;
      out[processes] = await requestsPerSecond(server.baseUrl, createChargeRequest(key), load);
    } finally {
      await running?.stop();
      await dropDatabase(adminUrl, database).catch(() => undefined);
    }
  }
  return out;
}
