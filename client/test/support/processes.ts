// Runs a command of a test (npm, node, tsc) and collects its output, with npm's own environment
// removed so a nested npm acts as if started from a terminal.

import { spawn } from "node:child_process";

export interface RunResult {
  code: number | null;
  output: string;
}

/**
 * The environment for nested npm: without the npm_* variables of an enclosing `npm run`/`npm test`
 * (its prefix, workspace and package settings would leak into the temp project), but keeping the
 * cache, registry and user config.
 */
function childEnv(): NodeJS.ProcessEnv {
  const keep = new Set(["npm_config_cache", "npm_config_registry", "npm_config_userconfig"]);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) && !keep.has(key.toLowerCase())) continue;
    if (key === "INIT_CWD") continue;
    env[key] = value;
  }
  return env;
}

export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...childEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

export async function mustRun(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<string> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited with ${result.code} in ${cwd}:\n${result.output}`);
  }
  return result.output;
}
