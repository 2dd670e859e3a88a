/**
 * Rebuilds everything in `generated/` from the TypeSpec in `spec/`:
 *
 *   spec/main.tsp ──tsp──▶ openapi.yaml ──openapi-typescript──▶ api.d.ts
 *                                      └──this file──────────▶ operations.ts
 *
 * `operations.ts` is the handler contract: for every operationId its method, Express path and
 * permission (from `x-permission`), and a typed request/response pair built on `api.d.ts`. The
 * server implements `Handlers`, so a route added to the spec without a handler fails `tsc`.
 *
 * Usage: `tsx scripts/generate.ts [--out DIR]` (default `generated/`). `check-generated.ts`
 * calls it with a temporary folder and compares.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { parse } from "yaml";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/**
 * The documents we emit. One TypeSpec program holds both services; the emitter writes one file
 * per service (`{service-name-if-multiple}.openapi.yaml`).
 */
export const documents = [
  {
    name: "public",
    emitted: "PixService.openapi.yaml",
    openapi: "openapi.yaml",
    types: "api.d.ts",
    operations: "operations.ts",
    /** Every public operation must declare its key permission. */
    permissions: true,
  },
  {
    name: "admin",
    emitted: "PixAdmin.openapi.yaml",
    openapi: "admin-openapi.yaml",
    types: "admin-api.d.ts",
    operations: "admin-operations.ts",
    /** Operator routes are all behind the one ADMIN_TOKEN. */
    permissions: false,
  },
] as const;

const httpMethods = ["get", "post", "put", "patch", "delete"] as const;
type HttpMethod = (typeof httpMethods)[number];

interface OpenApiParameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  $ref?: string;
}
interface OpenApiResponse {
  headers?: Record<string, { required?: boolean; schema?: { type?: string } }>;
  content?: Record<string, unknown>;
}
interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, unknown> };
  responses?: Record<string, OpenApiResponse>;
  "x-permission"?: string;
  security?: unknown[];
}
interface OpenApiDocument {
  paths: Record<string, Partial<Record<HttpMethod, OpenApiOperation>>>;
  components?: { parameters?: Record<string, OpenApiParameter> };
}

/** One operation, as the generator needs it. */
export interface OperationInfo {
  operationId: string;
  method: HttpMethod;
  path: string;
  expressPath: string;
  permission: string;
  summary: string;
  tag: string;
  hasPath: boolean;
  hasQuery: boolean;
  hasHeaders: boolean;
  hasBody: boolean;
  responses: { status: number; hasBody: boolean; headers: { name: string; required: boolean; tsType: string }[] }[];
}

/**
 * An operation without a key (`@useAuth(NoAuth)`: `security: [{}]`, the probes /health and
 * /ready): documented, but served by the app itself before authentication, so it is not part of
 * the handler contract.
 */
const isUnauthenticated = (op: OpenApiOperation): boolean =>
  Array.isArray(op.security) &&
  op.security.some(
    (requirement) => typeof requirement === "object" && requirement !== null && Object.keys(requirement).length === 0,
  );

const permissionPattern = /^[a-z_]+:(read|write)$/;

/** Reads every operation of an OpenAPI document, refusing the ones the server could not bind. */
export function readOperations(doc: OpenApiDocument, requirePermission = true): OperationInfo[] {
  const resolveParam = (p: OpenApiParameter): OpenApiParameter => {
    if (!p.$ref) return p;
    const name = p.$ref.replace("#/components/parameters/", "");
    const found = doc.components?.parameters?.[name];
    if (!found) throw new Error(`unresolved parameter ${p.$ref}`);
    return found;
  };
  const out: OperationInfo[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of httpMethods) {
      const op = item[method];
      if (!op || isUnauthenticated(op)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (!op.operationId) throw new Error(`${where} has no operationId`);
      const permission = op["x-permission"] ?? (requirePermission ? undefined : "admin");
      if (!permission || (requirePermission && !permissionPattern.test(permission))) {
        throw new Error(`${where} (${op.operationId}) has no valid x-permission`);
      }
      const params = (op.parameters ?? []).map(resolveParam);
      const responses = Object.entries(op.responses ?? {}).map(([status, r]) => ({
        status: Number(status),
        hasBody: Boolean(r.content?.["application/json"]),
        headers: Object.entries(r.headers ?? {}).map(([name, h]) => ({
          name,
          required: h.required === true,
          tsType: h.schema?.type === "integer" || h.schema?.type === "number" ? "number" : "string",
        })),
      }));
      if (responses.some((r) => Number.isNaN(r.status))) throw new Error(`${where}: non-numeric status`);
      out.push({
        operationId: op.operationId,
        method,
        path,
        expressPath: path.replace(/\{([^}]+)\}/g, ":$1"),
        permission,
        summary: op.summary ?? op.operationId,
        tag: op.tags?.[0] ?? "",
        hasPath: params.some((p) => p.in === "path"),
        hasQuery: params.some((p) => p.in === "query"),
        hasHeaders: params.some((p) => p.in === "header"),
        hasBody: Boolean(op.requestBody?.content?.["application/json"]),
        responses,
      });
    }
  }
  const ids = out.map((o) => o.operationId);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw new Error(`duplicate operationId ${dup}`);
  return out.sort((a, b) => a.operationId.localeCompare(b.operationId));
}

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

