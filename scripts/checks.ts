/**
 * The checks, in two lanes at once (each step is mostly one process on one core): the drift of
 * generated/, the breaking-change check, the linters, the type checks and knip. Each step's output
 * is printed when it ends; the run fails when any step fails.
 *
 *   npm run checks
 *   npm test             (tsx scripts/checks.ts --beside-tests)
 *
 * `--beside-tests` runs `vitest run` at the same time, the checks at the lowest priority (nice 19):
 * about a third of the test run is waiting (servers, PostgreSQL, Chromium), and the checks take
 * that idle CPU instead of 90 s of their own before the first test (docs/contributing.md, "Where
 * the test time goes").
 */
import { spawn } from "node:child_process";

// Balanced by CPU time, measured one by one (2026-11-29): check:generated 27 s and lint:code 58 s
// (prettier 19, eslint 39) in one lane; check:breaking 43 s (25 s since its unions are paired),
// typecheck 20 s (tsgo; 14 s on one thread, 2026-11-30), lint:spec 16 s and lint:unused 11 s in the other.
const lanes: string[][] = [
  ["check:generated", "lint:code"],
  ["check:breaking", "typecheck", "lint:spec", "lint:unused"],
];

const besideTests = process.argv.includes("--beside-tests");

function run(script: string): Promise<boolean> {
  const started = Date.now();
  return new Promise((resolve) => {
    const npm = ["run", "-s", script];
    const child = besideTests
      ? spawn("nice", ["-n", "19", "npm", ...npm], { stdio: ["ignore", "pipe", "pipe"] })
      : spawn("npm", npm, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("close", (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `\n── npm run ${script}: ${code === 0 ? "ok" : `failed (${code})`} in ${seconds} s\n${output}`,
      );
      resolve(code === 0);
    });
  });
}

async function lane(scripts: string[]): Promise<boolean> {
  let ok = true;
  for (const script of scripts) ok = (await run(script)) && ok;
  return ok;
}

/** `vitest run`, its output as it comes. */
function tests(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn("npx", ["vitest", "run"], { stdio: "inherit" });
    child.on("close", (code) => resolve(code === 0));
  });
}

const [tested, ...results] = await Promise.all([besideTests ? tests() : true, ...lanes.map(lane)]);
if (besideTests) process.stdout.write(`\n── checks: ${results.includes(false) ? "failed (above)" : "ok"}\n`);
if (!tested || results.includes(false)) process.exit(1);
