import { readFileSync } from "node:fs";
import { dirname, join, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { parse } from "yaml";
import { checkResponse, type DocumentParameter } from "../../../contract-tests/support/openapi.js";
import { arbitraryFor, type Resolve, type Schema } from "./schema-arbitrary.js";

// A seeded, spec-driven fuzzer: every request is generated from `generated/openapi.yaml` (valid
// values from each operation's schemas, then boundary values and mutations), sent over real HTTP,
// and every answer is checked: no 5xx, a status the document declares for the operation, and a
// body valid against that status's schema. The checkout's POSTs (HTML forms, outside the
// document) are fuzzed too, and must never answer 5xx.

const root = resolvePath(dirname(fileURLToPath(import.meta.url)), "../../..");

type Parameter = DocumentParameter<Schema>;

interface Operation {
  id: string;
  method: "get" | "post" | "patch";
  path: string;
  parameters: Parameter[];
  body: Schema | null;
  examples: unknown[];
}

const document = parse(readFileSync(join(root, "generated/openapi.yaml"), "utf8")) as Schema;

const resolveRef: Resolve = (ref) => {
  const parts = ref.replace(/^#\//, "").split("/");
  let node: unknown = document;
  for (const part of parts) node = (node as Schema)[part];
  if (!node) throw new Error(`unresolved ${ref}`);
  return node as Schema;
};

/** Every operation of the public document. */
const operations: Operation[] = Object.entries(document.paths as Record<string, Schema>).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ["get", "post", "patch"].includes(method))
    .map(([method, op]: [string, Schema]) => {
      const content = op.requestBody?.content?.["application/json"];
      return {
        id: op.operationId as string,
        method: method as Operation["method"],
        path,
        parameters: ((op.parameters ?? []) as Schema[]).map((p) => (p.$ref ? resolveRef(p.$ref) : p)) as Parameter[],
        body: (content?.schema as Schema | undefined) ?? null,
        examples: Object.values((content?.examples ?? {}) as Record<string, { value: unknown }>).map((e) => e.value),
      };
    }),
);

/** What a fuzz run talks to: a server and what it already holds. */
export interface FuzzTarget {
  name: string;
  baseUrl: string;
  keys: { test: string; live: string | null; readOnly: string };
  /** Ids by prefix (`txn`, `plk`, `cus`, `wdr`), grown with every id a response carries. */
  ids: Map<string, string[]>;
}

interface FuzzFailure {
  request: FuzzRequest;
  status: number;
  problems: string[];
  body: unknown;
}

export interface FuzzReport {
  target: string;
  seed: number;
  /** The `requests` asked for (the replay argument); `sent` adds the checkout POSTs. */
  requests: number;
  sent: number;
  statuses: Record<string, number>;
  failures: FuzzFailure[];
}

/** One generated request, before ids are filled in (so the same seed gives the same requests). */
interface FuzzRequest {
  operation: string;
  method: string;
  /** Path with `{id}` placeholders resolved at send time from the target's ids. */
  path: string;
  idChoice: number;
  query: string;
  key: "test" | "live" | "readOnly" | "none" | "garbage";
  headers: Record<string, string>;
  body: string | undefined;
}

