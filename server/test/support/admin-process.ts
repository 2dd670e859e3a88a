/**
 * Runs the operator CLI: `runAdmin` in this process (the CLI's `main`, as `npm run admin` runs it,
 * with the environment and output of the run), `runAdminProcess` and `startAdmin` as real
 * processes (their own argv, environment, exit code and output). A process costs about 0.4 s of
 * CPU, Node's start and the bundle's load, and the tests ran more than 150 of them a run; the
 * process tests keep what only a process shows (main.ts's exit code, output on its streams, a
 * `listen` stopped by a signal).
 *
 * A process runs one bundle of `server/src/cli/main.ts` (esbuild, the transform tsx applies too),
 * built once per test worker (the files a worker runs share this module, vitest.config.ts):
 * starting `node --import tsx` compiled the CLI's modules again for each run, where the bundle
 * starts in a third of the time.
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { format } from "node:util";
import { build } from "esbuild";
import { inject } from "vitest";
import { main as cliMain } from "../../src/cli/cli.js";

const main = join(process.cwd(), "server/src/cli/main.ts");

let bundled: Promise<string> | undefined;

/**
 * The CLI as one ES module in a folder of the run's (server-build-setup.ts removes them all at the
 * run's end; not a file's afterAll: the next file of this worker runs the same bundle).
 */
function cliBundle(): Promise<string> {
  bundled ??= (async () => {
    const parent = `${inject("serverBuildDir")}-cli`;
    mkdirSync(parent, { recursive: true });
    const dir = mkdtempSync(join(parent, "bundle-"));
    const outfile = join(dir, "admin.mjs");
    await build({
      entryPoints: [main],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "warning",
      // Dependencies written as CommonJS call `require` inside the ES module bundle.
      banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    });
    return outfile;
  })();
  return bundled;
}

const argsFor = async (args: string[]) => [await cliBundle(), ...args];

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI's exit code and output as a process; `env` is added to this process's environment (undefined unsets). */
export async function runAdminProcess(args: string[], env: Record<string, string | undefined>): Promise<AdminRun> {
  const argv = await argsFor(args);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { env: { ...process.env, ...env }, timeout: 15_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** The run in progress in this process: one at a time, as each has the console and environment. */
let running: Promise<unknown> = Promise.resolve();

/**
 * The CLI's exit code and output, run in this process: `env` set on this process's environment
 * for the run (undefined unsets), what it prints to the console and to `process.stdout` and
 * `process.stderr` (commander's help and errors) taken as a process's streams would carry them.
 */
export function runAdmin(args: string[], env: Record<string, string | undefined>): Promise<AdminRun> {
  const run = running.then(() => runHere(args, env));
  running = run.catch(() => undefined);
  return run;
}

async function runHere(args: string[], env: Record<string, string | undefined>): Promise<AdminRun> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  const setAll = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  const streams = { stdout: "", stderr: "" };
  const into =
    (stream: keyof typeof streams) =>
    (...values: unknown[]) => {
      streams[stream] += `${format(...values)}\n`;
    };
  // A writer's callback (`write(chunk, encoding?, callback?)`) is called, as a stream would.
  const writeInto =
    (stream: keyof typeof streams) =>
    (chunk: string | Uint8Array, ...rest: unknown[]) => {
      streams[stream] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
      const done = rest.find((arg): arg is () => void => typeof arg === "function");
      if (done) queueMicrotask(done);
      return true;
    };
  const consoleSaved = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  setAll(env);
  Object.assign(console, { log: into("stdout"), info: into("stdout"), warn: into("stderr"), error: into("stderr") });
  process.stdout.write = writeInto("stdout") as typeof process.stdout.write;
  process.stderr.write = writeInto("stderr") as typeof process.stderr.write;
  try {
    const code = await cliMain(args);
    return { code, ...streams };
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
    Object.assign(console, consoleSaved);
    setAll(saved);
  }
}

/**
 * Starts the CLI and resolves once its stderr contains `ready`; `done` settles when it exits,
 * `output` is what it has printed so far.
 */
export async function startAdmin(
  args: string[],
  env: Record<string, string | undefined>,
  ready: string,
): Promise<{ done: Promise<AdminRun>; output(): { stdout: string; stderr: string }; kill(): void }> {
  const child = spawn(process.execPath, await argsFor(args), { env: { ...process.env, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  const done = new Promise<AdminRun>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
  await new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
      if (stderr.includes(ready)) resolve();
    });
    void done.then((r) => reject(new Error(`exited ${r.code} before "${ready}": ${r.stderr}`)));
  });
  return { done, output: () => ({ stdout, stderr }), kill: () => child.kill() };
}

/** The widest line of `text`, in characters as a terminal counts them. */
export const widestLine = (text: string) => Math.max(0, ...text.split("\n").map((l) => [...l].length));
