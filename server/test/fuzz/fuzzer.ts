import fc from "fast-check";
import { apiDocument, type DocumentName, type OperationInfo } from "../../../contract-tests/support/document.js";
import { parseBody, responseChecker } from "../../../contract-tests/support/openapi.js";
import { type GeneratedRequest, requestsFor } from "../../../contract-tests/support/requests.js";
import {
  garbageIds,
  mutate,
  mutationArbitrary,
  places,
  queryText,
  type RawBody,
  rawBodyArbitrary,
  respell,
  sometimes,
  weirdStrings,
  weirdValues,
} from "./damage.js";

// A seeded, spec-driven fuzzer of one of the service's documents (the public API, the merchant
// dashboard): every request comes from the request generator the differential contract suite uses
// (contract-tests/support/requests.ts: valid values from each operation's schemas and path
// parameters, boundary values, mutations, rule breakers, credentials and ids), damaged further
// here (./damage.ts: odd values, malformed bodies, odd encodings, garbage ids), sent over real
// HTTP, and every answer is checked: no 5xx, a status the document declares for the operation, a
// content type it declares, and a body valid against that status's schema. With the public
// document, the checkout's POSTs (HTML forms, outside the document) are fuzzed too, and must
// never answer 5xx.

/** The credentials a fuzz request goes with (what each means is the target's: see `FuzzTarget.headers`). */
export type FuzzCredential = "test" | "live" | "readOnly" | "none" | "garbage" | "noCsrf";

/** What a fuzz run talks to: a server, the document it fuzzes, and what the server already holds. */
export interface FuzzTarget {
  name: string;
  baseUrl: string;
  document: DocumentName;
  /**
   * The headers of each credential. With API keys: a test key of every permission, a production
   * key, a read-only key, none, a key nobody issued. With sessions: an owner's session and its CSRF
   * token (`test`, `live`), a viewer's (`readOnly`), none, a session nobody opened, the owner's
   * session without its token (`noCsrf`).
   */
  headers(credential: FuzzCredential): Record<string, string>;
  /**
   * Called when a session the target gave answers 401 (a generated log-out, a session ended):
   * opens it again, so the rest of the run is not all 401s.
   */
  renew?(credential: FuzzCredential): Promise<void>;
  /** Fuzz the checkout's HTML forms too (the public API's target). */
  checkout: boolean;
  /** Ids by prefix (`txn`, `plk`, `cus`, `wdr`, `ses`), grown with every id a response carries. */
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
  /** The document fuzzed (`npm run fuzz`'s `--document`). */
  document: DocumentName;
  seed: number;
  /** The `requests` asked for (the replay argument); `sent` adds the checkout POSTs. */
  requests: number;
  sent: number;
  /** Requests sent a second time after a connection reset with no answer (see `send`). */
  retriedAfterReset: number;
  statuses: Record<string, number>;
  failures: FuzzFailure[];
}

/** One generated request, before ids are filled in (so the same seed gives the same requests). */

/** One generated request, before ids are filled in (so the same seed gives the same requests). */
interface FuzzRequest {
  operation: string;
  /** What the shared generator made (`valid`, `amountCents at maximum + 1`, …). */
  label: string;
  method: string;
  /** Path with `{id}` placeholders resolved at send time from the target's ids. */
  path: string;
  /** The prefix of the ids the path names: which harvested ids to draw. */
  idPrefix: string;
  idChoice: number;
  /** The `{id}` names nothing (else it is drawn from the harvested ids, mostly of its kind). */
  unknownId: boolean;
  /** A `startingAfter` cursor drawn from the harvested ids of this prefix is added at send time. */
  cursor: string | null;
  query: string;
  key: FuzzCredential;
  headers: Record<string, string>;
  body: string | undefined;
}

