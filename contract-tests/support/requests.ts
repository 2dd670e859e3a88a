import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { parse } from "yaml";
import type { DocumentParameter } from "./openapi.js";

// Requests built from the document's own schemas, for the differential suite: for each operation,
// valid values drawn from its request schema and parameters, boundary values read from the schema
// (lengths, minimums, maximums), mutations (a field removed, a wrong type, an extra field, numbers
// out of bounds, parameters out of range), with and without a key.

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

interface Schema {
  $ref?: string;
  allOf?: Schema[];
  type?: string;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  nullable?: boolean;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  maxProperties?: number;
}
type Parameter = DocumentParameter<Schema>;
interface Operation {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content: { "application/json": { schema: Schema } } };
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Parameter> };
}

const doc = parse(readFileSync(join(root, "generated/openapi.yaml"), "utf8")) as Doc;

/** Follows `$ref` and the one-member `allOf` the emitter writes around a referenced scalar. */
function resolveSchema(schema: Schema): Schema {
  if (schema.$ref) {
    const target = doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")];
    if (!target) throw new Error(`unresolved ${schema.$ref}`);
    return resolveSchema(target);
  }
  if (schema.allOf?.length === 1 && schema.allOf[0]) {
    const { allOf, ...rest } = schema;
    return { ...resolveSchema(allOf[0] as Schema), ...rest };
  }
  return schema;
}

/** Which kind of id a path parameter takes, by the parameter's name in the document. */
export type IdKind = "transaction" | "paymentLink" | "customer" | "withdrawal" | "refund" | "event" | "dispute";
const idKinds: Record<string, IdKind> = {
  TransactionIdPath: "transaction",
  PaymentLinkIdPath: "paymentLink",
  CustomerIdPath: "customer",
  WithdrawalIdPath: "withdrawal",
  RefundIdPath: "refund",
  EventIdPath: "event",
  DisputeIdPath: "dispute",
};

/** The amount of every charge the differential suite creates: what a refund or a dispute of it can take. */
export const freshChargeCents = 8990;

/** A state of an object that some change of state refuses; the setup makes one object of each. */
export type RefusedState = "waiting" | "expired" | "paid" | "disputed" | "refunded" | "closed";

/**
 * Per change of state, the states of its path object it refuses (else the server answers 2xx):
 * a charge that is no longer waiting cannot be cancelled, paid or expired; one that is not paid,
 * is disputed or was refunded in full cannot be refunded or contested; a closed dispute cannot be
 * resolved again. The generator draws such ids (`id: "refused"`) for these operations.
 */
const refusedStates: Record<string, readonly RefusedState[]> = {
  cancelTransaction: ["expired", "paid"],
  simulatePayment: ["expired", "paid"],
  simulateExpiry: ["expired", "paid"],
  createRefund: ["waiting", "expired", "disputed", "refunded"],
  simulateDispute: ["waiting", "expired", "disputed", "refunded"],
  simulateDisputeResolution: ["closed"],
};

export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  idKind?: IdKind;
  /** Answers without a key (the probes: `security` holds the empty requirement). */
  keyless: boolean;
  query: Parameter[];
  idempotencyHeader: boolean;
  body?: Schema;
}

export const operationInfos: OperationInfo[] = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => {
    const refs = (op.parameters ?? []).map((p) => ("$ref" in p ? p.$ref.replace("#/components/parameters/", "") : ""));
    const params = (op.parameters ?? []).map((p) =>
      "$ref" in p ? (doc.components.parameters[p.$ref.replace("#/components/parameters/", "")] as Parameter) : p,
    );
    const idRef = refs.find((r) => r in idKinds);
    return {
      operationId: op.operationId,
      method: method.toUpperCase(),
      path,
      ...(idRef ? { idKind: idKinds[idRef] } : {}),
      keyless: (op.security ?? []).some((requirement) => Object.keys(requirement).length === 0),
      query: params.filter((p) => p.in === "query"),
      idempotencyHeader: params.some((p) => p.in === "header" && p.name === "idempotency-key"),
      ...(op.requestBody ? { body: op.requestBody.content["application/json"].schema } : {}),
    } satisfies OperationInfo;
  }),
);

