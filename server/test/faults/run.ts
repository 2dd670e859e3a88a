import { parseArgs } from "node:util";
import {
  faultLimits,
  faultProblems,
  faultRig,
  type FaultReport,
  type OutageKind,
  outageKinds,
  planOutages,
  runFaultScenario,
} from "./scenario.js";

// `npm run faults -- --restarts 10 [--seed N] [--kinds restart,stop,crash] [--loops 3]`: the fault
// scenario of postgres-faults.test.ts (scenario.ts) with N outages instead of one of each: fast restarts,
// stops of a few seconds and immediate-mode crashes of a throwaway cluster, drawn by the seed,
// under a bounded load on two server processes. Prints one line per outage and a summary; exits 1
// when any check fails, printing the seed that replays the plan. `--loops` sets how many charge
// loops run at once (1–16; the request bound grows with them). Ends its servers and cluster on
// exit, failure, Ctrl-C or SIGTERM.

const usage = "usage: npm run faults -- [--restarts N] [--seed N] [--kinds restart,stop,crash] [--loops 1-16]";
const { values } = parseArgs({
  options: {
    restarts: { type: "string", default: "10" },
    seed: { type: "string" },
    kinds: { type: "string", default: outageKinds.join(",") },
    loops: { type: "string", default: "3" },
  },
});
const count = Number(values.restarts);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const kinds = values.kinds.split(",").map((k) => k.trim()) as OutageKind[];
const loops = Number(values.loops);
if (
  !Number.isInteger(loops) ||
  loops < 1 ||
  loops > 16 ||
  !Number.isSafeInteger(count) ||
  count < 1 ||
  count > 1000 ||
  !Number.isSafeInteger(seed) ||
  kinds.length === 0 ||
  kinds.some((k) => !outageKinds.includes(k))
) {
  console.error(usage);
  process.exit(2);
}

const plan = planOutages(count, seed, kinds);
const limits = faultLimits(plan, loops);
const rig = faultRig();

let exiting = false;
const stopAndExit = (code: number, why?: string) => {
  if (exiting) return;
  exiting = true;
  if (why) console.error(`faults: ${why}; stopping the servers and the cluster`);
  void rig
    .stop()
    .catch((error: unknown) => console.error(`faults: cleanup failed: ${(error as Error).message}`))
    .finally(() => process.exit(code));
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => stopAndExit(130, signal));
}
// Past the load's own bound, with room for starting and stopping: whatever hangs, nothing stays.
const watchdog = setTimeout(() => stopAndExit(1, "the run outlived its time bound"), limits.maxDurationMs + 120_000);
watchdog.unref();

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
function summary(report: FaultReport): string {
  const count = (kind: OutageKind) => report.outages.filter((o) => o.kind === kind).length;
  const recoveries = report.outages.flatMap((o) => o.recoveryMs);
  const statuses = Object.entries(report.statuses)
    .map(([status, n]) => `${status}×${n}`)
    .join(" ");
  return [
    `faults: seed ${seed}, ${report.outages.length} outages (restart ${count("restart")}, stop ${count("stop")}, crash ${count("crash")}) in ${seconds(report.durationMs)}`,
    `  requests ${report.requests} (bound ${limits.maxRequests}): ${statuses}; 503s A ${report.unavailable.a}, B ${report.unavailable.b}`,
    `  charges ${report.charges}, paid ${report.paid}; max recovery ${Math.max(...recoveries)} ms (budget ${limits.recoveryBudgetMs} ms)`,
    `  server processes alive ${report.alive.filter(Boolean).length}/2, each pid serving its port: ${report.serving.join(", ")}`,
    `  invariants after every outage and at the end: ${report.outages.every((o) => o.invariants.length === 0) && report.invariants.length === 0 ? "hold" : "BROKEN"}`,
  ].join("\n");
}

try {
  console.log(
    `faults: seed ${seed}, plan ${plan.map((o) => (o.kind === "restart" ? o.kind : `${o.kind} ${o.downMs}ms`)).join(", ")}`,
  );
  const started = await rig.start();
  console.log(
    `faults: servers A pid ${started.a.pid} (${started.a.baseUrl}), B pid ${started.b.pid} (${started.b.baseUrl})`,
  );
  const report = await runFaultScenario(started, plan, limits, (line) => console.log(`  ${line}`));
  console.log(summary(report));
  const problems = faultProblems(report, limits);
  for (const problem of problems.slice(0, 50)) console.log(`  FAIL ${problem}`);
  if (problems.length > 50) console.log(`  … and ${problems.length - 50} more`);
  if (problems.length > 0)
    console.log(
      `faults: FAILED; replay with --restarts ${count} --seed ${seed} --kinds ${kinds.join(",")} --loops ${loops}`,
    );
  stopAndExit(problems.length > 0 ? 1 : 0);
} catch (error) {
  console.error(error);
  stopAndExit(1, "the run failed");
}