/** The query string of a generated request, some values swapped for odd ones, spelled raw or repeated. */
function queryArbitrary(info: OperationInfo): fc.Arbitrary<(request: GeneratedRequest) => string> {
  const damage = fc.record({
    weird: sometimes(fc.constantFrom(...weirdValues), 7),
    raw: fc.boolean(),
    times: fc.oneof({ weight: 9, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) }),
  });
  const unknown = sometimes(
    fc.constantFrom(
      "foo=1",
      "limit[]=1",
      "a=%00",
      "__proto__=x",
      "LIMIT=5",
      "__proto__%5Bpolluted%5D=1",
      "constructor%5Bprototype%5D%5Bpolluted%5D=1",
      "%5B%5D=1",
      "=1",
    ),
    15,
  );
  return fc
    .tuple(fc.array(damage, { minLength: info.query.length + 1, maxLength: info.query.length + 1 }), unknown)
    .map(([damages, extra]) => (request) => {
      const parts: string[] = [];
      Object.entries(request.query).forEach(([name, value], i) => {
        const d = damages[i % damages.length]!;
        for (let n = 0; n < d.times; n++) parts.push(`${name}=${queryText(d.weird ?? value, d.raw)}`);
      });
      if (request.rawQuery) parts.push(request.rawQuery);
      if (extra) parts.push(extra);
      return parts.length ? `?${parts.join("&")}` : "";
    });
}

/** The body as it goes on the wire: JSON, or malformed, mislabelled, huge or empty. */
function bodyText(value: unknown, raw: RawBody, headers: Record<string, string>): string | undefined {
  const json = value === undefined ? undefined : JSON.stringify(value);
  switch (raw.kind) {
    case "json":
      if (json !== undefined) headers["content-type"] = "application/json";
      return json;
    case "malformed":
      headers["content-type"] = "application/json";
      return raw.text;
    case "text-plain":
      headers["content-type"] = "text/plain";
      return json ?? "hello";
    case "huge":
      headers["content-type"] = "application/json";
      return JSON.stringify({ ...(typeof value === "object" && value ? value : {}), pad: "x".repeat(70_000) });
    case "empty":
      headers["content-type"] = "application/json";
      return "";
  }
}

/** What the generator's keys are on a fuzz target. */
const keys: Record<Exclude<GeneratedRequest["key"], "full">, FuzzRequest["key"]> = {
  absent: "none",
  unknown: "garbage",
  none: "readOnly",
  "no-csrf": "noCsrf",
};

/** The path with its parameters other than `{id}` filled in (`{mode}`), each percent-encoded. */
const withPathValues = (path: string, values: Record<string, string> | undefined) =>
  path.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name === "id" || values?.[name] === undefined ? whole : encodeURIComponent(values[name]),
  );

