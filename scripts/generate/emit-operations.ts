/**
 * Step 4 of `npm run generate`: the handler contract (`operations.ts`). For every operationId of
 * an OpenAPI document, its method, path and permission (from `x-permission`), and a typed
 * request/response pair built on the `api.d.ts` openapi-typescript emits; the operations of each
 * tag (`HandlersOfTag`: what one handler file serves), and, in a document with roles, which
 * handlers are given a session (docs/decisions/0047-request-state-typed-once-and-the-session-proved-by-type.md).
 */
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
  "x-roles"?: unknown;
  security?: unknown[];
}
export interface OpenApiDocument {
  paths: Record<string, Partial<Record<HttpMethod, OpenApiOperation>>>;
  components?: { parameters?: Record<string, OpenApiParameter>; schemas?: Record<string, { enum?: unknown[] }> };
}

/** One operation, as the generator needs it. */
export interface OperationInfo {
  operationId: string;
  method: HttpMethod;
  path: string;
  permission: string;
  /** The dashboard's roles that may call it (`x-roles`); empty for an operation without a session. */
  roles: string[];
  summary: string;
  tag: string;
  hasPath: boolean;
  hasQuery: boolean;
  hasHeaders: boolean;
  hasBody: boolean;
  /** Whether the request body may be left out (the body is then `undefined`). */
  bodyOptional: boolean;
  responses: {
    status: number;
    hasBody: boolean;
    /** The media type of a body that is not JSON (`text/csv`): sent as it is produced. */
    streamed: string | null;
    headers: { name: string; required: boolean; tsType: string }[];
  }[];
}

/** The media types a body may be streamed in, besides JSON. */
const streamedMediaTypes = ["text/csv"];

const permissionPattern = /^[a-z_]+:(read|write)$/;

/**
 * The roles of an operation of a document with roles: a non-empty list of known roles, or none
 * for an operation without a session (`permission` "none").
 */
