// Packs the client like a release would and installs the tarball in a fresh project. There, one
// usage file is compiled as CommonJS (with the tsconfig `tsc --init` writes, and with a classic
// `module: commonjs` one) and as an ES module (NodeNext), and each build is run against a local
// server: `require` and `import` both load the package, with types. The types are proven real: a
// correct file type-checks, and a file with deliberate mistakes fails exactly on the marked lines
// (it would pass if the published types had collapsed to `any`).

import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mustRun, run, type RunResult } from "./support/processes.js";
import { type PlannedAnswer, type ScriptedServer, startScriptedServer } from "./support/scripted-server.js";

const clientDir = fileURLToPath(new URL("..", import.meta.url));

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
const BAD_FILE = `import { createPixClient, paginate, signWebhookForTest, verifyWebhook } from "@pix-charging/client";

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
  createPixClient({ apiKey: "svc_test_key", baseUrl: "http://127.0.0.1:9", maxRetries: "2" }); // BAD
  const throwing = createPixClient({ apiKey: "svc_test_key", baseUrl: "http://127.0.0.1:9", throwOnError: true });
  const balance = await throwing.GET("/api/v1/balance");
  const available: string = balance.data.availableCents; // BAD
  console.log(available, balance.error); // BAD
  signWebhookForTest({ payload: "{}", secret: 42 }); // BAD
}
`;

/**
 * One usage file for both module systems: only its first line differs. It runs against the local
 * server of the test (retry, throwOnError, a create) and signs and verifies a webhook, then prints
 * one JSON line.
 */
function usageFile(importLine: string): string {
  return `${importLine}

declare const process: { env: Record<string, string | undefined>; exitCode?: number };

const baseUrl = process.env["PIX_BASE_URL"] ?? "";
const secret = "whsec_cGFja2FnaW5nIHRlc3Qgc2VjcmV0LCAzMiBieXRlcyE=";

async function main(): Promise<string> {
  const client = pix.createPixClient({ apiKey: "svc_test_key", baseUrl, retryBackoff: { initialDelayMs: 1, maxDelayMs: 1 } });
  const { data, error } = await client.GET("/api/v1/balance");
  if (error) throw new Error(error.code);
  const balance: pix.Balance = data;

  const created = await client.POST("/api/v1/charges/pix", {
    body: {
      amountCents: 8990,
      description: "Pedido #1234",
      customer: { name: "Maria da Silva", email: "maria@example.com.br", phone: "11987654321", documentType: "CPF", document: "52998224725" },
    },
  });

  const throwing = pix.createPixClient({ apiKey: "svc_test_key", baseUrl, throwOnError: true, maxRetries: 0 });
  let thrown = "";
  try {
    await throwing.GET("/api/v1/transactions/{id}", { params: { path: { id: "txn_missing" } } });
  } catch (caught) {
    if (!(caught instanceof pix.PixApiError)) throw caught;
    thrown = [caught.status, caught.code, caught.requestId].join(" ");
  }

  const signed = pix.signWebhookForTest({ payload: { id: "evt_1", type: "withdrawal.paid" }, secret });
  const event: pix.WebhookEvent = pix.verifyWebhook(signed.body, signed.headers, secret);
  let tampered = "accepted";
  try {
    pix.verifyWebhook(signed.body.replace("evt_1", "evt_2"), signed.headers, secret);
  } catch (caught) {
    if (caught instanceof pix.WebhookVerificationError) tampered = "rejected";
  }

  return JSON.stringify({
    exports: Object.keys(pix).sort(),
    available: balance.availableCents,
    createdStatus: created.response.status,
    thrown,
    eventType: event.type,
    tampered,
    key: pix.newIdempotencyKey("k"),
  });
}

main().then(
  (line) => console.log(line),
  (failure: unknown) => {
    console.error(failure);
    process.exitCode = 1;
  },
);
`;
}

/** What the usage file prints. */
interface UsageOutput {
  exports: string[];
  available: number;
  createdStatus: number;
  thrown: string;
  eventType: string;
  tampered: string;
  key: string;
}

/** The answers the local server gives one run of the usage file, in order. */
const USAGE_SCRIPT: PlannedAnswer[] = [
  {
    status: 503,
    headers: { "retry-after": "0" },
    body: { ok: false, code: "INTERNAL_ERROR", message: "Indisponível." },
  },
  { status: 200, body: { availableCents: 12345 } },
  { status: 201, body: { id: "txn_1" } },
  {
    status: 404,
    headers: { "x-request-id": "req_404" },
    body: { ok: false, code: "NOT_FOUND", message: "Não encontrado.", path: "/api/v1/transactions/txn_missing" },
  },
];

