// The README's webhook receiver, run as a newcomer runs it. A copy of the repository's workspace
// layout (a root whose workspace is `client/`, the client's sources and build script, the generated
// API types and rules) is installed with npm, as `npm ci` installs the repository: that alone must build the
// client, since nobody runs its build by hand. Then the README's snippet, saved as `receiver.mjs`
// at that root, must answer 204 to a signed delivery and 400 to a bad one, and stay up.

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { signWebhookForTest } from "../src/index.js";
import { mustRun, run } from "./support/processes.js";
import { freePort } from "../../scripts/pg-cluster.js";

const clientDir = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = join(clientDir, "..");
const secret = "whsec_cmVjZWl2ZXIgb2YgdGhlIFJFQURNRSwgMzIgYnl0ZXMh";

/** The docs' receiver (docs/webhooks.md): its one `js` block that calls verifyWebhook. */
function readmeReceiver(): string {
  const readme = readFileSync(join(repoRoot, "docs/webhooks.md"), "utf8");
  const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? "")
    .filter((block) => block.includes("verifyWebhook("));
  expect(blocks).toHaveLength(1);
  return blocks[0] ?? "";
}

/** A root like the repository's: `client/` as its workspace, with what the client's build reads. */
function workspaceCopy(dir: string): void {
  const rootPackage = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
    scripts: Record<string, string>;
  };
  const devDependencies = Object.fromEntries(
    ["typescript", "@types/node"].map((name) => [name, rootPackage.devDependencies[name]]),
  );
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({
      name: "workspace-copy",
      private: true,
      type: "module",
      workspaces: ["client"],
      // The root's `prepare` builds the client on install (the client itself has no install script).
      scripts: { prepare: rootPackage.scripts.prepare },
      devDependencies,
    }),
  );
  for (const entry of [
    "package.json",
    "scripts",
    "src",
    "tsconfig.json",
    "tsconfig.build.json",
    "tsconfig.build.cjs.json",
  ])
    cpSync(join(clientDir, entry), join(dir, "client", entry), { recursive: true });
  mkdirSync(join(dir, "generated"));
  for (const file of ["api.d.ts", "dashboard-api.d.ts", "rules.ts"]) {
    cpSync(join(repoRoot, "generated", file), join(dir, "generated", file));
  }
}

describe("the README's webhook receiver", () => {
  const workDir = mkdtempSync(join(tmpdir(), "pix-readme-receiver-"));
  let receiver: ChildProcess | undefined;
  afterAll(async () => {
    if (receiver && receiver.exitCode === null && receiver.signalCode === null) {
      receiver.kill("SIGKILL");
      await once(receiver, "exit");
    }
    rmSync(workDir, { recursive: true, force: true });
  });

  it(
    "when the workspace is installed, then the snippet runs as written: 204 signed, 400 unsigned or changed",
    {
      timeout: 180_000,
    },
    async () => {
      // Arrange: install as `npm ci` does (offline from the npm cache when it can).
      workspaceCopy(workDir);
      const installArgs = ["install", "--no-audit", "--no-fund"];
      const offline = await run("npm", [...installArgs, "--offline"], workDir);
      if (offline.code !== 0) await mustRun("npm", installArgs, workDir);
      expect(existsSync(join(workDir, "client", "dist", "esm", "client", "src", "index.js"))).toBe(true);

      const port = await freePort();
      const snippet = readmeReceiver();
      const onPort = snippet.replace(/\.listen\(4000\b/, `.listen(${port}`);
      expect(onPort).not.toBe(snippet);
      writeFileSync(join(workDir, "receiver.mjs"), onPort);
      const started = spawn(process.execPath, ["receiver.mjs"], {
        cwd: workDir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, WHSEC: secret },
        stdio: ["ignore", "pipe", "pipe"],
      });
      receiver = started;
      let output = "";
      started.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
      started.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));

      const url = `http://127.0.0.1:${port}/webhook`;
      const post = (body: string, headers: Record<string, string> = {}) =>
        fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
      const deadline = Date.now() + 15_000;
      for (;;) {
        if (started.exitCode !== null) throw new Error(`receiver.mjs exited with ${started.exitCode}:\n${output}`);
        const answered = await post("{}").then(
          () => true,
          () => false, // not listening yet
        );
        if (answered) break;
        if (Date.now() > deadline) throw new Error(`receiver.mjs did not listen on ${port}:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }

      // Act
      const event = { id: "evt_readme_1", type: "transaction.paid", data: { object: { id: "txn_readme_1" } } };
      const signed = signWebhookForTest({ payload: event, secret });
      const statuses = {
        signed: (await post(signed.body, signed.headers)).status,
        unsigned: (await post(signed.body)).status,
        changed: (await post(signed.body.replace("txn_readme_1", "txn_readme_2"), signed.headers)).status,
        signedAgain: (await post(signed.body, signed.headers)).status,
      };

      // Assert
      expect(statuses, output).toEqual({ signed: 204, unsigned: 400, changed: 400, signedAgain: 204 });
      expect(started.exitCode, output).toBeNull();
      expect(output).toContain("transaction.paid txn_readme_1");
    },
  );
});
