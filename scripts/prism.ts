import { type ChildProcess, spawn } from "node:child_process";
import { createServer, request as forward, type Server } from "node:http";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openApiDocumentFileAsJson } from "../server/src/http/kit/openapi-document.js";
import { refusalFor, refusalRules } from "./mock-refusals.js";
import { waitForHttp } from "./wait-for-http.js";
import { freePort } from "./pg-cluster.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

export interface RunningPrism {
  baseUrl: string;
  /** The Prism process itself. */
  pid: number;
  /** The process listening on `baseUrl`'s port: Prism, or this one when a front answers there. */
  listenerPid: number;
  stop(): Promise<void>;
}

/**
 * Starts Prism on 127.0.0.1 and resolves once it answers HTTP. By default `prism mock` (answers
 * with the document's examples). With `proxy`, `prism proxy <document> <proxy> --errors`: every
 * request is validated and forwarded to the upstream server at `proxy`, and every upstream response
 * is validated against the document; a response that breaks it is replaced by Prism's
 * `500` `application/problem+json` body of type `…#VIOLATIONS`, and every finding (also warnings,
 * such as an undeclared status) is listed in the `sl-violations` response header. See
 * `proxyVerdict`.
 *
 * A mock of a document whose required headers carry an `x-refusal` (the dashboard's CSRF token)
 * runs behind a small front on `port` that answers a request without such a header as the
 * document says, and forwards everything else to Prism on a port of its own (./mock-refusals.ts).
 */
export async function startPrism(options: {
  port: number;
  document: string;
  inheritOutput?: boolean;
  /** The upstream server's base URL: run `prism proxy … --errors` in front of it. */
  proxy?: string;
}): Promise<RunningPrism> {
  const cli = join(dirname(require.resolve("@stoplight/prism-cli/package.json")), "dist/index.js");
  const rules = options.proxy ? [] : refusalRules(join(root, options.document));
  const front = rules.length > 0 ? await startFront(options.port, rules) : null;
  const prismPort = front ? front.prismPort : options.port;
  // Prism reads the document as JSON: the same document, a second less of its start's CPU.
  const document = openApiDocumentFileAsJson(join(root, options.document));
  const mode = options.proxy ? ["proxy", document, options.proxy, "--errors"] : ["mock", document];
  // Output nobody reads is not written: Prism formats a log entry for every request at its default
  // level (the contract project's Prism processes 53 → 46 CPU-s with `warn`).
  const quiet = options.inheritOutput ? [] : ["-v", "warn"];
  const child: ChildProcess = spawn(
    process.execPath,
    [cli, ...mode, "-h", "127.0.0.1", "-p", String(prismPort), ...quiet],
    {
      cwd: root,
      stdio: options.inheritOutput ? "inherit" : "ignore",
    },
  );
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  const baseUrl = `http://127.0.0.1:${options.port}`;
  try {
    await waitForHttp(`http://127.0.0.1:${prismPort}/api/v1`, 60_000, () => !exited);
  } catch (error) {
    child.kill("SIGKILL");
    front?.server.close();
    throw error;
  }
  return {
    baseUrl,
    pid: child.pid ?? -1,
    listenerPid: front ? process.pid : (child.pid ?? -1),
    stop: () =>
      new Promise((done) => {
        front?.server.close();
        front?.server.closeAllConnections();
        if (exited) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 3000).unref();
      }),
  };
}

/** What `prism proxy --errors` made of one exchange. */
export type ProxyVerdict =
  /** Forwarded, and the upstream response matches the document (no finding at all). */
  | { kind: "clean" }
  /** Forwarded, but the response breaks the document: `violations` are Prism's findings. */
  | { kind: "violation"; violations: unknown[] }
  /** Prism refused the request itself (it breaks the document): the upstream never saw it. */
  | { kind: "request-refused"; type: string };

/**
 * Reads Prism's verdict from a response of `prism proxy --errors`: the `sl-violations` header
 * (every finding, warnings included, on forwarded responses) and the problem type of Prism's own
 * `application/problem+json` answers (`…#VIOLATIONS` for a bad response; `…#UNPROCESSABLE_ENTITY`,
 * `…#UNAUTHORIZED` and the like for a request it did not forward).
 */
export function proxyVerdict(headers: Headers, body: unknown): ProxyVerdict {
  const header = headers.get("sl-violations");
  const type =
    (headers.get("content-type") ?? "").startsWith("application/problem+json") &&
    body &&
    typeof body === "object" &&
    typeof (body as { type?: unknown }).type === "string"
      ? (body as { type: string }).type
      : undefined;
  if (header || type?.endsWith("#VIOLATIONS")) {
    const listed = header ? (JSON.parse(header) as unknown[]) : [];
    const validation = (body as { validation?: unknown[] } | undefined)?.validation ?? [];
    return { kind: "violation", violations: listed.length ? listed : validation };
  }
  if (type?.startsWith("https://stoplight.io/prism/errors#")) return { kind: "request-refused", type };
  return { kind: "clean" };
}

/** The front of a mock with refusals: answers those, and pipes every other exchange to Prism. */
async function startFront(
  port: number,
  rules: ReturnType<typeof refusalRules>,
): Promise<{ server: Server; prismPort: number }> {
  const prismPort = await freePort();
  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? "/", "http://mock").pathname;
    const refusal = refusalFor(rules, req.method ?? "GET", pathname, req.headers);
    if (refusal) {
      req.resume();
      res.writeHead(refusal.status, { "content-type": "application/json" });
      res.end(JSON.stringify(refusal.body));
      return;
    }
    const upstream = forward(
      { host: "127.0.0.1", port: prismPort, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        // Hop-by-hop headers describe Prism's connection to this front, not the front's to the
        // client: passed on, Prism's longer keep-alive told clients to reuse a connection the
        // front had already closed ("other side closed").
        const headers = { ...answer.headers };
        for (const name of ["connection", "keep-alive", "transfer-encoding"]) delete headers[name];
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((ready) => server.listen(port, "127.0.0.1", ready));
  return { server, prismPort };
}