describe("packaging", () => {
  const workDir = mkdtempSync(join(tmpdir(), "pix-client-pack-"));
  let server: ScriptedServer;

  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(async () => {
    await server.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it(
    "packs, installs in a fresh project, runs with require and import, and type-checks with real types",
    { timeout: 240_000 },
    async () => {
      // 1. npm pack (its prepack runs the build).
      const packDir = join(workDir, "pack");
      mkdirSync(packDir);
      await mustRun("npm", ["pack", "--pack-destination", packDir], clientDir);
      const tarballName = readdirSync(packDir).find((name) => name.endsWith(".tgz"));
      expect(tarballName).toBe("pix-charging-client-1.0.0.tgz");
      const tarball = join(packDir, tarballName ?? "");

      const listing = (await mustRun("tar", ["-tzf", tarball], workDir)).split("\n").filter(Boolean);
      expect(listing).toEqual(
        expect.arrayContaining(
          ["package/package.json", "README.md"]
            .concat(
              ["esm", "cjs"].flatMap((format) => [
                `dist/${format}/package.json`,
                `dist/${format}/client/src/index.js`,
                `dist/${format}/client/src/index.d.ts`,
                `dist/${format}/generated/api.d.ts`,
                `dist/${format}/generated/rules.js`,
              ]),
            )
            .map((file) => (file.startsWith("package/") ? file : `package/${file}`)),
        ),
      );
      expect(
        listing.filter((file) => /\/(src|test|scripts)\/[^/]+\.ts$/.test(file) && !file.endsWith(".d.ts")),
      ).toEqual([]);

      // 2. A fresh project with the tarball and TypeScript (offline from the npm cache if possible).
      const appDir = join(workDir, "app");
      mkdirSync(appDir);
      await mustRun("npm", ["init", "-y"], appDir);
      const installArgs = ["install", "--no-audit", "--no-fund", tarball, "typescript@5.9.3"];
      const offline = await run("npm", [...installArgs, "--offline"], appDir);
      const installOutput = offline.code === 0 ? offline.output : await mustRun("npm", installArgs, appDir);
      // No install-time script a partner would be asked about (npm 11 warns of them as install-scripts).
      const packed = JSON.parse(await mustRun("tar", ["-xzOf", tarball, "package/package.json"], workDir)) as {
        scripts?: Record<string, string>;
      };
      const installTime = ["preinstall", "install", "postinstall", "prepare", "preprepare", "postprepare"];
      expect(Object.keys(packed.scripts ?? {}).filter((name) => installTime.includes(name))).toEqual([]);
      expect(installOutput).not.toMatch(/install[- ]scripts?|prepare/i);
      const tsc = join(appDir, "node_modules", "typescript", "bin", "tsc");

      // 3. require() gets the CommonJS build and import the ES module build.
      const required = await mustRun(process.execPath, ["-p", 'require.resolve("@pix-charging/client")'], appDir);
      expect(required.trim()).toMatch(/[\\/]dist[\\/]cjs[\\/]client[\\/]src[\\/]index\.js$/);
      const imported = await mustRun(
        process.execPath,
        ["--input-type=module", "-e", 'console.log(import.meta.resolve("@pix-charging/client"))'],
        appDir,
      );
      expect(imported.trim()).toMatch(/\/dist\/esm\/client\/src\/index\.js$/);

      // 4. The usage file, compiled three ways and run against the local server.
      const cjsDir = join(appDir, "cjs");
      mkdirSync(cjsDir);
      writeFileSync(join(cjsDir, "package.json"), JSON.stringify({ type: "commonjs" }));
      writeFileSync(join(cjsDir, "usage.ts"), usageFile('import pix = require("@pix-charging/client");'));
      await mustRun(process.execPath, [tsc, "--init"], cjsDir);
      const classicDir = join(appDir, "cjs-classic");
      mkdirSync(classicDir);
      writeFileSync(join(classicDir, "package.json"), JSON.stringify({ type: "commonjs" }));
      writeFileSync(join(classicDir, "usage.ts"), usageFile('import * as pix from "@pix-charging/client";'));
      writeFileSync(
        join(classicDir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "es2016",
            module: "commonjs",
            esModuleInterop: true,
            strict: true,
            skipLibCheck: true,
            outDir: "classic",
          },
          files: ["usage.ts"],
        }),
      );
      const esmDir = join(appDir, "esm");
      mkdirSync(esmDir);
      writeFileSync(join(esmDir, "package.json"), JSON.stringify({ type: "module" }));
      writeFileSync(join(esmDir, "usage.ts"), usageFile('import * as pix from "@pix-charging/client";'));
      // The type files of step 5 are compiled with the usage file: the same options (the consumer's,
      // emitting), so their check is this build's and two tsc processes fewer. The bad file's errors
      // are this build's only output (tsc still emits; the usage file and the good one must have none).
      writeFileSync(
        join(esmDir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: { ...CONSUMER_TSCONFIG.compilerOptions, noEmit: false, outDir: "out" },
          files: ["usage.ts", "good.ts", "bad.ts"],
        }),
      );

      const builds = [
        { name: "CommonJS, tsc --init", dir: cjsDir, tsconfig: "tsconfig.json", output: "usage.js" },
        {
          name: "CommonJS, module commonjs",
          dir: classicDir,
          tsconfig: "tsconfig.json",
          output: "classic/usage.js",
        },
        { name: "ES module, NodeNext", dir: esmDir, tsconfig: "tsconfig.json", output: "out/usage.js" },
      ];
      // The type files of step 5, written now: the three compiles run at once (each is one process
      // on one core, about 4 s of CPU; one after another they were most of this file's time).
      writeFileSync(join(esmDir, "good.ts"), GOOD_FILE);
      writeFileSync(join(esmDir, "bad.ts"), BAD_FILE);
      const compile = (dir: string, tsconfig: string) =>
        run(process.execPath, [tsc, "-p", tsconfig, "--pretty", "false"], dir);
      const buildsCompiled = await Promise.all(builds.map((build) => compile(build.dir, build.tsconfig)));
      const withTypeFiles = buildsCompiled[2] as RunResult;

      const outputs: UsageOutput[] = [];
      for (const [i, build] of builds.entries()) {
        const compiled = buildsCompiled[i] as RunResult;
        if (compiled !== withTypeFiles) {
          expect(compiled.output, build.name).toBe("");
          expect(compiled.code, build.name).toBe(0);
        }

        server.plan(USAGE_SCRIPT);
        const printed = await mustRun(process.execPath, [build.output], build.dir, { PIX_BASE_URL: server.baseUrl });
        outputs.push(JSON.parse(printed.trim()) as UsageOutput);
        expect(
          server.received.map((r) => `${r.method} ${r.path}`),
          build.name,
        ).toEqual([
          "GET /api/v1/balance",
          "GET /api/v1/balance",
          "POST /api/v1/charges/pix",
          "GET /api/v1/transactions/txn_missing",
        ]);
        expect(server.received.every((r) => r.headers["x-api-key"] === "svc_test_key")).toBe(true);
        expect(server.received[2]?.headers["idempotency-key"], build.name).toMatch(/^[0-9a-f-]{36}$/);
      }
      for (const output of outputs) {
        expect(output).toEqual({
          exports: outputs[2]?.exports,
          available: 12345,
          createdStatus: 201,
          thrown: "404 NOT_FOUND req_404",
          eventType: "withdrawal.paid",
          tampered: "rejected",
          key: expect.stringMatching(/^k_[0-9a-f-]{36}$/),
        });
      }
      expect(outputs[0]?.exports).toEqual(
        expect.arrayContaining([
          "PixApiError",
          "WebhookVerificationError",
          "createPixClient",
          "newIdempotencyKey",
          "paginate",
          "signWebhookForTest",
          "verifyWebhook",
        ]),
      );

      // 5. Types: the usage file and the good file pass, the bad one fails on every marked line and
      // only there (every diagnostic of the ES module build is one of these errors).
      expect(withTypeFiles.code).not.toBe(0);
      // Lines that do not begin a diagnostic (indented) continue the one above.
      const diagnostics = withTypeFiles.output.split("\n").filter((line) => line.trim() !== "" && !/^\s/.test(line));
      expect(
        diagnostics.filter((line) => !/^bad\.ts\(\d+,\d+\): error TS\d+/.test(line)),
        withTypeFiles.output,
      ).toEqual([]);
      const errorLines = new Set(
        [...withTypeFiles.output.matchAll(/^(.+?)\((\d+),\d+\): error TS\d+/gm)].map(
          (match) => `${match[1]}:${match[2]}`,
        ),
      );
      const expectedLines = new Set(
        BAD_FILE.split("\n").flatMap((line, index) => (line.endsWith("// BAD") ? [`bad.ts:${index + 1}`] : [])),
      );
      expect(expectedLines.size).toBe(14);
      expect([...errorLines].sort(), withTypeFiles.output).toEqual([...expectedLines].sort());
    },
  );
});