/** Writes the TypeScript handler contract for a list of operations. */
export function renderOperations(ops: OperationInfo[], typesModule: string): string {
  const lines: string[] = [];
  lines.push(
    "// Generated by scripts/generate.ts from the OpenAPI document. Do not edit: change spec/ and run",
    "// `npm run generate`.",
    "",
    `import type { operations } from "${typesModule}";`,
    "",
    "/** What the router needs to bind an operation. */",
    "export interface OperationMeta {",
    '  readonly method: "get" | "post" | "put" | "patch" | "delete";',
    "  /** The OpenAPI path, `{id}` style. */",
    "  readonly path: string;",
    "  /** The same path in Express syntax, `:id` style. */",
    "  readonly expressPath: string;",
    "  /** The API key permission the route requires (`x-permission`). */",
    "  readonly permission: string;",
    "  readonly summary: string;",
    "  readonly tag: string;",
    "  /** Statuses the operation declares. */",
    "  readonly statuses: readonly number[];",
    "}",
    "",
    "/** Every operation of the document, by operationId. */",
    "export const operationTable = {",
  );
  for (const op of ops) {
    lines.push(
      `  ${op.operationId}: {`,
      `    method: "${op.method}",`,
      `    path: "${op.path}",`,
      `    expressPath: "${op.expressPath}",`,
      `    permission: "${op.permission}",`,
      `    summary: ${JSON.stringify(op.summary)},`,
      `    tag: ${JSON.stringify(op.tag)},`,
      `    statuses: [${op.responses.map((r) => r.status).join(", ")}],`,
      "  },",
    );
  }
  lines.push(
    "} as const satisfies Record<string, OperationMeta>;",
    "",
    "export type OperationId = keyof typeof operationTable;",
    "",
    "/** Every permission some route requires. */",
    'export type Permission = (typeof operationTable)[OperationId]["permission"];',
    "",
    "export const operationIds = Object.keys(operationTable) as OperationId[];",
    "",
    'type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;',
    "/** An empty parameter group. */",
    "export type NoParams = Record<string, never>;",
    "",
  );
  for (const op of ops) {
    const t = `operations["${op.operationId}"]`;
    const name = pascal(op.operationId);
    lines.push(
      `/** ${op.method.toUpperCase()} ${op.path}: input of \`${op.operationId}\`, after validation. */`,
      `export interface ${name}Input {`,
      `  params: ${op.hasPath ? `${t}["parameters"]["path"]` : "NoParams"};`,
      `  query: ${op.hasQuery ? `NonNullable<${t}["parameters"]["query"]>` : "NoParams"};`,
      `  headers: ${op.hasHeaders ? `NonNullable<${t}["parameters"]["header"]>` : "NoParams"};`,
      `  body: ${op.hasBody ? `${t}["requestBody"] extends { content: { "application/json": infer B } } ? B : never` : "undefined"};`,
      "}",
      "",
      `/** Every response \`${op.operationId}\` may answer. */`,
      `export type ${name}Result =`,
    );
    for (const r of op.responses) {
      const body = r.hasBody ? `Json<${t}["responses"][${r.status}]>` : "undefined";
      const required = r.headers.filter((h) => h.required);
      const headers = required.length
        ? `; headers: { ${required.map((h) => `${JSON.stringify(h.name)}: ${h.tsType}`).join("; ")} }`
        : "";
      lines.push(`  | { status: ${r.status}; body: ${body}${headers} }`);
    }
    lines[lines.length - 1] += ";";
    lines.push("");
  }
  lines.push("/** The handler contract: one typed function per operationId. */", "export interface Handlers<Ctx> {");
  for (const op of ops) {
    const name = pascal(op.operationId);
    lines.push(
      `  /** ${op.method.toUpperCase()} ${op.path}: ${op.summary} (\`${op.permission}\`). */`,
      `  ${op.operationId}(request: ${name}Input, ctx: Ctx): Promise<${name}Result>;`,
    );
  }
  lines.push("}", "");
  return lines.join("\n");
}

/**
 * The emitter seals objects as `additionalProperties: { not: {} }`. JSON Schema reads that exactly
 * like `additionalProperties: false`, but Prism's example generator does not: it invents
 * `property1`/`property2` members and the mock answers bodies the contract forbids. Writing the
 * plain `false` keeps the meaning and fixes the mock.
 */
export function sealAsFalse(yamlText: string): string {
  return yamlText.replace(/^(\s*)additionalProperties:\n\1 {2}not: \{\}\n/gm, "$1additionalProperties: false\n");
}

const header =
  "// Generated by openapi-typescript from the OpenAPI document. Do not edit: change spec/ and run\n// `npm run generate`.\n\n";

/** Emits every document into `outDir`. */
export async function generate(outDir: string): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "pix-tsp-"));
  try {
    try {
      execFileSync(
        process.execPath,
        [
          join(root, "node_modules/@typespec/compiler/cmd/tsp.js"),
          "compile",
          join(root, "spec/main.tsp"),
          "--output-dir",
          work,
        ],
        { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
      );
    } catch (error) {
      // Show the compiler's diagnostics, not just "Command failed".
      const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
      process.stderr.write(`${stdout?.toString() ?? ""}${stderr?.toString() ?? ""}`);
      throw new Error("TypeSpec compilation failed (diagnostics above)");
    }
    for (const doc of documents) {
      const yamlText = sealAsFalse(readFileSync(join(work, doc.emitted), "utf8"));
      writeFileSync(join(outDir, doc.openapi), yamlText);
      const ast = await openapiTS(yamlText, { exportType: false, alphabetize: false });
      writeFileSync(join(outDir, doc.types), header + astToString(ast));
      const ops = readOperations(parse(yamlText) as OpenApiDocument, doc.permissions);
      writeFileSync(join(outDir, doc.operations), renderOperations(ops, `./${doc.types.replace(/\.d\.ts$/, ".js")}`));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--out");
  const outArg = i >= 0 ? process.argv[i + 1] : undefined;
  const outDir = resolve(outArg ?? join(root, "generated"));
  await generate(outDir);
  console.log(`generated → ${outDir}`);
}