function requestArbitrary(info: OperationInfo): fc.Arbitrary<FuzzRequest> {
  const { requests, pinned } = requestsFor(info);
  const generated = fc.oneof({ weight: 9, arbitrary: requests }, { weight: 1, arbitrary: fc.oneof(...pinned) });
  const prefix = info.idPrefix ?? "txn";
  return fc
    .record({
      generated,
      query: queryArbitrary(info),
      example: info.examples.length ? sometimes(fc.constantFrom(...info.examples), 3) : fc.constant(null),
      idChoice: fc.nat(),
      garbageId: sometimes(fc.constantFrom(...garbageIds), 10),
      spelling: sometimes(fc.constantFrom("upper" as const, "capitalised" as const, "trailing-slash" as const), 25),
      // The key of a request the generator sends with every permission (its other requests
      // already go without a key, with one nobody issued, or with one of no permission).
      fullKey: fc.constantFrom<FuzzRequest["key"][]>(
        "test",
        "test",
        "test",
        "test",
        "test",
        "test",
        "live",
        "readOnly",
      ),
      mutation: mutationArbitrary,
      raw: info.method === "GET" ? fc.constant<RawBody>({ kind: "json" }) : rawBodyArbitrary,
      idempotency: info.idempotencyHeader
        ? sometimes(fc.oneof(fc.uuid(), fc.constantFrom("k", "same-key", "x".repeat(300))), 2)
        : fc.constant(null),
    })
    .map((r) => {
      const request = r.generated;
      const headers: Record<string, string> = {};
      const idempotencyKey = r.idempotency ?? request.idempotencyKey;
      if (idempotencyKey !== undefined) headers["idempotency-key"] = idempotencyKey;
      const body =
        info.method === "GET" ? undefined : bodyText(mutate(r.example ?? request.body, r.mutation), r.raw, headers);
      const tooLong = request.id === "too-long" ? `${prefix}_${"a".repeat(64 - prefix.length)}` : null;
      const garbage = r.garbageId ?? tooLong;
      return {
        operation: info.operationId,
        label: r.example === null ? request.label : "the document's example",
        method: info.method,
        path: respell(
          garbage === null
            ? withPathValues(info.path, request.pathValues)
            : withPathValues(info.path, request.pathValues).replace(/\{[^}]+\}/, garbage),
          r.spelling,
        ),
        idPrefix: prefix,
        idChoice: r.idChoice,
        unknownId: request.id === "unknown",
        cursor: request.startingAfterExisting ? (info.listedPrefix ?? null) : null,
        query: r.query(request),
        key: request.key === "full" ? r.fullKey : keys[request.key],
        headers,
        body,
      };
    });
}

/** The requests of one seed, in order: the same seed always gives the same list. */
function generateRequests(document: DocumentName, seed: number, count: number): FuzzRequest[] {
  const arbitrary = fc.oneof(...apiDocument(document).operations.map((op) => requestArbitrary(op)));
  return fc.sample(arbitrary, { seed, numRuns: count });
}

/** One generated request as it goes on the wire, without credentials. */
export interface WireRequest {
  operation: string;
  label: string;
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/**
 * The requests of one seed as they go on the wire, each `{id}` named from `ids` (or made up) and no
 * credential: the input of the request validators' differential test, which needs no server.
 */
export function wireRequests(document: DocumentName, seed: number, count: number): WireRequest[] {
  const target = { ids: new Map<string, string[]>() } as FuzzTarget;
  return generateRequests(document, seed, count).map((request) => ({
    operation: request.operation,
    label: request.label,
    method: request.method,
    path: concretePath(target, request),
    headers: request.headers,
    body: request.body,
  }));
}

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

/** The URL path and query a request goes to, its `{id}` and cursor filled from the target's ids. */
function concretePath(target: FuzzTarget, request: FuzzRequest): string {
  const pool = target.ids.get(request.idPrefix) ?? [];
  const path = request.path.replace(/\{[^}]+\}/, () => {
    const other = [...target.ids.values()].flat();
    const choice = request.idChoice % 10;
    if (!request.unknownId && choice < 7 && pool.length > 0) return pool[request.idChoice % pool.length]!;
    if (!request.unknownId && choice < 9 && other.length > 0) return other[request.idChoice % other.length]!;
    return `${request.idPrefix}_${String(request.idChoice).padStart(12, "0")}`;
  });
  const listed = request.cursor === null ? [] : (target.ids.get(request.cursor) ?? []);
  if (listed.length === 0) return `${path}${request.query}`;
  const cursor = `startingAfter=${listed[request.idChoice % listed.length]!}`;
  return `${path}${request.query ? `${request.query}&` : "?"}${cursor}`;
}

