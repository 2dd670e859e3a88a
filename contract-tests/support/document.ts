import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { readOpenApiDocument } from "../../server/src/http/kit/openapi-document.js";

// The service's OpenAPI documents as the test suites that read them see them: each loaded once,
// one `$ref` resolver per document, and its operations with what a request generator needs. Read
// by the request generator (./requests.ts), which the differential contract suite and the fuzzer
// (server/test/fuzz/) share, and by the response checker (./openapi.ts). Nothing here names an
// operation of a document: a new operation is generated for, checked and fuzzed as it lands.

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The documents the service publishes: the public API, the merchant dashboard, the operator API. */
export type DocumentName = "public" | "dashboard" | "admin";

const files: Record<DocumentName, string> = {
  public: "generated/openapi.yaml",
  dashboard: "generated/dashboard-openapi.yaml",
  admin: "generated/admin-openapi.yaml",
};

/** A JSON Schema node of the document (OpenAPI 3.0 flavour): the keywords the generator reads. */
export interface Schema {
  $ref?: string;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  type?: string;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  nullable?: boolean;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  maxProperties?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
}

/** An operation's parameter as the document spells it. */
export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema: Schema;
}

/** A response of an operation: its headers and its content by media type. */
export interface ResponseSpec {
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, { schema?: unknown; examples?: Record<string, { value: unknown }> }>;
}

interface DocumentOperation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: {
    content: { "application/json": { schema: Schema; examples?: Record<string, { value: unknown }> } };
  };
  responses: Record<string, ResponseSpec>;
  "x-roles"?: string[];
}

/** A document as parsed. */
export interface RawDocument {
  paths: Record<string, Record<string, DocumentOperation>>;
  components: {
    schemas: Record<string, Schema>;
    parameters?: Record<string, Parameter>;
    securitySchemes?: Record<string, { type: string; in?: string; scheme?: string }>;
  };
  security?: Array<Record<string, string[]>>;
}

/** Which kind of object an id of the public document names. */
export type IdKind =
  "transaction" | "paymentLink" | "customer" | "withdrawal" | "refund" | "event" | "dispute" | "recurrence";

/** The prefix of each kind's ids (`txn_…`). */
export const idPrefixes: Record<IdKind, string> = {
  transaction: "txn",
  paymentLink: "plk",
  customer: "cus",
  withdrawal: "wdr",
  refund: "rfd",
  event: "evt",
  dispute: "dsp",
  recurrence: "rec",
};

/** Which kind of id a path parameter takes, by the parameter's name in the document. */
const idKinds: Record<string, IdKind> = {
  TransactionIdPath: "transaction",
  PaymentLinkIdPath: "paymentLink",
  CustomerIdPath: "customer",
  WithdrawalIdPath: "withdrawal",
  RefundIdPath: "refund",
  EventIdPath: "event",
  DisputeIdPath: "dispute",
  RecurrenceIdPath: "recurrence",
};

/** Which kind of object each list of the public document lists (its `startingAfter` cursor is an id of that kind). */
const listedKinds: Record<string, IdKind> = {
  listTransactions: "transaction",
  listPaymentLinks: "paymentLink",
  listCustomers: "customer",
  listWithdrawals: "withdrawal",
  listEvents: "event",
  listTransactionRefunds: "refund",
  listRecurrences: "recurrence",
};

export interface OperationInfo {
  /** The document the operation belongs to. */
  document: ApiDocument;
  operationId: string;
  /** Upper case: `GET`, `POST`, `PATCH`. */
  method: string;
  path: string;
  /** The kind of id in the path, if any (public document). */
  idKind?: IdKind;
  /** The prefix of the ids the path's `{id}` names (`txn`, `ses`), when the document shows one. */
  idPrefix?: string;
  /** For a list: the kind of object it lists (public document). */
  listed?: IdKind;
  /** For a list (a `startingAfter` cursor): the prefix of the ids it lists, when the document shows one. */
  listedPrefix?: string;
  /** Answers without credentials (the probes, sign-up, log-in: `security` holds the empty requirement). */
  keyless: boolean;
  /**
   * The least credential (a key of no permission, a viewer's session) is refused: the operation
   * needs a permission, or its `x-roles` leave someone out.
   */
  refusesLeast: boolean;
  /** Needs the session's CSRF token beside the session (dashboard changes). */
  csrf: boolean;
  /** The roles `x-roles` admits (dashboard). */
  roles?: string[];
  query: Parameter[];
  /** Path parameters other than `{id}` (the dashboard's `{mode}`). */
  pathParams: Parameter[];
  idempotencyHeader: boolean;
  body?: Schema;
  /** The request body's examples in the document. */
  examples: unknown[];
  responses: Record<string, ResponseSpec>;
}

/** One of the service's documents, parsed, with its resolver and its operations. */
export interface ApiDocument {
  name: DocumentName;
  /** The file, relative to the repository. */
  file: string;
  raw: RawDocument;
  /** How its operations are authenticated: an API key, a session cookie (+ CSRF token), a bearer token. */
  auth: "api-key" | "session" | "bearer";
  /** One schema with its `$ref` and `allOf` folded in. */
  resolveSchema(schema: Schema): Schema;
  /** The node a local reference (`#/components/parameters/Limit`) names. */
  resolveRef<T = Schema>(ref: string): T;
  operations: OperationInfo[];
}

const without = (schema: Schema, key: keyof Schema): Schema => {
  const { [key]: _dropped, ...rest } = schema;
  return rest;
};