/** `arbitrary` one time in `outOf`, null otherwise. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, outOf: number): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: outOf - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });

const weirdStrings = [
  "",
  " ",
  "\u0000",
  "\ud800",
  "a\udfffb",
  "👕",
  "x".repeat(300),
  "0000-01-01T00:00:00Z",
  "2016-12-31T23:59:60Z",
  "9999-12-31T23:59:59.999999999Z",
  "2026-02-30T00:00:00Z",
  "1e309",
  "-1",
  "__proto__",
  "constructor",
  "../..",
  "%00",
  "<script>",
  "' OR 1=1 --",
];
const weirdValues: unknown[] = [
  ...weirdStrings,
  null,
  true,
  0,
  -1,
  0.5,
  499,
  500,
  600,
  999_999_999_999,
  1_000_000_000_000,
  2 ** 31,
  2 ** 53,
  1e308,
  -1e308,
  [],
  {},
  [1, "a", null],
  { a: { b: { c: {} } } },
];

const deep = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

type Mutation =
  | { kind: "none" }
  | { kind: "drop"; pick: number }
  | { kind: "replace"; pick: number; value: unknown }
  | { kind: "extra"; name: string; value: unknown }
  | { kind: "deep"; pick: number; levels: number }
  | { kind: "whole"; value: unknown }
  | { kind: "taint"; pick: number; text: string };

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 14, arbitrary: fc.constant({ kind: "none" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("drop" as const), pick: fc.nat() }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("replace" as const),
      pick: fc.nat(),
      value: fc.oneof(fc.constantFrom(...weirdValues), fc.jsonValue({ maxDepth: 2 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("extra" as const),
      name: fc.oneof(fc.constantFrom("__proto__", "extra", "ok", "id"), fc.string({ maxLength: 8 })),
      value: fc.jsonValue({ maxDepth: 1 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("deep" as const), pick: fc.nat(), levels: fc.constantFrom(30, 33, 200) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("whole" as const), value: fc.jsonValue({ maxDepth: 3 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("taint" as const),
      pick: fc.nat(),
      text: fc.constantFrom("\u0000", "\ud800", "\udfff", "👕", "\u202e", "\ufeff"),
    }),
  },
);

/** Every container-held place of a JSON value, as [parent, key] pairs. */
function places(value: unknown): [Record<string, unknown> | unknown[], string | number][] {
  const out: [Record<string, unknown> | unknown[], string | number][] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        out.push([v, i]);
        stack.push(item);
      });
    } else if (v !== null && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) {
        out.push([v as Record<string, unknown>, k]);
        stack.push(item);
      }
    }
  }
  return out;
}

function mutate(value: unknown, mutation: Mutation): unknown {
  const copy = value === undefined ? undefined : structuredClone(value);
  const all = places(copy);
  const at = (pick: number) => all[pick % Math.max(all.length, 1)];
  switch (mutation.kind) {
    case "none":
      return copy;
    case "whole":
      return mutation.value;
    case "taint": {
      // One character more in one string (a key or a value), the rest left valid.
      const strings = all.filter(
        ([parent, key]) => typeof (parent as Record<string | number, unknown>)[key] === "string",
      );
      const place = strings[mutation.pick % Math.max(strings.length, 1)];
      if (!place) return copy;
      const [parent, key] = place;
      const holder = parent as Record<string | number, unknown>;
      holder[key] = `${String(holder[key])}${mutation.text}`;
      if (mutation.pick % 4 === 0 && !Array.isArray(parent)) {
        holder[`${String(key)}${mutation.text}`] = holder[key];
        delete holder[key];
      }
      return copy;
    }
    case "extra":
      if (copy !== null && typeof copy === "object" && !Array.isArray(copy)) {
        Object.defineProperty(copy, mutation.name, { value: mutation.value, enumerable: true, writable: true });
      }
      return copy;
    case "drop": {
      const place = at(mutation.pick);
      if (place) {
        const [parent, key] = place;
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete parent[key as string];
      }
      return copy;
    }
    case "replace":
    case "deep": {
      const place = at(mutation.pick);
      const replacement = mutation.kind === "deep" ? deep(mutation.levels) : mutation.value;
      if (!place) return replacement;
      const [parent, key] = place;
      (parent as Record<string | number, unknown>)[key] = replacement;
      return copy;
    }
  }
}

type RawBody =
  | { kind: "json" }
  | { kind: "malformed"; text: string }
  | { kind: "text-plain" }
  | { kind: "huge" }
  | { kind: "empty" };

const rawBodyArbitrary: fc.Arbitrary<RawBody> = fc.oneof(
  { weight: 20, arbitrary: fc.constant({ kind: "json" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("malformed" as const),
      text: fc.constantFrom("{", "[", '{"a":}', "nul", "'x'", '{"a":1}}', "\u0000", '"\\ud800"', "1e999999"),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "text-plain" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "huge" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "empty" as const }) },
);

const loneSurrogate = /([\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])/;

