import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

// The public document (`generated/openapi.yaml`) as the test suites that read it see it: loaded
// once, one `$ref` resolver, and its operations with what a request generator needs. Read by the
// request generator (./requests.ts), which the differential contract suite and the fuzzer
// (server/test/fuzz/) share, and by the response checker (./openapi.ts).

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

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
  in: "path" | "query" | "header";
  required?: boolean;
  schema: Schema;
}

interface DocumentOperation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: {
    content: { "application/json": { schema: Schema; examples?: Record<string, { value: unknown }> } };
  };
  responses: Record<string, unknown>;
}

/** The public document, parsed. */
export const document = parse(readFileSync(join(root, "generated/openapi.yaml"), "utf8")) as {
  paths: Record<string, Record<string, DocumentOperation>>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Parameter> };
};

/** The node a local reference (`#/components/schemas/Cents`, `#/components/parameters/Limit`) names. */
function resolveRef<T = Schema>(ref: string): T {
  let node: unknown = document;
  for (const part of ref.replace(/^#\//, "").split("/")) node = (node as Record<string, unknown> | undefined)?.[part];
  if (!node) throw new Error(`unresolved ${ref}`);
  return node as T;
}

const without = (schema: Schema, key: keyof Schema): Schema => {
  const { [key]: _dropped, ...rest } = schema;
  return rest;
};

/**
 * One schema with its `$ref` and `allOf` folded in, the one resolver of the generators:
 * `{ allOf: [{ $ref: ChargeAmountCents }], description }` becomes
 * `{ type: "integer", format: "int64", minimum: 500, maximum: …, description }`.
 */
export function resolveSchema(schema: Schema): Schema {
  if (schema.$ref) return resolveSchema({ ...resolveRef(schema.$ref), ...without(schema, "$ref") });
  if (!schema.allOf) return schema;
  const parts = [...schema.allOf.map(resolveSchema), without(schema, "allOf")];
  return parts.reduce<Schema>(
    (merged, part) => ({
      ...merged,
      ...part,
      ...(merged.properties || part.properties ? { properties: { ...merged.properties, ...part.properties } } : {}),
      ...(merged.required || part.required ? { required: [...(merged.required ?? []), ...(part.required ?? [])] } : {}),
    }),
    {},
  );
}

/** The name of the component a schema refers to (directly or as the emitter's one-member `allOf`). */
export function schemaName(schema: Schema): string | undefined {
  const ref = schema.$ref ?? schema.allOf?.[0]?.$ref;
  return ref?.replace("#/components/schemas/", "");
}

/** Which kind of object an id names. */
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

/** Which kind of object each list lists (its `startingAfter` cursor is an id of that kind). */
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
  operationId: string;
  /** Upper case: `GET`, `POST`, `PATCH`. */
  method: string;
  path: string;
  /** The kind of id in the path, if any. */
  idKind?: IdKind;
  /** For a list: the kind of object it lists. */
  listed?: IdKind;
  /** Answers without a key (the probes: `security` holds the empty requirement). */
  keyless: boolean;
  query: Parameter[];
  idempotencyHeader: boolean;
  body?: Schema;
  /** The request body's examples in the document. */
  examples: unknown[];
}

/** Every operation of the public document. */
export const operationInfos: OperationInfo[] = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => {
    const refs = (op.parameters ?? []).map((p) => ("$ref" in p ? p.$ref.replace("#/components/parameters/", "") : ""));
    const params = (op.parameters ?? []).map((p) => ("$ref" in p ? resolveRef<Parameter>(p.$ref) : p));
    const idRef = refs.find((r) => r in idKinds);
    const content = op.requestBody?.content["application/json"];
    const listed = listedKinds[op.operationId];
    return {
      operationId: op.operationId,
      method: method.toUpperCase(),
      path,
      ...(idRef ? { idKind: idKinds[idRef] } : {}),
      ...(listed ? { listed } : {}),
      keyless: (op.security ?? []).some((requirement) => Object.keys(requirement).length === 0),
      query: params.filter((p) => p.in === "query"),
      idempotencyHeader: params.some((p) => p.in === "header" && p.name === "idempotency-key"),
      ...(content ? { body: content.schema } : {}),
      examples: Object.values(content?.examples ?? {}).map((e) => e.value),
    } satisfies OperationInfo;
  }),
);
