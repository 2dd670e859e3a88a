import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { waitForHttp } from "../../scripts/wait-for-http.js";

/** Whether a process with this pid still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Pins `pid` to one CPU when `taskset` exists (the server on core 0, the load on core 1): every
 * thread it has (`-a`), not just the main one. Pinned after spawning, V8's garbage-collection
 * helpers and libuv's pool already exist; left free they ran on the load generator's core.
 */
export function pin(pid: number, cpu: number | string): void {
  try {
    execFileSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { stdio: "ignore" });
  } catch {
    // No taskset, or one core: measured unpinned.
  }
}

/**
 * Pins a PostgreSQL cluster (its postmaster, from `<data>/postmaster.pid`, and every process it
 * has started) to one CPU, or to a list (`"0,1"`: either core); the backends it forks later
 * inherit the postmaster's.
 */
export function pinCluster(dataDir: string, cpu: number | string): void {
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  if (!Number.isInteger(postmaster) || postmaster <= 0) return;
  pin(postmaster, cpu);
  let children: string[] = [];
  try {
    children = execFileSync("pgrep", ["-P", String(postmaster)], { encoding: "utf8" })
      .trim()
      .split("\n");
  } catch {
    // No children yet, or no pgrep: the postmaster's affinity reaches what it forks next.
  }
  for (const child of children) if (child) pin(Number(child), cpu);
}

export interface Running {
  pid: number;
  baseUrl: string;
  /** Everything the process printed on stdout so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` (the process that serves is the one started: no launcher in between),
 * pinned to core 0 unless told otherwise, and resolves once `baseUrl + readyPath` answers.
 */
export async function startNode(
  args: string[],
  options: {
    env?: Record<string, string>;
    port: number;
    readyPath?: string;
    /** The core to pin the process to (default 0); null leaves it unpinned. */
    cpu?: number | null;
    pollMs?: number;
  },
): Promise<Running> {
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, PORT: String(options.port), HOST: "127.0.0.1", LOG_LEVEL: "warn", ...options.env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const pid = child.pid ?? -1;
  if (options.cpu !== null) pin(pid, options.cpu ?? 0);
  const baseUrl = `http://127.0.0.1:${options.port}`;
  await waitForHttp(baseUrl + (options.readyPath ?? "/health"), 60_000, () => child.exitCode === null, options.pollMs);
  return {
    pid,
    baseUrl,
    output: () => out,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
      if (alive(pid)) throw new Error(`process ${pid} is still running after stop`);
    },
  };
}

let ticksPerSecond: number | undefined;
/** The clock ticks per second /proc counts CPU time in (`getconf CLK_TCK`, read once; 100 if it cannot be). */
function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" })) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/**
 * CPU milliseconds (user + system) of a `/proc/<pid>/stat` or `/proc/<pid>/task/<tid>/stat` line:
 * its fields 14 and 15, counted after the command's closing parenthesis.
 */
export function cpuMsOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond();
}

/** CPU milliseconds (user + system, every thread) a process has used so far, from /proc; NaN where it cannot tell. */
export function cpuMsOf(pid: number): number {
  try {
    return cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return NaN;
  }
}

/** Runs `run(i)` for i in [0, total) with `width` at once; answers the results in order. */
export async function pool<T>(total: number, width: number, run: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(total);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, total) }, async () => {
      while (next < total) {
        const i = next++;
        out[i] = await run(i);
      }
    }),
  );
  return out;
}

/**
 * Runs a section's child process (`command args`, this process's environment and `env`, its
 * stderr passed through) to its end, and answers the JSON of its one stdout line starting with
 * `marker` and a space. Throws, with everything it printed, when it exits non-zero or prints no
 * such line.
 */
export async function childResult<T>(
  command: string,
  args: string[],
  env: Record<string, string>,
  marker: string,
): Promise<T> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  const line = out.split("\n").find((l) => l.startsWith(`${marker} `));
  if (code !== 0 || !line) throw new Error(`${command} ${args.join(" ")}: exit ${code}\n${out}`);
  return JSON.parse(line.slice(marker.length + 1)) as T;
}