/** `encodeURIComponent`, except that a lone surrogate goes as its (invalid) UTF-8-style bytes. */
const encode = (text: string) =>
  text
    .split(loneSurrogate)
    .map((part, i) =>
      i % 2 === 1
        ? Buffer.from([
            0xe0 | (part.charCodeAt(0) >> 12),
            0x80 | ((part.charCodeAt(0) >> 6) & 0x3f),
            0x80 | (part.charCodeAt(0) & 0x3f),
          ])
            .toString("hex")
            .replace(/../g, "%$&")
        : encodeURIComponent(part),
    )
    .join("");

/** A query value as it goes on the wire: encoded, or raw with RFC 3986 reserved characters. */
const queryText = (value: unknown, raw: boolean) => {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return raw
    ? text
        .replace(/[&#%\s]/g, (c) => encode(c))
        .replaceAll("\u0000", "%00")
        .toWellFormed()
    : encode(text);
};

function queryArbitrary(op: Operation): fc.Arbitrary<string> {
  const params = op.parameters.filter((p) => p.in === "query");
  const pairs = params.map((p) =>
    sometimes(
      fc.tuple(
        fc.oneof(
          { weight: 6, arbitrary: arbitraryFor(p.schema, resolveRef) },
          { weight: 1, arbitrary: fc.constantFrom(...weirdValues) },
        ),
        fc.boolean(),
        fc.oneof({ weight: 9, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) }),
      ),
      3,
    ),
  );
  const unknown = sometimes(fc.constantFrom("foo=1", "limit[]=1", "a=%00", "__proto__=x", "LIMIT=5"), 15);
  return fc.tuple(fc.tuple(...pairs), unknown).map(([values, extra]) => {
    const parts: string[] = [];
    values.forEach((v, i) => {
      if (v === null) return;
      const [value, raw, times] = v;
      for (let n = 0; n < times; n++) parts.push(`${params[i]!.name}=${queryText(value, raw)}`);
    });
    if (extra) parts.push(extra);
    return parts.length ? `?${parts.join("&")}` : "";
  });
}

const garbageIds = [
  "txn_doesnotexist",
  "%00",
  "txn_%00",
  "%ED%A0%80",
  "a%2Fb",
  "..",
  "x".repeat(70),
  "%E0%A4%A",
  "%20",
];

/** Another spelling of a route (it must be the same route's 404, never served around auth or limits). */
function respell(path: string, spelling: "upper" | "capitalised" | "trailing-slash" | null): string {
  const words = (f: (w: string) => string) => path.replace(/(?<=\/)[a-z-]+(?=\/|$)/g, f);
  if (spelling === "upper") return words((w) => w.toUpperCase());
  if (spelling === "capitalised") return words((w) => w.charAt(0).toUpperCase() + w.slice(1));
  if (spelling === "trailing-slash") return `${path}/`;
  return path;
}

function requestArbitrary(op: Operation): fc.Arbitrary<FuzzRequest> {
  const body = op.body
    ? fc.oneof(
        { weight: 3, arbitrary: arbitraryFor(op.body, resolveRef) },
        ...(op.examples.length ? [{ weight: 2, arbitrary: fc.constantFrom(...op.examples) }] : []),
      )
    : fc.constant(undefined);
  const idempotency = op.parameters.some((p) => p.in === "header" && p.name === "idempotency-key")
    ? sometimes(fc.oneof(fc.uuid(), fc.constantFrom("k", "same-key", "x".repeat(300))), 2)
    : fc.constant(null);
  return fc
    .record({
      idChoice: fc.nat(),
      garbageId: sometimes(fc.constantFrom(...garbageIds), 10),
      spelling: sometimes(fc.constantFrom("upper" as const, "capitalised" as const, "trailing-slash" as const), 25),
      query: queryArbitrary(op),
      key: fc.constantFrom<FuzzRequest["key"][]>(
        "test",
        "test",
        "test",
        "test",
        "test",
        "test",
        "live",
        "readOnly",
        "none",
        "garbage",
      ),
      body,
      mutation: mutationArbitrary,
      raw: op.method === "get" ? fc.constant({ kind: "json" } as RawBody) : rawBodyArbitrary,
      idempotency,
    })
    .map((r) => {
      const headers: Record<string, string> = {};
      if (r.idempotency !== null) headers["idempotency-key"] = r.idempotency;
      let text: string | undefined;
      if (op.method !== "get") {
        const value = mutate(r.body, r.mutation);
        const json = value === undefined ? undefined : JSON.stringify(value);
        switch (r.raw.kind) {
          case "json":
            text = json;
            if (text !== undefined) headers["content-type"] = "application/json";
            break;
          case "malformed":
            text = r.raw.text;
            headers["content-type"] = "application/json";
            break;
          case "text-plain":
            text = json ?? "hello";
            headers["content-type"] = "text/plain";
            break;
          case "huge":
            text = JSON.stringify({ ...(typeof value === "object" && value ? value : {}), pad: "x".repeat(70_000) });
            headers["content-type"] = "application/json";
            break;
          case "empty":
            text = "";
            headers["content-type"] = "application/json";
            break;
        }
      }
      return {
        operation: op.id,
        method: op.method.toUpperCase(),
        path: respell(r.garbageId === null ? op.path : op.path.replace(/\{[^}]+\}/, r.garbageId), r.spelling),
        idChoice: r.idChoice,
        query: r.query,
        key: r.key,
        headers,
        body: text,
      };
    });
}

