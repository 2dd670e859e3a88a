// Packs the client like a release would, installs the tarball in a fresh project and proves that
// its types are real: a correct usage file type-checks, and a file with deliberate mistakes fails
// exactly on the marked lines (it would pass if the published types had collapsed to `any`).

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const clientDir = fileURLToPath(new URL("..", import.meta.url));

interface RunResult {
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

function run(command: string, args: string[], cwd: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] });
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

async function mustRun(command: string, args: string[], cwd: string): Promise<string> {
  const result = await run(command, args, cwd);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited with ${result.code} in ${cwd}:\n${result.output}`);
  }
  return result.output;
}

const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2022", "DOM"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
  },
};

const GOOD_FILE = `import {
  type ErrorBody,
  createPixClient,
  newIdempotencyKey,
  paginate,
  PixApiError,
  type Transaction,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from "@pix-charging/client";

const client = createPixClient({ apiKey: "svc_test_key", baseUrl: "http://127.0.0.1:9" });

export async function createCharge(): Promise<string | undefined> {
  const { data, error } = await client.POST("/api/v1/charges/pix", {
    params: { header: { "idempotency-key": newIdempotencyKey("order-1234") } },
    body: {
      amountCents: 8990,
      description: "Pedido #1234 - Camiseta azul",
      customer: {
        name: "Maria da Silva Santos",
        email: "maria.santos@example.com.br",
        phone: "11987654321",
        documentType: "CPF",
        document: "52998224725",
      },
      metadata: { orderId: "1234" },
    },
  });
  if (error) {
    const body: ErrorBody = error;
    throw new Error(body.code);
  }
  const copyPaste: string | undefined = data?.pix.copyPaste;
  return copyPaste;
}

export async function paidTotal(): Promise<number> {
  let total = 0;
  for await (const txn of paginate(client, "/api/v1/transactions", { query: { status: "PAID", limit: 100 } })) {
    const typed: Transaction = txn;
    total += typed.amountCents;
  }
  for await (const customer of paginate(client, "/api/v1/customers")) {
    total += customer.name?.length ?? 0;
  }
  return total;
}

export function onWebhook(rawBody: string, headers: Record<string, string | string[] | undefined>): string {
  try {
    const event: WebhookEvent = verifyWebhook(rawBody, headers, "whsec_c2VjcmV0", { toleranceSeconds: 300 });
    switch (event.type) {
      case "transaction.paid":
        return event.data.object.pix.copyPaste;
      default:
        return event.type;
    }
  } catch (error) {
    if (error instanceof WebhookVerificationError) return "rejected";
    if (error instanceof PixApiError) return error.code ?? String(error.status);
    throw error;
  }
}
`;

/** Each line ending in `// BAD` must be a type error; no other line may be. */
const BAD_FILE = `import { createPixClient, paginate, verifyWebhook } from "@pix-charging/client";

const client = createPixClient({ apiKey: "svc_test_key", baseUrl: "http://127.0.0.1:9" });
const customer = { name: "Maria", email: "m@example.com", phone: "11987654321", documentType: "CPF", document: "52998224725" } as const;

export async function mistakes(): Promise<void> {
  const { data } = await client.POST("/api/v1/charges/pix", { body: { amountCents: "8990", description: "Pedido", customer } }); // BAD
  const asNumber: number | undefined = data?.pix.copyPaste; // BAD
  await client.POST("/api/v1/charges/pix", { body: { amountCents: 8990, description: "Pedido" } }); // BAD
  await client.GET("/api/v1/not-a-route"); // BAD
  for await (const txn of paginate(client, "/api/v1/transactions")) {
    const status: number = txn.status; // BAD
    console.log(status, asNumber);
  }
  paginate(client, "/api/v1/balance"); // BAD
  paginate(client, "/api/v1/transactions", { query: { status: 42 } }); // BAD
  const event = verifyWebhook("{}", {}, "whsec_c2VjcmV0");
  const id: number = event.id; // BAD
  if (event.type === "no.such.event") console.log(id); // BAD
  createPixClient({ apiKey: 123, baseUrl: "http://127.0.0.1:9" }); // BAD
}
`;

const RUNTIME_CHECK = `
import * as pix from "@pix-charging/client";
import { Webhook } from "standardwebhooks";
const secret = "whsec_" + Buffer.from("packaging test secret").toString("base64");
const body = JSON.stringify({ id: "evt_1", type: "withdrawal.paid" });
const at = new Date();
const headers = { "webhook-id": "evt_1", "webhook-timestamp": String(Math.floor(at / 1000)), "webhook-signature": new Webhook(secret).sign("evt_1", at, body) };
const event = pix.verifyWebhook(body, headers, secret);
const client = pix.createPixClient({ apiKey: "svc_test_key", baseUrl: "http://127.0.0.1:9" });
console.log(JSON.stringify({
  exports: Object.keys(pix).sort(),
  eventType: event.type,
  key: pix.newIdempotencyKey("k"),
  hasGet: typeof client.GET,
}));
`;

describe("packaging", () => {
  const workDir = mkdtempSync(join(tmpdir(), "pix-client-pack-"));
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it("packs, installs in a fresh project, runs, and type-checks with real types", { timeout: 240_000 }, async () => {
    // 1. npm pack (prepack runs the build).
    const packDir = join(workDir, "pack");
    mkdirSync(packDir);
    await mustRun("npm", ["pack", "--pack-destination", packDir], clientDir);
    const tarballName = readdirSync(packDir).find((name) => name.endsWith(".tgz"));
    expect(tarballName).toBe("pix-charging-client-1.0.0.tgz");
    const tarball = join(packDir, tarballName ?? "");

    const listing = (await mustRun("tar", ["-tzf", tarball], workDir)).split("\n").filter(Boolean);
    expect(listing).toEqual(
      expect.arrayContaining([
        "package/package.json",
        "package/dist/client/src/index.js",
        "package/dist/client/src/index.d.ts",
        "package/dist/generated/api.d.ts",
      ]),
    );
    expect(listing.filter((file) => /\/(src|test|scripts)\/[^/]+\.ts$/.test(file) && !file.endsWith(".d.ts"))).toEqual(
      [],
    );

    // 2. A fresh project with the tarball and TypeScript (offline from the npm cache if possible).
    const appDir = join(workDir, "app");
    mkdirSync(appDir);
    await mustRun("npm", ["init", "-y"], appDir);
    const installArgs = ["install", "--no-audit", "--no-fund", tarball, "typescript@5.9.3"];
    const offline = await run("npm", [...installArgs, "--offline"], appDir);
    if (offline.code !== 0) await mustRun("npm", installArgs, appDir);

    // 3. It runs: the ESM entry, its dependencies and a webhook round trip.
    writeFileSync(join(appDir, "runtime-check.mjs"), RUNTIME_CHECK);
    const runtime = JSON.parse((await mustRun(process.execPath, ["runtime-check.mjs"], appDir)).trim()) as {
      exports: string[];
      eventType: string;
      key: string;
      hasGet: string;
    };
    expect(runtime.exports).toEqual(
      expect.arrayContaining([
        "PixApiError",
        "WebhookVerificationError",
        "createPixClient",
        "newIdempotencyKey",
        "paginate",
        "verifyWebhook",
      ]),
    );
    expect(runtime.eventType).toBe("withdrawal.paid");
    expect(runtime.key).toMatch(/^k_[0-9a-f-]{36}$/);
    expect(runtime.hasGet).toBe("function");

    // 4. Types: the good file passes, the bad one fails on every marked line and only there.
    const tsc = join(appDir, "node_modules", "typescript", "bin", "tsc");
    writeFileSync(join(appDir, "good.ts"), GOOD_FILE);
    writeFileSync(join(appDir, "bad.ts"), BAD_FILE);
    writeFileSync(
      join(appDir, "tsconfig.good.json"),
      JSON.stringify({ ...CONSUMER_TSCONFIG, files: ["good.ts"] }, null, 2),
    );
    writeFileSync(
      join(appDir, "tsconfig.bad.json"),
      JSON.stringify({ ...CONSUMER_TSCONFIG, files: ["bad.ts"] }, null, 2),
    );

    const good = await run(process.execPath, [tsc, "-p", "tsconfig.good.json", "--pretty", "false"], appDir);
    expect(good.output).toBe("");
    expect(good.code).toBe(0);

    const bad = await run(process.execPath, [tsc, "-p", "tsconfig.bad.json", "--pretty", "false"], appDir);
    expect(bad.code).not.toBe(0);
    const errorLines = new Set(
      [...bad.output.matchAll(/^(.+?)\((\d+),\d+\): error TS\d+/gm)].map((match) => `${match[1]}:${match[2]}`),
    );
    const expectedLines = new Set(
      BAD_FILE.split("\n").flatMap((line, index) => (line.endsWith("// BAD") ? [`bad.ts:${index + 1}`] : [])),
    );
    expect(expectedLines.size).toBe(10);
    expect([...errorLines].sort(), bad.output).toEqual([...expectedLines].sort());
  });
});