function rolesOf(op: OpenApiOperation, where: string, unauthenticated: boolean, known: readonly string[]): string[] {
  const roles = op["x-roles"];
  if (unauthenticated) {
    if (roles !== undefined) throw new Error(`${where} needs no session, so it takes no x-roles`);
    return [];
  }
  if (!Array.isArray(roles) || roles.length === 0 || roles.some((r) => !known.includes(String(r)))) {
    throw new Error(`${where} (${op.operationId}) has no valid x-roles`);
  }
  return roles.map(String);
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

/**
 * Reads every operation of an OpenAPI document, refusing the ones the server could not bind. With
 * `roles` (the dashboard), an operation without a session is bound too (permission `none`), and
 * every other one declares its roles (`x-roles`; permission `session`).
 */
export function readOperations(doc: OpenApiDocument, requirePermission = true, roles = false): OperationInfo[] {
  const resolveParam = (p: OpenApiParameter): OpenApiParameter => {
    if (!p.$ref) return p;
    const name = p.$ref.replace("#/components/parameters/", "");
    const found = doc.components?.parameters?.[name];
    if (!found) throw new Error(`unresolved parameter ${p.$ref}`);
    return found;
  };
  // The roles `x-roles` may name: the document's `Role` enumeration (spec/dashboard/common.tsp).
  const knownRoles = (doc.components?.schemas?.Role?.enum ?? []).map(String);
  if (roles && knownRoles.length === 0) throw new Error("a document with roles needs a Role enumeration");
  const out: OperationInfo[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of httpMethods) {
      const op = item[method];
      if (!op || (isUnauthenticated(op) && !roles)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (!op.operationId) throw new Error(`${where} has no operationId`);
      const open = isUnauthenticated(op);
      const fallback = roles ? (open ? "none" : "session") : "admin";
      const permission = op["x-permission"] ?? (requirePermission ? undefined : fallback);
      if (!permission || (requirePermission && !permissionPattern.test(permission))) {
        throw new Error(`${where} (${op.operationId}) has no valid x-permission`);
      }
      const params = (op.parameters ?? []).map(resolveParam);
      const responses = Object.entries(op.responses ?? {}).map(([status, r]) => ({
        status: Number(status),
        hasBody: Boolean(r.content?.["application/json"]),
        streamed: streamedMediaTypes.find((type) => r.content?.[type] !== undefined) ?? null,
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
        permission,
        roles: roles ? rolesOf(op, where, open, knownRoles) : [],
        summary: op.summary ?? op.operationId,
        tag: op.tags?.[0] ?? "",
        hasPath: params.some((p) => p.in === "path"),
        hasQuery: params.some((p) => p.in === "query"),
        hasHeaders: params.some((p) => p.in === "header"),
        hasBody: Boolean(op.requestBody?.content?.["application/json"]),
        bodyOptional: op.requestBody !== undefined && op.requestBody.required !== true,
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

/** Writes the TypeScript handler contract for a list of operations (with each one's `roles` when asked). */
export function renderOperations(ops: OperationInfo[], typesModule: string, roles = false): string {
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
    "  /** The API key permission the route requires (`x-permission`). */",
    "  readonly permission: string;",
    ...(roles
      ? [
          "  /** The roles that may call it (`x-roles`); empty: no session needed (`permission` none). */",
          "  readonly roles: readonly string[];",
        ]
      : []),
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
      `    permission: "${op.permission}",`,
      ...(roles ? [`    roles: ${JSON.stringify(op.roles)},`] : []),
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
    ...(roles
      ? [
          "/** A role some operation admits (`x-roles`). */",
          'export type Role = (typeof operationTable)[OperationId]["roles"][number];',
          "",
          "/** Whether a role may call an operation (its `x-roles`), for what a screen offers; the server decides anyway. */",
          "export const canCall = (operationId: OperationId, role: Role): boolean =>",
          "  (operationTable[operationId].roles as readonly Role[]).includes(role);",
          "",
        ]
      : []),
    'type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;',
    "/** An empty parameter group. */",
    "export type NoParams = Record<string, never>;",
    "",
  );
  if (ops.some((op) => op.responses.some((r) => r.streamed))) {
    lines.push(
      "/**",
      " * A body that is not JSON (`text/csv`), sent as it is produced: the router writes each chunk as",
      " * the connection takes it, and aborts the connection when a later chunk fails.",
      " */",
      "export interface StreamedBody<M extends string> {",
      "  readonly mediaType: M;",
      "  readonly chunks: AsyncIterable<string | Uint8Array>;",
      "}",
      "",
    );
  }
  for (const op of ops) {
    const t = `operations["${op.operationId}"]`;
    const name = pascal(op.operationId);
    lines.push(
      `/** ${op.method.toUpperCase()} ${op.path}: input of \`${op.operationId}\`, after validation. */`,
      `export interface ${name}Input {`,
      `  params: ${op.hasPath ? `${t}["parameters"]["path"]` : "NoParams"};`,
      `  query: ${op.hasQuery ? `NonNullable<${t}["parameters"]["query"]>` : "NoParams"};`,
      `  headers: ${op.hasHeaders ? `NonNullable<${t}["parameters"]["header"]>` : "NoParams"};`,
      `  body: ${
        !op.hasBody
          ? "undefined"
          : op.bodyOptional
            ? `(NonNullable<${t}["requestBody"]> extends { content: { "application/json": infer B } } ? B : never) | undefined`
            : `${t}["requestBody"] extends { content: { "application/json": infer B } } ? B : never`
      };`,
      "}",
      "",
      `/** Every response \`${op.operationId}\` may answer. */`,
      `export type ${name}Result =`,
    );
    for (const r of op.responses) {
      const body = r.streamed
        ? `StreamedBody<${JSON.stringify(r.streamed)}>`
        : r.hasBody
          ? `Json<${t}["responses"][${r.status}]>`
          : "undefined";
      const required = r.headers.filter((h) => h.required);
      const headers = required.length
        ? `; headers: { ${required.map((h) => `${JSON.stringify(h.name)}: ${h.tsType}`).join("; ")} }`
        : "";
      lines.push(`  | { status: ${r.status}; body: ${body}${headers} }`);
    }
    lines[lines.length - 1] += ";";
    lines.push("");
  }
  lines.push(...renderHandlers(ops, roles));
  return lines.join("\n");
}

/**
 * The handler contract, and the operations of each tag. With roles (the dashboard), a handler of
 * an operation with a session (`x-roles`) is given the `Session` context, the others the `Open`
 * one: the server's types then prove the session where it is needed, with no check at run time.
 */
function renderHandlers(ops: OperationInfo[], roles: boolean): string[] {
  const params = roles ? "Open, Session = Open" : "Ctx";
  const contextOf = (op: OperationInfo) => (roles ? (op.roles.length > 0 ? "Session" : "Open") : "Ctx");
  const lines = [
    roles
      ? "/** The handler contract: one typed function per operationId, given a `Session` context when it declares `x-roles`. */"
      : "/** The handler contract: one typed function per operationId. */",
    `export interface Handlers<${params}> {`,
  ];
  for (const op of ops) {
    const name = pascal(op.operationId);
    const who = roles ? (op.roles.length > 0 ? `session: ${op.roles.join(", ")}` : "no session") : op.permission;
    lines.push(
      `  /** ${op.method.toUpperCase()} ${op.path}: ${op.summary} (\`${who}\`). */`,
      `  ${op.operationId}(request: ${name}Input, ctx: ${contextOf(op)}): Promise<${name}Result>;`,
    );
  }
  lines.push("}", "");
  const byTag = new Map<string, string[]>();
  for (const op of ops) byTag.set(op.tag, [...(byTag.get(op.tag) ?? []), op.operationId]);
  lines.push("/** The operations of each tag (the spec's `@tag`): what one handler file serves. */");
  lines.push("export interface OperationsByTag {");
  for (const [tag, ids] of [...byTag].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`  ${JSON.stringify(tag)}: ${ids.map((id) => JSON.stringify(id)).join(" | ")};`);
  }
  lines.push(
    "}",
    "",
    "export type Tag = keyof OperationsByTag;",
    "",
    "/** The handlers of one tag's operations (or of a union of tags). */",
    `export type HandlersOfTag<T extends Tag, ${params}> = Pick<Handlers<${roles ? "Open, Session" : "Ctx"}>, OperationsByTag[T]>;`,
    "",
  );
  return lines;
}