/** One generated request, before it is addressed to a target. */
export interface DiffRequest {
  operationId: string;
  /** What the generator meant it to be, for the failure message. */
  label: string;
  /** Which key: every permission, none sent, a well-formed key nobody issued, or no permission. */
  key: "full" | "absent" | "unknown" | "none";
  /**
   * The path id: one that exists on the server (made fresh for changes), one in a state the change
   * refuses (`refused`), or one that does not exist.
   */
  id?: "existing" | "refused" | "unknown" | "too-long";
  /** With `id: "refused"`: the state of the object the path names. */
  refused?: RefusedState;
  query: Record<string, string>;
  /** Appended to the query string as it is, unencoded. */
  rawQuery?: string;
  /** `startingAfter` as an id of the listed kind that exists on the server. */
  startingAfterExisting?: boolean;
  body?: unknown;
  idempotencyKey?: string;
}

// ---- valid values ----

const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n });

function cpfCheck(base: number[]): number[] {
  const digit = (ds: number[]) => {
    const sum = ds.reduce((s, d, i) => s + d * (ds.length + 1 - i), 0);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  const first = digit(base);
  return [...base, first, digit([...base, first])];
}
function cnpjCheck(base: number[]): number[] {
  const digit = (ds: number[]) => {
    const weights = ds.map((_, i) => ((ds.length - 1 - i) % 8) + 2);
    const r = ds.reduce((s, d, i) => s + d * (weights[i] as number), 0) % 11;
    return r < 2 ? 0 : 11 - r;
  };
  const first = digit(base);
  return [...base, first, digit([...base, first])];
}
/** A CPF whose check digits hold (not all digits equal). */
const validCpf = digits(9)
  .filter((d) => new Set(d).size > 1)
  .map((d) => cpfCheck(d).join(""));
/** A numeric CNPJ whose check digits hold. */
const validCnpj = digits(12)
  .filter((d) => new Set(d).size > 1)
  .map((d) => cnpjCheck(d).join(""));
const documentPair = fc.oneof(
  validCpf.map((document) => ({ documentType: "CPF", document })),
  validCnpj.map((document) => ({ documentType: "CNPJ", document })),
);
const punctuated = (d: string) =>
  d.length === 11
    ? `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`
    : `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`;
const email = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,15}$/), fc.constantFrom("example.com", "loja.example.com.br"))
  .map(([local, domain]) => `${local}@${domain}`);
const pixKeyPair = fc.oneof(
  validCpf.map((pixKey) => ({ pixKeyType: "CPF", pixKey })),
  validCnpj.map((pixKey) => ({ pixKeyType: "CNPJ", pixKey })),
  fc.stringMatching(/^\+55[1-9]{2}9[0-9]{8}$/).map((pixKey) => ({ pixKeyType: "PHONE", pixKey })),
  email.map((pixKey) => ({ pixKeyType: "EMAIL", pixKey })),
  fc.uuid({ version: 4 }).map((pixKey) => ({ pixKeyType: "EVP", pixKey })),
);
/** Instants the reference servers (clock in 2026) and anyone else see as future. */
const futureInstant = fc
  .integer({ min: Date.UTC(2030, 0, 1) / 1000, max: Date.UTC(2099, 0, 1) / 1000 })
  .map((s) => new Date(s * 1000).toISOString());

/** Instants everyone sees as past. */
const pastInstant = fc
  .integer({ min: Date.UTC(2000, 0, 1) / 1000, max: Date.UTC(2020, 0, 1) / 1000 })
  .map((s) => new Date(s * 1000).toISOString());

/**
 * The values a schema alone cannot make valid for the server: a document and its type whose check
 * digits hold, a Pix key in the form of its type, an instant in the future, an amount the charge
 * to refund or contest holds. Keyed by the property's place, `Schema.property`.
 */
