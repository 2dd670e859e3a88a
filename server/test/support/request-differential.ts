import { Agent, request as httpRequest } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import { operationTable as adminTable } from "../../../generated/admin-operations.js";
import { requestValidators as adminValidators } from "../../../generated/admin-request-validators.js";
import { operationTable as dashboardTable } from "../../../generated/dashboard-operations.js";
import { requestValidators as dashboardValidators } from "../../../generated/dashboard-request-validators.js";
import { requestValidators as publicValidators } from "../../../generated/request-validators.js";
import type { OperationValidators } from "../../../generated/request-validators.js";
import { DomainError } from "../../src/domain/core/errors.js";
import { maxFieldErrors } from "../../src/domain/core/policy.js";
import { type OperationMatcher, operationMatcher, publicOperations } from "../../src/http/operations.js";
import { requestChecks } from "../../src/http/request-checks.js";
import { jsonBodies, requestValidation } from "../../src/http/request-validation.js";
import { readOpenApiDocument } from "../../src/http/kit/openapi-document.js";
import type { WireRequest } from "../fuzz/fuzzer.js";

// The differential test of the request check (../http/request-validation-differential.test.ts): our
// check (the generated validators, http/request-checks.ts) and express-openapi-validator 5.6.2,
// the independent oracle, each behind the same body parser in an app of its own, are sent the same
// requests and their verdicts compared: admitted or refused, the status, and the set of field
// paths (not the messages, which are ours). No store: the verdict is about the request alone.

type Node = Record<string, unknown>;

/** One of the service's documents, as the request check sees it. */
export interface DocumentUnderTest {
  name: "public" | "dashboard" | "admin";
  file: string;
  prefix: string;
  matcher: OperationMatcher;
  validators: Readonly<Record<string, OperationValidators>>;
  /** The dashboard reads a DELETE's body too (it declares 413/415 on its deletes). */
  deletesToo: boolean;
}

const generated = join(import.meta.dirname, "../../../generated");

export const documentsUnderTest: DocumentUnderTest[] = [
  {
    name: "public",
    file: join(generated, "openapi.yaml"),
    prefix: "/api/",
    matcher: publicOperations,
    validators: publicValidators,
    deletesToo: false,
  },
  {
    name: "dashboard",
    file: join(generated, "dashboard-openapi.yaml"),
    prefix: "/dashboard/",
    matcher: operationMatcher(dashboardTable),
    validators: dashboardValidators,
    deletesToo: true,
  },
  {
    name: "admin",
    file: join(generated, "admin-openapi.yaml"),
    prefix: "/admin/",
    matcher: operationMatcher(adminTable),
    validators: adminValidators,
    deletesToo: false,
  },
];

/**
 * The document as the oracle is given it: the published one with `allowReserved: true` on every
 * query parameter (RFC 3986 lets a query carry `:`, `/`, `?`, `@` unencoded, and our check takes
 * them; the library would refuse them otherwise), and without the examples of its media types,
 * parameters and operations (documentation, not rules: the library strips some only when it
 * validates responses, and its draft-04 Ajv reads an example's `id: cus_…` as a schema id and fails).
 */
export function oracleDocument(file: string): Node {
  const document = readOpenApiDocument(file);
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== "object") return;
    const node = value as Node;
    if (node.in === "query" && typeof node.name === "string") node.allowReserved = true;
    const withExamples = [
      ...(typeof node.in === "string" && typeof node.name === "string" ? [node] : []),
      ...Object.values((node.content as Record<string, Node> | undefined) ?? {}),
    ];
    for (const holder of withExamples) {
      delete holder.example;
      delete holder.examples;
    }
    // An operation's extensions (`x-example-requests`, …) are documentation too. Its responses
    // are no part of a request's rules (the library validates no response here), and the library
    // gives Ajv the whole of `paths` with every operation it compiles: 42 % of this file's CPU
    // went on Ajv walking the three documents' responses, about 200 times each.
    if (node.responses) {
      for (const key of Object.keys(node)) if (key.startsWith("x-")) delete node[key];
      node.responses = { default: { description: "not part of a request's rules" } };
    }
    Object.values(node).forEach(visit);
  };
  visit(document.paths);
  visit((document.components as Node | undefined)?.parameters);
  visit((document.components as Node | undefined)?.responses);
  visit((document.components as Node | undefined)?.requestBodies);
  // The document's own extensions (`x-webhooks` with its examples, the rules' numbers) are no part
  // of a request's rules.
  for (const key of Object.keys(document)) if (key.startsWith("x-")) delete document[key];
  return document;
}

/** What one side said of a request. */
export interface Verdict {
  status: number;
  /** The field paths of a 400, sorted. */
  paths: string[];
}

/** One item of the library's 400. */
interface OracleItem {
  path?: string;
  message?: string;
  errorCode?: string;
}

/**
 * Where in `body` an object holds a property named "": the seed's paths of those objects (`body`
 * for the body itself), as our check names an extra property of that name (it is no segment).
 */
