import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { runCli } from "../../src/cli/cli.js";
import { loadConfig } from "../../src/config.js";
import { startTestServer, type TestServer, testAdminToken } from "../harness.js";
import { expectStatus } from "../support/client.js";
import { signedUp } from "../support/dashboard.js";

// The README's commands are run as written by newcomers: an address in them that cannot work (a
// `.example` host never resolves, and webhook endpoints must resolve) is a defect of the README.

// The examples live in the README and the pages of docs/ (the operator's in docs/operator-and-cli.md).
const docs = join(process.cwd(), "docs");
const readme = [
  "README.md",
  ...readdirSync(docs)
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name)),
]
  .map((file) => readFileSync(join(process.cwd(), file), "utf8"))
  .join("\n");
/** Every fenced `sh` block of the README and the docs pages. */
const shellBlocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");

let server: TestServer;
beforeAll(async () => {
  // As a plain `npm start` runs it, which the README says is enough for this example: outside
  // production, test-mode endpoints may be on loopback by default.
  expect(readme).not.toContain("PIX_ALLOW_LOCAL_WEBHOOKS=1");
  server = await startTestServer({ allowLocalWebhooks: loadConfig({}).allowLocalWebhooks });
});
afterAll(() => server.close());

/** Runs the CLI in-process against the test server, capturing what it prints. */
async function cli(args: string[]) {
  const out: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((m: unknown) => void out.push(String(m)));
  const error = vi.spyOn(console, "error").mockImplementation((m: unknown) => void out.push(String(m)));
  try {
    const code = await runCli(["--server", server.baseUrl, "--token", testAdminToken, ...args]);
    return { code, output: out.join("\n") };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe("the README's example commands", () => {
  test("when a shell example names a URL, then it is on this machine, where the examples run", () => {
    const urls = shellBlocks.flatMap((block) => [...block.matchAll(/https?:\/\/[^\s'"`);]+/g)].map((m) => m[0]));
    expect(urls.length).toBeGreaterThan(5);
    const elsewhere = urls.filter((url) => !["127.0.0.1", "localhost"].includes(new URL(url).hostname));
    expect(elsewhere).toEqual([]);
  });

  test("when the operator example `webhooks create` runs as written, then the endpoint is registered", async () => {
    // Arrange
    const lines = shellBlocks
      .flatMap((block) => block.split("\n"))
      .filter((l) => l.includes("admin -- webhooks create"));
    expect(lines).toHaveLength(1);
    const words = (lines[0] ?? "")
      .replace(/\s#.*$/, "")
      .trim()
      .split(/\s+/);
    expect(words.slice(0, 4)).toEqual(["npm", "run", "admin", "--"]);
    const { account } = await server.newAccount();
    const args = words.slice(4).map((word) => (word === "acc_…" ? account.id : word));
    expect(args).toContain(account.id);

    // Act
    const created = await cli(args);

    // Assert
    expect(created.output).toMatch(/whsec_/);
    expect(created.code).toBe(0);
    const listed = await cli(["--json", "webhooks", "list", account.id]);
    const page = JSON.parse(listed.output) as { data: { url: string; mode: string }[] };
    expect(page.data.map((endpoint) => [endpoint.mode, endpoint.url])).toEqual([
      ["test", "http://127.0.0.1:4000/webhook"],
    ]);
  });

  test.each([
    { command: "verify", status: "verified" },
    { command: "reject-verification", status: "rejected" },
  ])(
    "when the operator example `accounts $command` runs as written on a merchant's first request, then the request is $status",
    async ({ command, status }) => {
      // Arrange
      const lines = shellBlocks
        .flatMap((block) => block.split("\n"))
        .filter((l) => l.includes(`admin -- accounts ${command} `));
      expect(lines).toHaveLength(1);
      const words = [...(lines[0] ?? "").replace(/\s#.*$/, "").matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
      expect(words.slice(0, 4)).toEqual(["npm", "run", "admin", "--"]);
      const { browser, session } = await signedUp(server);
      expectStatus(
        await browser.api.POST("/dashboard/v1/account/verification", {
          body: { legalName: "Loja Exemplo Comércio Ltda", document: "11.222.333/0001-81" },
        }),
        201,
      );
      const args = words.slice(4).map((word) => (word === "acc_…" ? session.account.id : (word ?? "")));
      expect(args).toContain(session.account.id);

      // Act
      const decided = await cli(args);

      // Assert
      expect(decided.code, decided.output).toBe(0);
      const request = await cli(["--json", "accounts", "verification-request", session.account.id]);
      expect(JSON.parse(request.output)).toMatchObject({ version: 1, status });
    },
  );
});