const semanticValues: Record<string, fc.Arbitrary<unknown>> = {
  "UpsertCustomerRequest.document": fc.oneof(validCpf, validCnpj, validCpf.map(punctuated), validCnpj.map(punctuated)),
  "CreatePixChargeRequest.expiresAt": futureInstant,
  "CreatePaymentLinkRequest.expiresAt": futureInstant,
  // At most what a fresh charge of the suite still holds (the setup's charges are of one amount).
  "CreateRefundRequest.amountCents": fc.integer({ min: 1, max: freshChargeCents }),
  "SimulateDisputeRequest.amountCents": fc.integer({ min: 1, max: freshChargeCents }),
  // The sandbox's magic reason: the refund ends FAILED (still 201), a body the proxy checks too.
  "CreateRefundRequest.reason": fc.oneof(fc.constant("sandbox:falha"), fc.string({ minLength: 3, maxLength: 140 })),
  "CreatePaymentLinkRequest.returnUrl": fc.oneof(
    fc.constant(null),
    fc.stringMatching(/^[a-z]{3,12}$/).map((host) => `https://${host}.example.com/obrigado`),
  ),
};
/** Properties drawn together (a document and its type; a Pix key and its type). */
const pairedValues: Record<string, { keys: string[]; arbitrary: fc.Arbitrary<Record<string, unknown>> }> = {
  ChargeCustomerInput: { keys: ["documentType", "document"], arbitrary: documentPair },
  CreateWithdrawalRequest: { keys: ["pixKeyType", "pixKey"], arbitrary: pixKeyPair },
};

function schemaName(schema: Schema): string | undefined {
  const ref = schema.$ref ?? schema.allOf?.[0]?.$ref;
  return ref?.replace("#/components/schemas/", "");
}

const bigInteger = (min: number, max: number) =>
  fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map((n) => Number(n));

/** A value valid against `schema` (and, for the semantic fields above, valid for the server). */
function validValue(schema: Schema, place = ""): fc.Arbitrary<unknown> {
  const semantic = semanticValues[place];
  if (semantic) return semantic;
  const name = schemaName(schema) ?? place;
  const s = resolveSchema(schema);
  const base = baseValue(s, name);
  return s.nullable ? fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: base }) : base;
}