function holdersOfEmptyName(body: unknown, at: string[] = []): string[] {
  if (body === null || typeof body !== "object") return [];
  const here =
    !Array.isArray(body) && Object.hasOwn(body, "") ? [at.filter((s) => s.length > 0).join(".") || "body"] : [];
  return [...here, ...Object.entries(body).flatMap(([name, value]) => holdersOfEmptyName(value, [...at, name]))];
}

/**
 * The library's items' paths as the seed's field paths: `/body/customer/document` → `customer.document`.
 * An extra property named "" loses its place in the library: it builds the path as
 * `params.additionalProperty && instancePath + "/" + …`, which is "" for that name, and `??` keeps
 * the "" over the instance path. Those items are named where the body holds that name when each
 * holder has its item (a holder may allow the name: `metadata`); otherwise they stay `body`.
 */
function oraclePaths(items: readonly OracleItem[], body: unknown): string[] {
  const placeLost = (item: OracleItem) =>
    item.path === "" && item.errorCode === "additionalProperties.openapi.validation";
  const lost = items.filter(placeLost).length;
  const holders = holdersOfEmptyName(body);
  return items.flatMap((item) => (placeLost(item) && holders.length === lost ? holders : [oraclePath(item)]));
}

/** The library's item path as the seed's field path: `/body/customer/document` → `customer.document`. */
function oraclePath(item: OracleItem): string {
  // A percent-encoding that is not UTF-8 in the URL's path: the library names the raw path.
  if (item.message === "malformed uri'") return "path";
  const raw = (item.path ?? "").replace(/^\/?(body|query|headers|path|params)(\/|$)/, "");
  const segments = raw
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .filter((s) => s.length > 0);
  return segments.join(".") || "body";
}

/** The 404 or 405 of a request no operation has (the app answers them after the check). */
function noOperation(matcher: OperationMatcher): RequestHandler {
  return (req, res) => {
    const methods = matcher.methodsFor(req.path);
    res.status(methods.length > 0 ? 405 : 404).json({ status: methods.length > 0 ? 405 : 404, paths: [] });
  };
}

const verdictOf: ErrorRequestHandler = (err, req, res, _next) => {
  const error = err as DomainError & { errors?: OracleItem[]; statusCode?: number };
  const status = error.status ?? error.statusCode ?? 500;
  // Field paths of a 400 only: the library's 415 names the route as an item too.
  const paths =
    status !== 400
      ? []
      : err instanceof DomainError
        ? (error.errors ?? []).map((e) => e.path)
        : [...new Set(oraclePaths(error.errors ?? [], req.body))];
  const verdict: Verdict = { status, paths: paths.sort() };
  res.status(status).json(verdict);
};

async function listen(app: express.Express): Promise<{ url: string; close: () => Promise<void> }> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function baseApp(document: DocumentUnderTest): express.Express {
  const app = express();
  app.set("query parser", "simple");
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  app.use(jsonBodies({ deletesToo: document.deletesToo }));
  // Both sides: an undeclared query parameter is refused by its name as sent, before anything reads
  // brackets (docs/decisions/0042-unknown-query-parameters-and-a-newcomers-first-hour.md).
  const checks = requestChecks(document.validators, document.matcher);
  app.use((req, _res, next) => {
    if (req.path.startsWith(document.prefix) && !req.path.endsWith("/")) checks.refuseUndeclaredQuery(req);
    next();
  });
  return app;
}

/** Our check: admitted when it hands the request on with its operation. */
function ourApp(document: DocumentUnderTest): express.Express {
  const app = baseApp(document);
  app.use(
    requestValidation({ load: async () => document.validators, matcher: document.matcher, prefix: document.prefix }),
  );
  app.use((_req, res, next) => (res.locals.dispatch ? res.json({ status: 200, paths: [] }) : next()));
  app.use(noOperation(document.matcher));
  app.use(verdictOf);
  return app;
}

/** express-openapi-validator, given `oracle` (the published document, or a tampered copy). */
function oracleApp(document: DocumentUnderTest, oracle: Node): express.Express {
  const OpenApiValidator = createRequire(import.meta.url)(
    "express-openapi-validator",
  ) as typeof import("express-openapi-validator");
  const app = baseApp(document);
  app.use(
    OpenApiValidator.middleware({
      apiSpec: oracle as never,
      validateRequests: { allErrors: true, removeAdditional: false },
      validateResponses: false,
      validateSecurity: false,
      validateApiSpec: false,
      validateFormats: true,
      ajvFormats: { mode: "full" },
      formats: { int64: { type: "number", validate: (n: number) => Number.isSafeInteger(n) } },
      ignorePaths: (path: string) => !path.startsWith(document.prefix) || path.endsWith("/"),
      fileUploader: false,
    }) as unknown as RequestHandler[],
  );
  app.use((req, res, next) => ((req as { openapi?: unknown }).openapi ? res.json({ status: 200, paths: [] }) : next()));
  app.use(noOperation(document.matcher));
  app.use(verdictOf);
  return app;
}

