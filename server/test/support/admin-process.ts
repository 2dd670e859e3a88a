/** Runs the operator CLI as a real process (`node --import tsx server/src/admin/main.ts …`). */
import { execFile, spawn } from "node:child_process";
import { join } from "node:path";

const main = join(process.cwd(), "server/src/admin/main.ts");
const argsFor = (args: string[]) => ["--import", "tsx", main, ...args];

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI's exit code and output; `env` is added to this process's environment (undefined unsets). */
export function runAdmin(args: string[], env: Record<string, string | undefined>): Promise<AdminRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      argsFor(args),
      { env: { ...process.env, ...env }, timeout: 15_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/** Starts the CLI and resolves once its stderr contains `ready`; `done` settles when it exits. */
export async function startAdmin(
  args: string[],
  env: Record<string, string | undefined>,
  ready: string,
): Promise<{ done: Promise<AdminRun>; kill(): void }> {
  const child = spawn(process.execPath, argsFor(args), { env: { ...process.env, ...env } });
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