function baseValue(s: Schema, name: string): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  switch (s.type) {
    case "object": {
      if (!s.properties) {
        // Metadata: string keys of at most 40 characters, JSON values, at most `maxProperties`.
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 40 }), fc.jsonValue({ maxDepth: 2 }), {
          maxKeys: Math.min(s.maxProperties ?? 10, 10),
        });
      }
      const paired = pairedValues[name];
      const entries = Object.entries(s.properties).filter(([key]) => !paired?.keys.includes(key));
      const record = fc.record(
        Object.fromEntries(entries.map(([key, prop]) => [key, validValue(prop, `${name}.${key}`)])),
        { requiredKeys: entries.map(([key]) => key).filter((key) => s.required?.includes(key)) },
      );
      return paired ? fc.tuple(record, paired.arbitrary).map(([r, p]) => ({ ...r, ...p })) : record;
    }
    case "integer":
      return bigInteger(s.minimum ?? 0, s.maximum ?? 1_000_000);
    case "number":
      return fc.double({ min: s.minimum ?? 0, max: s.maximum ?? 1e6, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "string": {
      const minLength = s.minLength ?? 0;
      const maxLength = s.maxLength ?? 40;
      if (s.format === "email") return email.filter((e) => e.length <= maxLength);
      if (s.format === "date-time") return futureInstant;
      if (s.pattern) {
        // `^[class]+$` with lengths: draw the length from the schema, not from the regex.
        const repeated = /^\^(\[[^\]]+\])\+\$$/.exec(s.pattern);
        const pattern = repeated ? `^${repeated[1]}{${minLength},${maxLength}}$` : s.pattern;
        return fc.stringMatching(new RegExp(pattern)).filter((v) => v.length >= minLength && v.length <= maxLength);
      }
      return fc.string({ minLength, maxLength: Math.min(maxLength, 60) });
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

// ---- boundaries and mutations of a body ----

interface Leaf {
  path: string[];
  schema: Schema;
  required: boolean;
}

/** The leaves of a request schema with their places (only the properties a body may hold). */
function leaves(schema: Schema, path: string[] = [], required = true): Leaf[] {
  const s = resolveSchema(schema);
  if (s.type === "object" && s.properties) {
    return [
      { path, schema: s, required },
      ...Object.entries(s.properties).flatMap(([key, prop]) =>
        leaves(prop, [...path, key], s.required?.includes(key) ?? false),
      ),
    ];
  }
  return [{ path, schema: s, required }];
}

function setAt(body: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string, ...string[]];
  const object = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  return { ...object, [head]: setAt(object[head], rest, value) };
}
function removeAt(body: unknown, path: string[]): unknown {
  if (!body || typeof body !== "object" || path.length === 0) return body;
  const [head, ...rest] = path as [string, ...string[]];
  const object = { ...(body as Record<string, unknown>) };
  if (rest.length === 0) delete object[head];
  else object[head] = removeAt(object[head], rest);
  return object;
}

/** Values at and just beyond a leaf's bounds, with what they are. */
function boundaryValues(s: Schema): Array<{ what: string; value: unknown }> {
  const out: Array<{ what: string; value: unknown }> = [];
  if (s.type === "integer" || s.type === "number") {
    if (s.minimum !== undefined)
      out.push({ what: "minimum", value: s.minimum }, { what: "minimum - 1", value: s.minimum - 1 });
    if (s.maximum !== undefined)
      out.push({ what: "maximum", value: s.maximum }, { what: "maximum + 1", value: s.maximum + 1 });
    out.push(
      { what: "a fraction", value: (s.minimum ?? 0) + 0.5 },
      { what: "-1", value: -1 },
      { what: "1e15", value: 1e15 },
    );
  }
  if (s.type === "string" && !s.enum && !s.format) {
    // A character the leaf's pattern accepts (digits for the digit-only fields).
    const unit = s.pattern?.includes("[0-9]") && !s.pattern.includes("A-Z") ? "7" : "a";
    if (s.minLength !== undefined) {
      out.push({ what: "minLength", value: unit.repeat(s.minLength) });
      if (s.minLength > 0) out.push({ what: "minLength - 1", value: unit.repeat(s.minLength - 1) });
    }
    if (s.maxLength !== undefined) {
      out.push(
        { what: "maxLength", value: unit.repeat(s.maxLength) },
        { what: "maxLength + 1", value: unit.repeat(s.maxLength + 1) },
      );
    }
  }
  if (s.type === "string" && s.format === "email" && s.maxLength !== undefined) {
    const at = "@example.com";
    out.push({ what: "maxLength + 1", value: `${"a".repeat(s.maxLength + 1 - at.length)}${at}` });
  }
  if (s.type === "object" && !s.properties && s.maxProperties !== undefined) {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    out.push(
      { what: "maxProperties", value: many(s.maxProperties) },
      { what: "maxProperties + 1", value: many(s.maxProperties + 1) },
    );
  }
  return out;
}

/** A value of another JSON type than the leaf's. */
function wrongType(s: Schema): unknown {
  switch (s.type) {
    case "string":
      return 12345;
    case "integer":
    case "number":
      return "12345";
    case "boolean":
      return "true";
    case "object":
      return "objeto";
    default:
      return [];
  }
}

type BodyVariant = { label: string; body: unknown };

/** Boundary values and mutations of a valid body, one change each. */
function bodyVariants(schema: Schema, valid: fc.Arbitrary<unknown>): fc.Arbitrary<BodyVariant> {
  const all = leaves(schema);
  const fields = all.filter((l) => l.path.length > 0);
  const bounded = fields.flatMap((l) => boundaryValues(l.schema).map((b) => ({ leaf: l, ...b })));
  const required = fields.filter((l) => l.required);
  const objects = all.filter((l) => l.schema.type === "object" && l.schema.properties);
  const variants: fc.Arbitrary<BodyVariant>[] = [
    fc.tuple(valid, fc.constantFrom(...fields)).map(([body, l]) => ({
      label: `wrong type at ${l.path.join(".")}`,
      body: setAt(body, l.path, wrongType(l.schema)),
    })),
    fc.tuple(valid, fc.constantFrom(...objects)).map(([body, l]) => ({
      label: `extra field in ${l.path.join(".") || "the body"}`,
      body: setAt(body, [...l.path, "campoExtra"], "x"),
    })),
    fc.constantFrom(
      { label: "an empty object", body: {} },
      { label: "a JSON array", body: [] },
      { label: "a string", body: "texto" },
    ),
  ];
  if (bounded.length) {
    variants.push(
      fc.tuple(valid, fc.constantFrom(...bounded)).map(([body, b]) => ({
        label: `${b.leaf.path.join(".")} at ${b.what}`,
        body: setAt(body, b.leaf.path, b.value),
      })),
    );
  }
  if (required.length) {
    variants.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([body, l]) => ({
        label: `required ${l.path.join(".")} removed`,
        body: removeAt(body, l.path),
      })),
    );
  }
  return fc.oneof(...variants);
}

