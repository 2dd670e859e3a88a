import fc from "fast-check";
import { type ApiDocument, type OperationInfo, type Parameter, type Schema, schemaName } from "./document.js";
import { freshChargeCents, futureInstant, pastInstant, recurringChargeCents, validCpf, validValue } from "./values.js";

// The one request generator from the document, shared by the differential contract suite and the
// fuzzer (server/test/fuzz/): for each operation, valid values drawn from its request schema and
// parameters (./values.ts), boundary values read from the schema (lengths, minimums, maximums),
// mutations (a field removed, a wrong type, an extra field, numbers out of bounds, parameters out
// of range), values the schema accepts and a server rule refuses, with and without a key. The
// differential suite sends each request to the mock and a server; the fuzzer adds its own
// wire-level damage (malformed JSON, odd encodings, respelled paths) before sending it.

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

/** One generated request, before it is addressed to a target. */
export interface GeneratedRequest {
  operationId: string;
  /** What the generator meant it to be, for the failure message. */
  label: string;
  /**
   * Which credentials. With an API key: every permission (`full`), none sent (`absent`), a
   * well-formed key nobody issued (`unknown`), or no permission (`none`). With a session (the
   * dashboard): a session with its CSRF token, no session, a session nobody opened, a session of
   * the least role (a viewer, whom the operation's `x-roles` may leave out), or the session without
   * its CSRF token (`no-csrf`, only for the operations that need one).
   */
  key: "full" | "absent" | "unknown" | "none" | "no-csrf";
  /** The values of the path's parameters other than `{id}` (the dashboard's `{mode}`). */
  pathValues?: Record<string, string>;
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

// ---- boundaries and mutations of a body ----

interface Leaf {
  path: string[];
  schema: Schema;
  required: boolean;
}

/** The leaves of a request schema with their places (only the properties a body may hold). */
function leaves(document: ApiDocument, schema: Schema, path: string[] = [], required = true): Leaf[] {
  const s = document.resolveSchema(schema);
  if (s.type === "object" && s.properties) {
    return [
      { path, schema: s, required },
      ...Object.entries(s.properties).flatMap(([key, prop]) =>
        leaves(document, prop, [...path, key], s.required?.includes(key) ?? false),
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
function bodyVariants(document: ApiDocument, schema: Schema, valid: fc.Arbitrary<unknown>): fc.Arbitrary<BodyVariant> {
  const all = leaves(document, schema);
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

function queryValid(
  document: ApiDocument,
  params: Parameter[],
): fc.Arbitrary<{ query: Record<string, string>; existing: boolean }> {
  // An instant filter on either side of the servers' clock, so that filtered pages hold items too.
  const value = (p: Parameter) =>
    document.resolveSchema(p.schema).format === "date-time"
      ? fc.oneof(pastInstant, futureInstant)
      : validValue(document, p.schema);
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

function queryVariants(
  document: ApiDocument,
  params: Parameter[],
): fc.Arbitrary<{ label: string; query: Record<string, string> }> {
  const out: Array<{ label: string; query: Record<string, string> }> = [];
  for (const p of params) {
    const s = document.resolveSchema(p.schema);
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
  createDueDateCharge: [
    (valid) =>
      valid.map((b) => {
        const body = b as Body;
        return {
          label: "a discount date after the due date",
          body: {
            ...body,
            discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: "2031-12-31", amountCents: 100 }] },
          },
        };
      }),
    (valid) =>
      valid.map((b) => ({
        label: "a fine's amount in the PERCENTAGE mode",
        body: { ...(b as Body), fine: { mode: "PERCENTAGE", amountCents: 100 } },
      })),
    (valid) => valid.map((b) => ({ label: "a due date in the past", body: { ...(b as Body), dueDate: "2020-01-06" } })),
    (valid) =>
      valid.map((b) => {
        const body = b as Body;
        const { rebate: _rebate, ...rest } = body;
        const before = new Date(Date.parse(`${String(body.dueDate)}T00:00:00Z`) - 5 * 86_400_000).toISOString();
        return {
          label: "the smallest amount due below the plan's fee",
          body: {
            ...rest,
            amountCents: 500,
            discount: { mode: "AMOUNT_UNTIL_DATES", dates: [{ date: before.slice(0, 10), amountCents: 450 }] },
          },
        };
      }),
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
  createRecurrence: [
    (valid) =>
      valid.map((b) => {
        const body = b as Body;
        return {
          label: "payer.document with a wrong check digit",
          body: { ...body, payer: { ...body.payer, document: badCheckDigits(body.payer.document) } },
        };
      }),
    (valid) =>
      valid.map((b) => {
        const body = b as Body;
        const documentType = body.payer.documentType === "CPF" ? "CNPJ" : "CPF";
        return {
          label: "payer.documentType not the document's",
          body: { ...body, payer: { ...body.payer, documentType } },
        };
      }),
    (valid) =>
      fc
        .tuple(valid, pastInstant)
        .map(([b, expiresAt]) => ({ label: "expiresAt in the past", body: { ...(b as Body), expiresAt } })),
    (valid) =>
      valid.map((b) => ({
        label: "firstDate before today",
        body: { ...(b as Body), firstDate: "2020-01-01", lastDate: undefined },
      })),
    (valid) =>
      valid.map((b) => ({ label: "lastDate before firstDate", body: { ...(b as Body), lastDate: "2029-12-31" } })),
    (valid) =>
      valid.map((b) => ({
        label: "amountCents and minimumAmountCents together",
        body: { ...(b as Body), amountCents: 5000, minimumAmountCents: 5000, automaticCharges: false },
      })),
    (valid) =>
      valid.map((b) => ({
        label: "automaticCharges without amountCents",
        body: { ...(b as Body), amountCents: undefined, minimumAmountCents: undefined, automaticCharges: true },
      })),
    (valid) =>
      valid.map((b) => ({
        label: "initialPayment with JOURNEY_2",
        body: { ...(b as Body), journey: "JOURNEY_2", initialPayment: { amountCents: 5000 } },
      })),
    (valid) =>
      valid.map((b) => ({
        label: "JOURNEY_3 without initialPayment",
        body: { ...(b as Body), journey: "JOURNEY_3", initialPayment: undefined },
      })),
  ],
  createRecurringCharge: [
    (valid) =>
      fc
        .tuple(
          valid,
          fc.integer({ min: 500, max: 999_999_999_999 }).filter((n) => n !== recurringChargeCents),
        )
        .map(([b, amountCents]) => ({
          label: "amountCents other than the fixed amount",
          body: { ...(b as Body), amountCents },
        })),
  ],
  simulateRecurringAttempt: [
    (valid) =>
      valid.map(() => ({ label: "reasonCode with outcome PAID", body: { outcome: "PAID", reasonCode: "AM04" } })),
  ],
  createWithdrawal: [
    (valid) =>
      fc.tuple(valid, fc.constantFrom("nao-e-chave", "11", "maria@", "+1 555 0100")).map(([b, pixKey]) => ({
        label: "pixKey not in the form of its pixKeyType",
        body: { ...(b as Body), pixKey },
      })),
  ],
};

// ---- path parameters other than the id ----

/** Valid values of the path's parameters other than `{id}` (`{mode}`: `test` or `production`), or null without any. */
function pathValues(document: ApiDocument, params: Parameter[]): fc.Arbitrary<Record<string, string>> | null {
  if (params.length === 0) return null;
  return fc.record(
    Object.fromEntries(params.map((p) => [p.name, validValue(document, p.schema).map((v) => String(v))])),
  ) as fc.Arbitrary<Record<string, string>>;
}

/** Values of a path parameter its schema refuses: another word than its values, one character too many. */
function pathVariants(
  document: ApiDocument,
  params: Parameter[],
): Array<{ label: string; values: Record<string, string> }> {
  return params.flatMap((p) => {
    const s = document.resolveSchema(p.schema);
    return [
      ...(s.enum
        ? [
            {
              label: `${p.name} not one of its values`,
              values: { [p.name]: s.enum.includes("live") ? "outro" : "live" },
            },
          ]
        : []),
      ...(s.maxLength !== undefined
        ? [{ label: `${p.name} at maxLength + 1`, values: { [p.name]: "a".repeat(s.maxLength + 1) } }]
        : []),
    ];
  });
}

// ---- one operation ----

const freshKey = fc.stringMatching(/^[a-zA-Z0-9-]{8,40}$/);

/** Every kind of request for one operation: mostly valid, then boundaries, mutations and keys. */
export function requestsFor(info: OperationInfo): {
  requests: fc.Arbitrary<GeneratedRequest>;
  /** One request of each kind a known difference is about: run first, so every run meets them all. */
  pinned: fc.Arbitrary<GeneratedRequest>[];
} {
  const { document } = info;
  const valid = info.body ? validValue(document, info.body, schemaName(info.body) ?? "") : fc.constant(undefined);
  const query = queryValid(document, info.query);
  const idempotency = info.idempotencyHeader ? fc.option(freshKey, { nil: undefined }) : fc.constant(undefined);
  const base = (label: string, extra: Partial<GeneratedRequest> = {}): GeneratedRequest => ({
    operationId: info.operationId,
    label,
    key: info.keyless ? "absent" : "full",
    query: {},
    ...(info.idKind ? { id: "existing" as const } : {}),
    ...extra,
  });
  const withoutPath = fc.tuple(valid, query, idempotency).map(([body, q, idem]) =>
    base("valid", {
      query: q.query,
      ...(q.existing ? { startingAfterExisting: true } : {}),
      ...(body === undefined ? {} : { body }),
      ...(idem === undefined ? {} : { idempotencyKey: idem }),
    }),
  );
  const pathValid = pathValues(document, info.pathParams);
  const validRequest = pathValid
    ? fc.tuple(withoutPath, pathValid).map(([r, values]) => ({ ...r, pathValues: values }))
    : withoutPath;
  const keyVariants: GeneratedRequest["key"][] = [
    "absent",
    "unknown",
    "none",
    ...(info.csrf ? ["no-csrf" as const] : []),
  ];
  const arms: Array<{ weight: number; arbitrary: fc.Arbitrary<GeneratedRequest> }> = [
    { weight: 4, arbitrary: validRequest },
    // Keys: none sent (anything), a well-formed key nobody issued, a key without permission (the
    // probes answer whatever key is sent).
    {
      weight: 2,
      arbitrary: fc
        .tuple(validRequest, fc.constantFrom(...keyVariants))
        .map(([r, key]) => ({ ...r, key, label: `${r.label}, key ${key}` })),
    },
  ];
  if (info.body) {
    const variant = bodyVariants(document, info.body, valid);
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
    arms.push({
      weight: 3,
      arbitrary: queryVariants(document, info.query).map((v) => base(v.label, { query: v.query })),
    });
    const text = info.query.filter((p) => {
      const s = document.resolveSchema(p.schema);
      return s.type === "string" && !s.enum;
    });
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
  const pathWrong = pathVariants(document, info.pathParams);
  const wrongPath = pathWrong.length
    ? fc
        .tuple(validRequest, fc.constantFrom(...pathWrong))
        .map(([r, v]) => ({ ...r, pathValues: { ...r.pathValues, ...v.values }, label: `${r.label}, ${v.label}` }))
    : null;
  if (wrongPath) arms.push({ weight: 1, arbitrary: wrongPath });
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
  const pinned: fc.Arbitrary<GeneratedRequest>[] = [
    validRequest.map((r) => ({ ...r, key: "unknown" as const, label: `${r.label}, key unknown` })),
    validRequest.map((r) => ({ ...r, key: "none" as const, label: `${r.label}, key none` })),
    ...(info.csrf
      ? [validRequest.map((r) => ({ ...r, key: "no-csrf" as const, label: `${r.label}, no CSRF token` }))]
      : []),
    ...(breakers ?? []).map((make) => make(valid).map((v) => base(v.label, { body: v.body }))),
  ];
  pinned.push(...states.map((state) => inState(fc.constant(state))));
  if (wrongPath) pinned.push(wrongPath);
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
