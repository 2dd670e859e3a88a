import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { waitForHttp } from "./wait-for-http.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

export interface RunningPrism {
  baseUrl: string;
  /** The Prism process itself. */
  pid: number;
  stop(): Promise<void>;
}

/** Starts `prism mock` on 127.0.0.1 and resolves once it answers HTTP. */
export async function startPrism(options: {
  port: number;
  document: string;
  inheritOutput?: boolean;
}): Promise<RunningPrism> {
  const cli = join(dirname(require.resolve("@stoplight/prism-cli/package.json")), "dist/index.js");
  const child: ChildProcess = spawn(
    process.execPath,
    [cli, "mock", join(root, options.document), "-h", "127.0.0.1", "-p", String(options.port)],
    { cwd: root, stdio: options.inheritOutput ? "inherit" : "ignore" },
  );
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  const baseUrl = `http://127.0.0.1:${options.port}`;
  try {
    await waitForHttp(`${baseUrl}/api/v1`, 60_000, () => !exited);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    baseUrl,
    pid: child.pid ?? -1,
    stop: () =>
      new Promise((done) => {
        if (exited) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 3000).unref();
      }),
  };
}
