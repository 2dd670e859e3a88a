import { parseArgs } from "node:util";
import { describeFailures, fuzz, type FuzzReport } from "./fuzzer.js";
import { prepareDashboardTarget, prepareTarget } from "./target.js";
import { startTestServer, type TestServer } from "../harness.js";
import { createPool, migrateDatabase, PostgresStore } from "../../src/store/postgres/index.js";
import { createDatabase, dropDatabase, findPostgresBin, startThrowawayCluster } from "../../../scripts/pg-cluster.js";

// `npm run fuzz -- --requests 20000 --seed N [--store memory|postgres|both] [--document public|dashboard]`:
// the spec-driven fuzzer (server/test/fuzz/) for longer than CI runs it, of the public API (with the
// checkout) or the merchant dashboard's document, against servers it starts itself on 127.0.0.1:
// the memory store, and PostgreSQL (DATABASE_URL's server, or a throwaway cluster). Exits 1 when any
// answer breaks the contract, printing the seed that replays it.

const usage =
  "usage: npm run fuzz -- [--requests N] [--seed N] [--store memory|postgres|both] [--document public|dashboard]";
const values = (() => {
  try {
    return parseArgs({
      options: {
        requests: { type: "string", default: "20000" },
        seed: { type: "string" },
        store: { type: "string", default: "both" },
        document: { type: "string", default: "public" },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    process.exit(2);
  }
})();
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const prepare = values.document === "dashboard" ? prepareDashboardTarget : prepareTarget;
const requests = Number(values.requests);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (
  !Number.isSafeInteger(requests) ||
  requests < 1 ||
  !Number.isSafeInteger(seed) ||
  !["public", "dashboard"].includes(values.document) ||
  !["memory", "postgres", "both"].includes(values.store)
) {
  console.error(usage);
  process.exit(2);
}
const stores = values.store === "both" ? ["memory", "postgres"] : [values.store];

function summary(report: FuzzReport): string {
  const statuses = Object.entries(report.statuses)
    .map(([status, n]) => `${status}×${n}`)
    .join(" ");
  return `fuzz ${values.document} ${report.target}: seed ${report.seed}, ${report.sent} requests, ${report.failures.length} failures, ${report.retriedAfterReset} sent again after a reset (${statuses})`;
}

async function onMemory(): Promise<FuzzReport> {
  const server = await startTestServer();
  try {
    return await fuzz(await prepare("memory", server), { seed, requests });
  } finally {
    await server.close();
  }
}

async function onPostgres(): Promise<FuzzReport | null> {
  let adminUrl = process.env.DATABASE_URL;
  let stopCluster: (() => Promise<void>) | null = null;
  if (!adminUrl) {
    if (!(await findPostgresBin())) {
      console.warn("fuzz postgres: SKIPPED (no DATABASE_URL and no PostgreSQL binaries)");
      return null;
    }
    const cluster = await startThrowawayCluster();
    adminUrl = cluster.adminUrl;
    stopCluster = () => cluster.stop();
  }
  const name = `pix_fuzz_${process.pid}`;
  const url = await createDatabase(adminUrl, name);
  let server: TestServer | null = null;
  try {
    await migrateDatabase(url);
    server = await startTestServer({ store: new PostgresStore(createPool(url, { max: 5 })) });
    return await fuzz(await prepare("postgres", server), { seed, requests });
  } finally {
    await server?.close();
    await server?.store.close();
    await dropDatabase(adminUrl, name);
    await stopCluster?.();
  }
}

let failed = false;
for (const store of stores) {
  const report = store === "memory" ? await onMemory() : store === "postgres" ? await onPostgres() : null;
  if (!report) continue;
  console.log(summary(report));
  if (report.failures.length > 0) {
    failed = true;
    console.log(describeFailures(report, 30));
  }
}
process.exit(failed ? 1 : 0);