/** The requests of one seed, in order: the same seed always gives the same list. */
function generateRequests(seed: number, count: number): FuzzRequest[] {
  const arbitrary = fc.oneof(...operations.map((op) => requestArbitrary(op)));
  return fc.sample(arbitrary, { seed, numRuns: count });
}

const idPrefix = (path: string) =>
  path.includes("/customers/")
    ? "cus"
    : path.includes("/payment-links/")
      ? "plk"
      : path.includes("/withdrawals/")
        ? "wdr"
        : "txn";

/** Remembers every id a response carries, so later requests can name real objects. */
function harvest(ids: Map<string, string[]>, body: unknown): void {
  for (const [parent, key] of places(body)) {
    const v = (parent as Record<string | number, unknown>)[key];
    if (key !== "id" || typeof v !== "string") continue;
    const prefix = v.split("_")[0] ?? "";
    const list = ids.get(prefix) ?? [];
    if (!list.includes(v)) list.push(v);
    if (list.length > 50) list.shift();
    ids.set(prefix, list);
  }
}

/** The URL path a request goes to, its `{id}` filled from the target's ids. */
function concretePath(target: FuzzTarget, request: FuzzRequest): string {
  return request.path.replace(/\{[^}]+\}/, () => {
    const pool = target.ids.get(idPrefix(request.path)) ?? [];
    const other = [...target.ids.values()].flat();
    const choice = request.idChoice % 10;
    if (choice < 7 && pool.length > 0) return pool[request.idChoice % pool.length]!;
    if (choice < 9 && other.length > 0) return other[request.idChoice % other.length]!;
    return `${idPrefix(request.path)}_${String(request.idChoice).padStart(12, "0")}`;
  });
}

