import { spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, test } from "vitest";
import { call, tokenFor } from "./client.js";

// `npm run bank`: the CLI starts the bank, writes the certificate files outside the repository,
// prints what the operator needs, and stops on SIGTERM.

const root = fileURLToPath(new URL("../..", import.meta.url));
const stateDir = mkdtempSync(join(tmpdir(), "fake-bank-cli-"));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

/** `npm run bank` with `args`, from the repository's root, its output piped. */
const startCli = (args: string[]) =>
  spawn(process.execPath, ["--import", "tsx", "fake-bank/src/main.ts", ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });

test("when the CLI starts, then it prints the connection, writes its files, serves them, and stops on SIGTERM", async () => {
  const child = startCli(["--port", "0", "--control-port", "0", "--key", "cli@example.com", "--state-dir", stateDir]);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  try {
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const deadline = Date.now() + 30_000;
    while (!output.includes("Ctrl+C") && Date.now() < deadline && child.exitCode === null)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(output).toContain("chave Pix            cli@example.com");
    const credentials = JSON.parse(readFileSync(join(stateDir, "credentials.json"), "utf8"));
    expect(output).toContain(credentials.baseUrl);
    expect(output).toContain(credentials.clientSecret);
    for (const file of [credentials.certificate, credentials.privateKey, credentials.pkcs12, credentials.bankCa])
      expect(existsSync(file)).toBe(true);
    // The two commands it prints: the service with its callback listener's certificate (issued for
    // localhost by a CA the bank trusts), and the operator's connection with the secret in a file.
    expect(output).toContain(`PIX_BANK_WEBHOOK_CERT_FILE=${credentials.listenerCertificate}`);
    expect(output).toContain(`--client-secret-file ${join(stateDir, "client-secret.txt")}`);
    expect(readFileSync(join(stateDir, "client-secret.txt"), "utf8").trim()).toBe(credentials.clientSecret);
    expect(new X509Certificate(readFileSync(credentials.listenerCertificate)).checkHost("localhost")).toBe("localhost");
    const ca = readFileSync(credentials.bankCa, "utf8");
    const identity = {
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      certPem: readFileSync(credentials.certificate, "utf8"),
      keyPem: readFileSync(credentials.privateKey, "utf8"),
    };
    const token = await tokenFor(credentials.tokenUrl, ca, identity);
    const answer = await call(`${credentials.baseUrl}/webhook/cli@example.com`, { ca, identity, token });
    expect(answer.status).toBe(404);
  } finally {
    child.kill("SIGTERM");
  }
  expect(await exited).toBe(0);
});

test("when the CLI is given a value it does not accept, then it says so in Portuguese, lists the accepted ones, and starts nothing", async () => {
  const child = startCli(["--callback-connections", "nenhuma", "--port", "0", "--control-port", "0"]);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const code = await new Promise<number | null>((resolve) => child.once("exit", (exit) => resolve(exit)));
  expect(code).toBe(1);
  expect(stderr.trim()).toBe(
    "erro: valor 'nenhuma' inválido para a opção '--callback-connections <modo>'. Valores aceitos: kept, new.",
  );
  expect(stdout).toBe("");
});