// ---- query parameters ----

function queryValid(params: Parameter[]): fc.Arbitrary<{ query: Record<string, string>; existing: boolean }> {
  // An instant filter on either side of the servers' clock, so that filtered pages hold items too.
  const value = (p: Parameter) =>
    resolveSchema(p.schema).format === "date-time" ? fc.oneof(pastInstant, futureInstant) : validValue(p.schema);
  const entries = params
    .filter((p) => p.name !== "startingAfter")
    .map((p) => [p.name, value(p).map((v) => String(v))] as const);
  const hasCursor = params.some((p) => p.name === "startingAfter");
  return fc
    .tuple(fc.record(Object.fromEntries(entries), { requiredKeys: [] }), hasCursor ? fc.boolean() : fc.constant(false))
    .map(([query, existing]) => {
      // A cursor from the server names an item of the unfiltered list: keep only the page size.
      const q = query as Record<string, string>;
      return { query: existing ? (q.limit === undefined ? {} : { limit: q.limit }) : q, existing };
    });
}

function queryVariants(params: Parameter[]): fc.Arbitrary<{ label: string; query: Record<string, string> }> {
  const out: Array<{ label: string; query: Record<string, string> }> = [];
  for (const p of params) {
    const s = resolveSchema(p.schema);
    for (const b of boundaryValues(s))
      out.push({ label: `${p.name} at ${b.what}`, query: { [p.name]: String(b.value) } });
    if (s.type !== "string" || s.enum || s.pattern)
      out.push({ label: `${p.name} of another type`, query: { [p.name]: "abc" } });
    if (s.pattern) out.push({ label: `${p.name} with an offset`, query: { [p.name]: "2026-10-04T12:30:00-03:00" } });
    if (p.name === "startingAfter")
      out.push({ label: "startingAfter names no item", query: { startingAfter: "xyz_naoexiste0000" } });
  }
  return fc.constantFrom(...out);
}

// ---- values the schema accepts and a server rule refuses ----

