/**
 * Runs the operator CLI as a real process: its own argv, environment, exit code and output. The
 * process runs one bundle of `server/src/cli/main.ts` (esbuild, the transform tsx applies too),
 * built once per test worker (the files a worker runs share this module, vitest.config.ts):
 * starting `node --import tsx` compiled the CLI's modules again for each run, where the bundle
 * starts in a third of the time.
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { inject } from "vitest";

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

/** The CLI's exit code and output; `env` is added to this process's environment (undefined unsets). */
export async function runAdmin(args: string[], env: Record<string, string | undefined>): Promise<AdminRun> {
  const argv = await argsFor(args);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { env: { ...process.env, ...env }, timeout: 15_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** Starts the CLI and resolves once its stderr contains `ready`; `done` settles when it exits. */
export async function startAdmin(
  args: string[],
  env: Record<string, string | undefined>,
  ready: string,
): Promise<{ done: Promise<AdminRun>; kill(): void }> {
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
  return { done, kill: () => child.kill() };
}

/** The widest line of `text`, in characters as a terminal counts them. */
export const widestLine = (text: string) => Math.max(0, ...text.split("\n").map((l) => [...l].length));
