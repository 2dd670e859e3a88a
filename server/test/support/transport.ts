import { Agent, request as send } from "undici";

/**
 * The test clients' HTTP (openapi-fetch's `Request` and `fetch` options, its public API): the
 * request as openapi-fetch builds it, sent with undici's `request`, and the answer as a `Response`.
 * Node's `fetch` takes about 400 µs of CPU more per call than this (web streams for every body, an
 * `AbortSignal` and a `Request` copy per call): a fifth of the component test workers' CPU went to
 * it, and the tests make tens of thousands of calls a run (docs/contributing.md, "Where the test
 * time goes"). The server sees the same request: the same method, path, headers and body, over a
 * real socket, and `fetch`'s own default headers (`user-agent: node` among them) unless the test
 * sets them. What differs is on the tests' side only:
 *
 * - a redirect is an answer, never followed (no operation of the documents redirects: a 3xx would
 *   be an undeclared status, and the response checker says so);
 * - the body is text (openapi-fetch's serializers make JSON text): anything else goes through
 *   `fetch`, as does a `Request` of another kind (a middleware's own);
 * - a request that cannot be sent fails as `fetch` fails, `TypeError("fetch failed")` with the
 *   cause.
 */
export class TestRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body: RequestInit["body"];
  readonly signal: AbortSignal | undefined;

  constructor(input: string | URL, init: RequestInit = {}) {
    this.url = String(input);
    this.method = (init.method ?? "GET").toUpperCase();
    this.headers = new Headers(init.headers);
    this.body = init.body ?? null;
    this.signal = init.signal ?? undefined;
  }
}

/** The headers Node's `fetch` adds when a request has none of its own (not `accept-encoding`: the answer is read as sent). */
const fetchDefaults: Record<string, string> = {
  accept: "*/*",
  "accept-language": "*",
  "sec-fetch-mode": "cors",
  "user-agent": "node",
};

/** One connection pool for the tests' calls, kept alive as `fetch`'s global one is. */
const pool = new Agent();

/** Statuses whose answer has no body (`Response` refuses one). */
const bodiless = new Set([204, 205, 304]);

/** Sends `input` as described above: a `TestRequest` with a text body (or none) by undici's `request`, anything else by `fetch`. */
export async function testFetch(input: Request | TestRequest): Promise<Response> {
  if (!(input instanceof TestRequest)) return fetch(input);
  if (input.body !== null && typeof input.body !== "string") {
    const { method, headers, body, signal } = input;
    return fetch(input.url, { method, headers, body, ...(signal ? { signal } : {}) });
  }
  const headers: Record<string, string> = { ...fetchDefaults };
  for (const [name, value] of input.headers) headers[name] = value;
  let answer: Awaited<ReturnType<typeof send>>;
  let text: string;
  try {
    answer = await send(input.url, {
      method: input.method as "GET",
      headers,
      body: input.body ?? undefined,
      signal: input.signal,
      dispatcher: pool,
    });
    text = await answer.body.text();
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new TypeError("fetch failed", { cause: error });
  }
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (Array.isArray(value)) for (const one of value) responseHeaders.append(name, one);
    else if (value !== undefined) responseHeaders.append(name, value);
  }
  const body = bodiless.has(answer.statusCode) || input.method === "HEAD" ? null : text;
  return new Response(body, { status: answer.statusCode, headers: responseHeaders });
}

/** openapi-fetch's options that send through `testFetch`: `createClient({ baseUrl, ...testTransport })`. */
export const testTransport = { fetch: testFetch, Request: TestRequest as typeof Request };