/** A CPF or CNPJ of the right form whose last check digit is wrong. */
const badCheckDigits = (d: string) => `${d.slice(0, -1)}${(Number(d.at(-1)) + 1) % 10}`;
type Body = Record<string, any>;
/** Per operation: schema-valid bodies that break one rule only the server can check. */
const ruleBreakers: Record<string, Array<(valid: fc.Arbitrary<unknown>) => fc.Arbitrary<BodyVariant>>> = {
  createPixCharge: [
    (valid) =>
      valid.map((b) => {
        const body = b as Body;
        return {
          label: "customer.document with a wrong check digit",
          body: { ...body, customer: { ...body.customer, document: badCheckDigits(body.customer.document) } },
        };
      }),
    (valid) =>
      valid.map((b) => {
        const body = b as Body;
        const documentType = body.customer.documentType === "CPF" ? "CNPJ" : "CPF";
        return {
          label: "customer.documentType not the document's",
          body: { ...body, customer: { ...body.customer, documentType } },
        };
      }),
    (valid) =>
      fc
        .tuple(valid, pastInstant)
        .map(([b, expiresAt]) => ({ label: "expiresAt in the past", body: { ...(b as Body), expiresAt } })),
  ],
  createPaymentLink: [
    (valid) =>
      fc
        .tuple(valid, pastInstant)
        .map(([b, expiresAt]) => ({ label: "expiresAt in the past", body: { ...(b as Body), expiresAt } })),
  ],
  upsertCustomer: [
    (valid) =>
      fc.tuple(valid, validCpf).map(([b, cpf]) => ({
        label: "document with a wrong check digit",
        body: { ...(b as Body), document: badCheckDigits(cpf) },
      })),
  ],
  createRefund: [
    (valid) =>
      fc
        .tuple(valid, fc.integer({ min: freshChargeCents + 1, max: 10 * freshChargeCents }))
        .map(([b, amountCents]) => ({
          label: "amountCents above what the charge can still refund",
          body: { ...(b as Body), amountCents },
        })),
  ],
  simulateDispute: [
    (valid) =>
      fc
        .tuple(valid, fc.integer({ min: freshChargeCents + 1, max: 10 * freshChargeCents }))
        .map(([b, amountCents]) => ({
          label: "amountCents above what the charge still holds",
          body: { ...(b as Body), amountCents },
        })),
  ],
  createWithdrawal: [
    (valid) =>
      fc.tuple(valid, fc.constantFrom("nao-e-chave", "11", "maria@", "+1 555 0100")).map(([b, pixKey]) => ({
        label: "pixKey not in the form of its pixKeyType",
        body: { ...(b as Body), pixKey },
      })),
  ],
};

// ---- one operation ----

const freshKey = fc.stringMatching(/^[a-zA-Z0-9-]{8,40}$/);