async function send(target: FuzzTarget, request: FuzzRequest): Promise<FuzzFailure | { status: number }> {
  const headers: Record<string, string> = { ...request.headers };
  const secret =
    request.key === "garbage"
      ? "sk_test_doesnotexist000000000000"
      : request.key === "none"
        ? null
        : request.key === "live"
          ? target.keys.live
          : target.keys[request.key];
  if (secret) headers["x-api-key"] = secret;
  const path = `${concretePath(target, request)}${request.query}`;
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${target.baseUrl}${path}`, { method: request.method, headers, body: request.body });
    text = await res.text();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      request: { ...request, path },
      status: 0,
      problems: [`no answer: ${cause?.code ?? cause?.message ?? String(error)}`],
      body: null,
    };
  }
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    return { request: { ...request, path }, status: res.status, problems: ["the body is not JSON"], body: text };
  }
  if (res.ok) harvest(target.ids, body);
  const problems = checkResponse(request.operation, res.status, res.headers, body);
  if (res.status >= 500) problems.unshift(`server error ${res.status}`);
  return problems.length > 0
    ? { request: { ...request, path }, status: res.status, problems, body }
    : { status: res.status };
}

/** One checkout POST: the payer's form on a link page, or the test-mode "simulate" button. */
interface CheckoutRequest {
  kind: "form" | "simulate";
  idChoice: number;
  fields: [string, string][];
  contentType: string;
}

const checkoutStatuses = new Set([200, 303, 400, 403, 404, 405, 410, 413, 415, 422, 429]);

function checkoutArbitrary(): fc.Arbitrary<CheckoutRequest> {
  const fieldName = fc.constantFrom("name", "email", "document", "phone", "csrf", "submission", "amountCents", "x");
  const fieldValue = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom(...weirdStrings));
  return fc.record({
    kind: fc.constantFrom("form" as const, "simulate" as const),
    idChoice: fc.nat(),
    fields: fc.array(fc.tuple(fieldName, fieldValue), { maxLength: 8 }),
    contentType: fc.constantFrom(
      "application/x-www-form-urlencoded",
      "application/x-www-form-urlencoded",
      "application/json",
      "text/plain",
    ),
  });
}

async function sendCheckout(target: FuzzTarget, request: CheckoutRequest): Promise<FuzzFailure | { status: number }> {
  const links = target.ids.get("plk") ?? ["plk_none"];
  const charges = target.ids.get("txn") ?? ["txn_none"];
  const link = links[request.idChoice % links.length]!;
  const path =
    request.kind === "form"
      ? `/checkout/${link}`
      : `/checkout/${link}/t/${charges[request.idChoice % charges.length]!}/simulate`;
  const body = new URLSearchParams(request.fields).toString();
  const res = await fetch(`${target.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": request.contentType },
    body,
    redirect: "manual",
  });
  await res.arrayBuffer();
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`server error ${res.status}`);
  else if (!checkoutStatuses.has(res.status)) problems.push(`unexpected checkout status ${res.status}`);
  const asRequest: FuzzRequest = {
    operation: "checkout",
    method: "POST",
    path,
    idChoice: request.idChoice,
    query: "",
    key: "none",
    headers: { "content-type": request.contentType },
    body,
  };
  return problems.length > 0
    ? { request: asRequest, status: res.status, problems, body: null }
    : { status: res.status };
}

/**
 * Sends `requests` generated requests from `seed` to the target (a few at a time), plus one
 * checkout POST for every 20 of them, and reports every answer that breaks the contract.
 */
export async function fuzz(
  target: FuzzTarget,
  options: { seed: number; requests: number; concurrency?: number },
): Promise<FuzzReport> {
  const api = generateRequests(options.seed, options.requests);
  const checkout = fc.sample(checkoutArbitrary(), {
    seed: options.seed,
    numRuns: Math.max(1, Math.floor(options.requests / 20)),
  });
  const jobs: (() => Promise<FuzzFailure | { status: number }>)[] = [...api.map((r) => () => send(target, r))];
  checkout.forEach((r, i) => jobs.splice(Math.min(jobs.length, (i + 1) * 21), 0, () => sendCheckout(target, r)));
  const report: FuzzReport = {
    target: target.name,
    seed: options.seed,
    requests: options.requests,
    sent: jobs.length,
    statuses: {},
    failures: [],
  };
  const concurrency = options.concurrency ?? 4;
  for (let i = 0; i < jobs.length; i += concurrency) {
    const results = await Promise.all(jobs.slice(i, i + concurrency).map((job) => job()));
    for (const result of results) {
      report.statuses[result.status] = (report.statuses[result.status] ?? 0) + 1;
      if ("problems" in result) report.failures.push(result);
    }
  }
  return report;
}

/** A readable account of a report's failures (at most `limit`), with the seed to replay them. */
export function describeFailures(report: FuzzReport, limit = 10): string {
  const lines = [
    `fuzz ${report.target}: ${report.failures.length} of ${report.sent} requests broke the contract ` +
      `(replay: npm run fuzz -- --seed ${report.seed} --requests ${report.requests})`,
  ];
  for (const f of report.failures.slice(0, limit)) {
    lines.push(
      `- ${f.request.method} ${f.request.path} [key ${f.request.key}] → ${f.status}: ${f.problems.slice(0, 3).join("; ")}`,
      `  headers ${JSON.stringify(f.request.headers)} body ${JSON.stringify(f.request.body?.slice(0, 300))}`,
      `  answer ${JSON.stringify(f.body).slice(0, 300)}`,
    );
  }
  return lines.join("\n");
}