/** A request on which the two verdicts differ. */
export interface Disagreement {
  request: WireRequest;
  ours: Verdict;
  oracle: Verdict;
}

/**
 * Whether two verdicts agree: the same status, and the same set of field paths. Ours names at most
 * `maxFieldErrors` paths: past that, its paths are the oracle's, as many as it names.
 */
function agree(ourVerdict: Verdict, oracleVerdict: Verdict): boolean {
  // The library writes a property's name unescaped into its item path (`/body/a/b` for the name
  // `a/b` of the body): a name with `/` or `.` is compared by its parts. Its other items carry
  // Ajv's JSON-pointer escapes, which `oraclePath` decodes, so a name holding `~0` or `~1` reads
  // `~` or `/` there: both sides are decoded alike (seed 761273097: the name `xt(~0.g1jo`).
  // A name made only of `/` and `.` at the body's top (`"/"`, seeds 22 and 33) has no part left: the
  // library names it `body`, so it is named so on both sides, once.
  const parts = (v: Verdict): Verdict => ({
    status: v.status,
    paths: [
      ...new Set(
        v.paths.map(
          (p) =>
            p
              .replace(/~1/g, "/")
              .replace(/~0/g, "~")
              .split(/[/.]/)
              .filter((s) => s.length > 0)
              .join(".") || "body",
        ),
      ),
    ].sort(),
  });
  const ours = parts(ourVerdict);
  const oracle = parts(oracleVerdict);
  if (ours.status !== oracle.status) return false;
  if (oracle.paths.length > maxFieldErrors) {
    return ours.paths.length === maxFieldErrors && ours.paths.every((p) => oracle.paths.includes(p));
  }
  return ours.paths.length === oracle.paths.length && ours.paths.every((p, i) => p === oracle.paths[i]);
}

async function send(base: string, request: WireRequest): Promise<Verdict> {
  // Spelled as fetch spells it (the URL parser percent-encodes what a request line cannot carry).
  const url = new URL(request.path, base);
  const text = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers:
          request.body === undefined
            ? request.headers
            : { ...request.headers, "content-length": Buffer.byteLength(request.body) },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(request.body);
  });
  try {
    const verdict = JSON.parse(text.text) as Verdict;
    return { status: text.status, paths: verdict.paths ?? [] };
  } catch {
    return { status: text.status, paths: [] };
  }
}

/** Kept-alive connections: the requests, not the handshakes, are what is measured. */
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

export interface DifferentialReport {
  sent: number;
  /** How many each verdict got, ours: `200`, `400`, … */
  statuses: Record<string, number>;
  disagreements: Disagreement[];
  /** The requests both sides gave the same verdict, with that verdict (ours, paths as we name them). */
  agreements: { request: WireRequest; verdict: Verdict }[];
}

/**
 * Sends every request to our check and to the oracle (the published document, or `oracle` when
 * given: a tampered copy, to show the comparison fails) and reports where they disagree.
 */
export async function differential(
  document: DocumentUnderTest,
  requests: readonly WireRequest[],
  options: { oracle?: Node; concurrency?: number } = {},
): Promise<DifferentialReport> {
  const ours = await listen(ourApp(document));
  const oracle = await listen(oracleApp(document, options.oracle ?? oracleDocument(document.file)));
  const report: DifferentialReport = { sent: 0, statuses: {}, disagreements: [], agreements: [] };
  try {
    const concurrency = options.concurrency ?? 8;
    for (let i = 0; i < requests.length; i += concurrency) {
      await Promise.all(
        requests.slice(i, i + concurrency).map(async (request) => {
          const [a, b] = await Promise.all([send(ours.url, request), send(oracle.url, request)]);
          report.sent++;
          report.statuses[a.status] = (report.statuses[a.status] ?? 0) + 1;
          if (agree(a, b)) report.agreements.push({ request, verdict: a });
          else report.disagreements.push({ request, ours: a, oracle: b });
        }),
      );
    }
  } finally {
    await ours.close();
    await oracle.close();
  }
  return report;
}

/** A readable account of a report's disagreements (at most `limit`). */
export function describeDisagreements(document: string, report: DifferentialReport, limit = 8): string {
  const lines = [`${document}: ${report.disagreements.length} of ${report.sent} requests got different verdicts`];
  for (const d of report.disagreements.slice(0, limit)) {
    lines.push(
      `- ${d.request.method} ${d.request.path} (${d.request.operation}: ${d.request.label}) ` +
        `ours ${JSON.stringify(d.ours)} oracle ${JSON.stringify(d.oracle)}`,
      `  headers ${JSON.stringify(d.request.headers)} body ${JSON.stringify(d.request.body?.slice(0, 200))}`,
    );
  }
  return lines.join("\n");
}