/** Every kind of request for one operation: mostly valid, then boundaries, mutations and keys. */
export function requestsFor(info: OperationInfo): {
  requests: fc.Arbitrary<DiffRequest>;
  /** One request of each kind a known difference is about: run first, so every run meets them all. */
  pinned: fc.Arbitrary<DiffRequest>[];
} {
  const valid = info.body ? validValue(info.body, schemaName(info.body) ?? "") : fc.constant(undefined);
  const query = queryValid(info.query);
  const idempotency = info.idempotencyHeader ? fc.option(freshKey, { nil: undefined }) : fc.constant(undefined);
  const base = (label: string, extra: Partial<DiffRequest> = {}): DiffRequest => ({
    operationId: info.operationId,
    label,
    key: info.keyless ? "absent" : "full",
    query: {},
    ...(info.idKind ? { id: "existing" as const } : {}),
    ...extra,
  });
  const validRequest = fc.tuple(valid, query, idempotency).map(([body, q, idem]) =>
    base("valid", {
      query: q.query,
      ...(q.existing ? { startingAfterExisting: true } : {}),
      ...(body === undefined ? {} : { body }),
      ...(idem === undefined ? {} : { idempotencyKey: idem }),
    }),
  );
  const arms: Array<{ weight: number; arbitrary: fc.Arbitrary<DiffRequest> }> = [
    { weight: 4, arbitrary: validRequest },
    // Keys: none sent (anything), a well-formed key nobody issued, a key without permission (the
    // probes answer whatever key is sent).
    {
      weight: 2,
      arbitrary: fc
        .tuple(validRequest, fc.constantFrom("absent", "unknown", "none") as fc.Arbitrary<DiffRequest["key"]>)
        .map(([r, key]) => ({ ...r, key, label: `${r.label}, key ${key}` })),
    },
  ];
  if (info.body) {
    const variant = bodyVariants(info.body, valid);
    arms.push({
      weight: 5,
      arbitrary: variant.map((v) => base(v.label, v.body === undefined ? {} : { body: v.body })),
    });
    arms.push({
      weight: 1,
      arbitrary: variant.map((v) => ({
        ...base(`${v.label}, key absent`, v.body === undefined ? {} : { body: v.body }),
        key: "absent" as const,
      })),
    });
  }
  const breakers = ruleBreakers[info.operationId];
  if (breakers) {
    arms.push({
      weight: 2,
      arbitrary: fc.oneof(...breakers.map((make) => make(valid))).map((v) => base(v.label, { body: v.body })),
    });
  }
  if (info.query.length) {
    arms.push({ weight: 3, arbitrary: queryVariants(info.query).map((v) => base(v.label, { query: v.query })) });
    const text = info.query.filter((p) => resolveSchema(p.schema).type === "string" && !resolveSchema(p.schema).enum);
    if (text.length) {
      arms.push({
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom(...text), fc.constantFrom("11.222.333/0001-81", "a+b", "x:y"))
          .map(([p, value]) =>
            base(`${p.name} with a reserved character unencoded`, { rawQuery: `${p.name}=${value}` }),
          ),
      });
    }
    arms.push({
      weight: 1,
      arbitrary: validRequest.map((r) => ({
        ...r,
        label: `${r.label}, unknown parameter`,
        query: { ...r.query, naoDeclarado: "1" },
      })),
    });
  }
  if (info.idKind) {
    arms.push({
      weight: 2,
      arbitrary: fc
        .tuple(validRequest, fc.constantFrom("unknown", "too-long") as fc.Arbitrary<"unknown" | "too-long">)
        .map(([r, id]) => ({ ...r, id, label: `${r.label}, ${id} id` })),
    });
  }
  const states = refusedStates[info.operationId] ?? [];
  const inState = (state: fc.Arbitrary<RefusedState>) =>
    fc.tuple(validRequest, state).map(([r, refused]) => ({
      ...r,
      id: "refused" as const,
      refused,
      label: `${r.label}, id of an object ${refused}`,
    }));
  if (states.length) arms.push({ weight: 2, arbitrary: inState(fc.constantFrom(...states)) });
  if (info.idempotencyHeader) {
    arms.push({
      weight: 1,
      arbitrary: validRequest.map((r) => ({
        ...r,
        label: `${r.label}, idempotency-key of 256`,
        idempotencyKey: "k".repeat(256),
      })),
    });
  }
  const pinned: fc.Arbitrary<DiffRequest>[] = [
    validRequest.map((r) => ({ ...r, key: "unknown" as const, label: `${r.label}, key unknown` })),
    validRequest.map((r) => ({ ...r, key: "none" as const, label: `${r.label}, key none` })),
    ...(breakers ?? []).map((make) => make(valid).map((v) => base(v.label, { body: v.body }))),
  ];
  pinned.push(...states.map((state) => inState(fc.constant(state))));
  if (info.idKind)
    pinned.push(validRequest.map((r) => ({ ...r, id: "unknown" as const, label: `${r.label}, unknown id` })));
  if (info.query.some((p) => p.name === "startingAfter")) {
    pinned.push(
      fc.constant(base("startingAfter names no item", { query: { startingAfter: "xyz_naoexiste0000" } })),
      fc.constant(base("startingAfter empty", { query: { startingAfter: "" } })),
      fc.constant(base("startingAfter unencoded", { rawQuery: "startingAfter=a/b" })),
      fc.constant(base("an undeclared parameter", { query: { naoDeclarado: "1" } })),
    );
  }
  if (info.operationId === "createWithdrawal") {
    pinned.push(
      validRequest.map((r) => ({
        ...r,
        label: "valid, the largest amount",
        body: { ...(r.body as Body), amountCents: 999_999_999_999 },
      })),
      // The balance covers it, so every seed has a withdrawal the server accepts.
      validRequest.map((r) => ({
        ...r,
        label: "valid, the smallest amount",
        body: { ...(r.body as Body), amountCents: 600 },
      })),
    );
  }
  return { requests: fc.oneof(...arms), pinned };
}
