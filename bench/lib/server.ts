import { execFile } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

/**
 * The flags `npm start` gives node (package.json's `start` script), read from there so the bench
 * measures the runtime production runs, and the baselines run with the same V8 settings.
 */
export function startFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: { start: string } };
  return scripts.start.split(/\s+/).filter((word) => word.startsWith("--"));
}

/**
 * The built server every section starts: `BENCH_SERVER_ENTRY`, set by `buildForRun` for this process
 * and the sections' child processes (bank, withdrawals) alike.
 */
const entryVariable = "BENCH_SERVER_ENTRY";

/**
 * How to run the server as deployed: `npm start`'s flags and the run's build (`buildForRun`). A
 * section's child started by hand, without one, takes dist/ when it was built, else the TypeScript
 * sources through tsx.
 */
export function serverArgs(): string[] {
  const entry = process.env[entryVariable];
  if (entry) return [...startFlags(), entry];
  return existsSync("dist/server/src/main.js")
    ? [...startFlags(), "dist/server/src/main.js"]
    : [...startFlags(), "--import", "tsx", "server/src/main.ts"];
}

/**
 * Builds this checkout's server as `npm run build` does into a directory of this run, and points
 * `serverArgs()` at it, here and in the child processes the sections start. Without it a fresh
 * clone measured the TypeScript sources through tsx (no dist/ there: 1,319 ms to the first
 * /health instead of the bundle's 281 on the same machine), and a stale dist/ measured an older
 * server. The dashboard app and the documentation site are left out: no section serves them.
 * Answers a function that removes the build.
 */
export async function buildForRun(): Promise<() => void> {
  const buildDir = join("test-artifacts", `bench-build-${process.pid}`);
  await promisify(execFile)(
    process.execPath,
    ["scripts/build.mjs", "--quiet", "--without-panel", "--without-docs", `--outdir=${buildDir}`],
    { timeout: 300_000 },
  );
  process.env[entryVariable] = join(buildDir, "server/src/main.js");
  return () => {
    delete process.env[entryVariable];
    rmSync(buildDir, { recursive: true, force: true });
  };
}