/**
 * The name of the component a schema refers to (directly or as the emitter's one-member `allOf`),
 * without the namespace a document gives the public models it reuses (`PixService.Balance` is
 * `Balance`), so a rule about a public model holds wherever the model appears.
 */
export function schemaName(schema: Schema): string | undefined {
  const ref = schema.$ref ?? schema.allOf?.[0]?.$ref;
  return ref?.replace("#/components/schemas/", "").replace(/^PixService\./, "");
}

/** The first `id` string of a JSON value (an example's), depth first. */
function firstId(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = firstId(item);
      if (found) return found;
    }
    return undefined;
  }
  if (!value || typeof value !== "object") return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.id === "string") return record.id;
  for (const item of Object.values(record)) {
    const found = firstId(item);
    if (found) return found;
  }
  return undefined;
}

function load(name: DocumentName): ApiDocument {
  const raw = readOpenApiDocument<RawDocument>(join(root, files[name]));
  const schemes = Object.values(raw.components.securitySchemes ?? {});
  const auth = schemes.some((s) => s.in === "cookie")
    ? "session"
    : schemes.some((s) => s.scheme?.toLowerCase() === "bearer")
      ? "bearer"
      : "api-key";
  const resolveRef = <T = Schema>(ref: string): T => {
    let node: unknown = raw;
    for (const part of ref.replace(/^#\//, "").split("/")) node = (node as Record<string, unknown> | undefined)?.[part];
    if (!node) throw new Error(`unresolved ${ref} in ${files[name]}`);
    return node as T;
  };
  /**
   * `{ allOf: [{ $ref: ChargeAmountCents }], description }` becomes
   * `{ type: "integer", format: "int64", minimum: 500, maximum: …, description }`.
   */
  const resolveSchema = (schema: Schema): Schema => {
    if (schema.$ref) return resolveSchema({ ...resolveRef(schema.$ref), ...without(schema, "$ref") });
    if (!schema.allOf) return schema;
    const parts = [...schema.allOf.map(resolveSchema), without(schema, "allOf")];
    return parts.reduce<Schema>(
      (merged, part) => ({
        ...merged,
        ...part,
        ...(merged.properties || part.properties ? { properties: { ...merged.properties, ...part.properties } } : {}),
        ...(merged.required || part.required
          ? { required: [...(merged.required ?? []), ...(part.required ?? [])] }
          : {}),
      }),
      {},
    );
  };
  /** The prefix of the first id in the success examples of `ops`. */
  const prefixIn = (ops: DocumentOperation[]): string | undefined => {
    for (const op of ops) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (!status.startsWith("2")) continue;
        for (const example of Object.values(response.content?.["application/json"]?.examples ?? {})) {
          const id = firstId(example.value);
          if (id?.includes("_")) return id.split("_")[0];
        }
      }
    }
    return undefined;
  };
  const document: ApiDocument = {
    name,
    file: files[name],
    raw,
    auth,
    resolveSchema,
    resolveRef,
    operations: [],
  };
  document.operations = Object.entries(raw.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => {
      const refs = (op.parameters ?? []).map((p) =>
        "$ref" in p ? p.$ref.replace("#/components/parameters/", "").replace(/^PixService\./, "") : "",
      );
      const params = (op.parameters ?? []).map((p) => ("$ref" in p ? resolveRef<Parameter>(p.$ref) : p));
      const idRef = refs.find((r) => r in idKinds);
      const content = op.requestBody?.content["application/json"];
      const listed = listedKinds[op.operationId];
      const idKind = idRef ? idKinds[idRef] : undefined;
      const hasId = params.some((p) => p.in === "path" && p.name === "id");
      const idPrefix = idKind
        ? idPrefixes[idKind]
        : hasId
          ? prefixIn(Object.values(raw.paths[path.slice(0, path.lastIndexOf("/{id}"))] ?? {}))
          : undefined;
      const isList = params.some((p) => p.in === "query" && p.name === "startingAfter");
      const listedPrefix = listed ? idPrefixes[listed] : isList ? prefixIn([op]) : undefined;
      const security = op.security ?? raw.security ?? [];
      const keyless = security.some((requirement) => Object.keys(requirement).length === 0);
      const roles = op["x-roles"];
      return {
        document,
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        ...(idKind ? { idKind } : {}),
        ...(idPrefix ? { idPrefix } : {}),
        ...(listed ? { listed } : {}),
        ...(listedPrefix ? { listedPrefix } : {}),
        keyless,
        // A role-less document: every operation with a key asks for a permission.
        refusesLeast: roles ? !roles.includes("viewer") : !keyless,
        // The CSRF token is a required header parameter of every change of a session (issue 33).
        csrf: params.some((p) => p.in === "header" && p.name === "x-csrf-token" && p.required === true),
        ...(roles ? { roles } : {}),
        query: params.filter((p) => p.in === "query"),
        pathParams: params.filter((p) => p.in === "path" && p.name !== "id"),
        idempotencyHeader: params.some((p) => p.in === "header" && p.name === "idempotency-key"),
        ...(content ? { body: content.schema } : {}),
        examples: Object.values(content?.examples ?? {}).map((e) => e.value),
        responses: op.responses,
      } satisfies OperationInfo;
    }),
  );
  return document;
}

const loaded = new Map<DocumentName, ApiDocument>();

/** One of the service's documents, loaded at its first use. */
export function apiDocument(name: DocumentName): ApiDocument {
  let document = loaded.get(name);
  if (!document) {
    document = load(name);
    loaded.set(name, document);
  }
  return document;
}

/** Every operation of the public document. */
export const operationInfos: OperationInfo[] = apiDocument("public").operations;