async function send(
  target: FuzzTarget,
  request: FuzzRequest,
): Promise<(FuzzFailure | { status: number }) & { retried?: boolean }> {
  const headers: Record<string, string> = { ...target.headers(request.key), ...request.headers };
  const path = concretePath(target, request);
  let res: Response | undefined;
  let text = "";
  let retried = false;
  // A connection reset before any answer is sent once more, once: a kept-alive connection the
  // server closed as the next request went out on it (seen only on a loaded machine). The retry is
  // counted in the report, and a second reset fails the request.
  for (let attempt = 1; !res; attempt++) {
    try {
      res = await fetch(`${target.baseUrl}${path}`, { method: request.method, headers, body: request.body });
      text = await res.text();
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      res = undefined;
      if (attempt === 1 && cause?.code === "ECONNRESET") {
        retried = true;
        continue;
      }
      return {
        request: { ...request, path },
        status: 0,
        problems: [`no answer: ${cause?.code ?? cause?.message ?? String(error)}`],
        body: null,
        retried,
      };
    }
  }
  const body = parseBody(res.headers, text);
  if (res.ok) harvest(target.ids, body);
  if (res.status === 401 && target.renew && ["test", "live", "readOnly", "noCsrf"].includes(request.key)) {
    await target.renew(request.key);
  }
  const problems = responseChecker(target.document).check(request.operation, res.status, res.headers, body);
  if (res.status >= 500) problems.unshift(`server error ${res.status}`);
  return problems.length > 0
    ? { request: { ...request, path }, status: res.status, problems, body, retried }
    : { status: res.status, retried };
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
    label: `checkout ${request.kind}`,
    method: "POST",
    path,
    idPrefix: "plk",
    idChoice: request.idChoice,
    unknownId: false,
    cursor: null,
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
 * Sends `requests` generated requests from `seed` to the target (a few at a time), plus, for the
 * public API, one checkout POST for every 20 of them, and reports every answer that breaks the
 * contract.
 */
export async function fuzz(
  target: FuzzTarget,
  options: { seed: number; requests: number; concurrency?: number },
): Promise<FuzzReport> {
  const api = generateRequests(target.document, options.seed, options.requests);
  const checkout = target.checkout
    ? fc.sample(checkoutArbitrary(), { seed: options.seed, numRuns: Math.max(1, Math.floor(options.requests / 20)) })
    : [];
  const jobs: (() => Promise<(FuzzFailure | { status: number }) & { retried?: boolean }>)[] = [
    ...api.map((r) => () => send(target, r)),
  ];
  checkout.forEach((r, i) => jobs.splice(Math.min(jobs.length, (i + 1) * 21), 0, () => sendCheckout(target, r)));
  const report: FuzzReport = {
    target: target.name,
    document: target.document,
    seed: options.seed,
    requests: options.requests,
    sent: jobs.length,
    statuses: {},
    failures: [],
    retriedAfterReset: 0,
  };
  const concurrency = options.concurrency ?? 4;
  for (let i = 0; i < jobs.length; i += concurrency) {
    const results = await Promise.all(jobs.slice(i, i + concurrency).map((job) => job()));
    for (const result of results) {
      report.statuses[result.status] = (report.statuses[result.status] ?? 0) + 1;
      if (result.retried) report.retriedAfterReset++;
      if ("problems" in result) report.failures.push(result);
    }
  }
  return report;
}

/** A readable account of a report's failures (at most `limit`), with the seed to replay them. */
export function describeFailures(report: FuzzReport, limit = 10): string {
  const lines = [
    `fuzz ${report.target}: ${report.failures.length} of ${report.sent} requests broke the contract ` +
      `(replay: npm run fuzz -- --seed ${report.seed} --requests ${report.requests}` +
      `${report.document === "public" ? "" : ` --document ${report.document}`}` +
      `${["memory", "postgres"].includes(report.target) ? ` --store ${report.target}` : ""})`,
  ];
  for (const f of report.failures.slice(0, limit)) {
    lines.push(
      `- ${f.request.method} ${f.request.path} (${f.request.label}) [key ${f.request.key}] → ${f.status}: ${f.problems.slice(0, 3).join("; ")}`,
      `  headers ${JSON.stringify(f.request.headers)} body ${JSON.stringify(f.request.body?.slice(0, 300))}`,
      `  answer ${JSON.stringify(f.body).slice(0, 300)}`,
    );
  }
  return lines.join("\n");
}
