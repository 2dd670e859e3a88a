import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";

/** The environment variable that marks every process started by this test run. */
export const testRunMarker = "PIX_TEST_RUN";

interface Leftover {
  pid: number;
  command: string;
}

/** Processes of this run (they carry the marker) that run project code, other than vitest itself. */
async function leftovers(marker: string): Promise<Leftover[]> {
  const found: Leftover[] = [];
  for (const entry of await readdir("/proc").catch(() => [] as string[])) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = await readFile(`/proc/${pid}/environ`, "utf8");
      if (!environ.split("\0").includes(`${testRunMarker}=${marker}`)) continue;
      const command = (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").join(" ").trim();
      if (/vitest/.test(command) || !/server\/src|scripts\//.test(command)) continue;
      found.push({ pid, command });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * Global setup of the projects that start processes: marks the run (children inherit the marker through the
 * environment), and at the end fails the run when a process it started still runs project code
 * (a test that killed a launcher and orphaned the real worker, a server never stopped). The
 * leftovers are killed, so the failure leaves nothing behind. Linux only (/proc); elsewhere a no-op.
 */
export default function setup() {
  // One marker for the run, whichever project's setup comes first (vitest.config.ts gives it to
  // every project that starts processes).
  const marker = (process.env[testRunMarker] ??= randomBytes(8).toString("hex"));
  return async () => {
    let left = await leftovers(marker);
    // A process told to stop at the very end of a test may take a moment to go.
    for (let i = 0; i < 50 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = await leftovers(marker);
    }
    if (left.length === 0) return;
    for (const { pid } of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    // vitest reports an error thrown here but still exits 0: make the run fail.
    process.exitCode = 1;
    throw new Error(
      `child processes outlived the tests (killed now):\n${left.map((l) => `  ${l.pid} ${l.command}`).join("\n")}`,
    );
  };
}
