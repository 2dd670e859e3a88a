import createClient, { type Client, type FetchResponse, type MaybeOptionalInit, type Middleware } from "openapi-fetch";
import { PixApiError } from "./errors.js";
import { DEFAULT_MAX_RETRIES, type RequestFetch, type RetryBackoff, retryingFetch } from "./retry.js";
import type { paths } from "./types.js";

/**
 * The typed client of the public API: openapi-fetch's `Client<paths>`. Call routes with
 * `client.GET(path, init)`, `client.POST(path, init)`, `client.PATCH(path, init)`; each resolves to
 * `{ data, error, response }` where `data` is the typed success body and `error` the typed
 * {@link ErrorBody} of a non-2xx answer.
 */
export type PixClient = Client<paths>;

type Method = "get" | "post" | "patch";

/** The routes that have `method`. */
type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

/** The init argument: optional when nothing in it is required, as in openapi-fetch. */
type InitArgs<Init> =
  RequiredKeys<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** The success branch of an openapi-fetch result: `{ data, response }`, without `error`. */
export type PixSuccess<R> = R extends { error?: never }
  ? { data: R extends { data: infer D } ? D : never; response: Response }
  : never;

type ThrowingMethod<M extends Method> = <Path extends PathsWith<M>, Init extends MaybeOptionalInit<paths[Path], M>>(
  url: Path,
  ...init: InitArgs<Init>
) => Promise<
  PixSuccess<
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- openapi-fetch's own constraint
    paths[Path][M] extends infer Op extends Record<string | number, any>
      ? FetchResponse<Op, Init, `${string}/${string}`>
      : never
  >
>;

/**
 * The client that {@link createPixClient} returns with `throwOnError: true`: the same routes, but a
 * non-2xx answer throws a {@link PixApiError} and each call resolves to `{ data, response }` with
 * `data` typed as the success body (never `undefined` for a route that answers one).
 */
export interface PixThrowingClient extends Omit<PixClient, "GET" | "POST" | "PATCH" | "request"> {
  /** Calls a GET route; throws {@link PixApiError} on a non-2xx answer. */
  GET: ThrowingMethod<"get">;
  /** Calls a POST route; throws {@link PixApiError} on a non-2xx answer. */
  POST: ThrowingMethod<"post">;
  /** Calls a PATCH route; throws {@link PixApiError} on a non-2xx answer. */
  PATCH: ThrowingMethod<"patch">;
}

/** Options of {@link createPixClient}. */
export interface PixClientOptions {
  /** The API key: `svc_test_…` for test mode, `svc_…` for production. Sent as the `x-api-key` header. */
  apiKey: string;
  /** The service's base address, for example `https://pix.example.com` (without `/api/v1`). */
  baseUrl: string;
  /** A `fetch` to use instead of `globalThis.fetch` (for tests, proxies or instrumentation). */
  fetch?: RequestFetch;
  /**
   * How many more times an idempotent request is sent after a network error, a `429` or a `5xx`
   * (see {@link createPixClient}). Default 2; 0 turns retries off.
   */
  maxRetries?: number;
  /** The waits between retries. */
  retryBackoff?: RetryBackoff;
  /**
   * `true` makes every non-2xx answer throw a {@link PixApiError} instead of resolving to
   * `{ error }`; calls then resolve to `{ data, response }`. Default `false`.
   */
  throwOnError?: boolean;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.clone().text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Creates a typed client of the public API. The API key is added to every request as the
 * `x-api-key` header.
 *
 * Idempotent requests are retried, up to `maxRetries` (default 2) more times, after a network
 * error, a `429` or a `5xx`: the client waits what `Retry-After` asks (up to a minute) or an
 * exponential backoff with jitter (0.5 s, 1 s, ... capped at 5 s). Idempotent means a `GET`, or a
 * `POST`/`PATCH` with an `idempotency-key` header; a `POST` without one gets a new random key, so
 * every attempt carries the same key and the service acts once. A `PATCH` without a key is sent once.
 *
 * @example
 * ```ts
 * const client = createPixClient({ apiKey: process.env.PIX_API_KEY!, baseUrl: "https://pix.example.com" });
 * const { data, error } = await client.GET("/api/v1/balance");
 * ```
 * @throws TypeError when `apiKey` or `baseUrl` is empty, or `maxRetries` or a backoff time is not a
 * non-negative integer.
 */
export function createPixClient(options: PixClientOptions & { throwOnError: true }): PixThrowingClient;
export function createPixClient(options: PixClientOptions & { throwOnError?: false }): PixClient;
export function createPixClient(options: PixClientOptions): PixClient | PixThrowingClient;
export function createPixClient(options: PixClientOptions): PixClient | PixThrowingClient {
  const { apiKey, baseUrl } = options;
  if (typeof apiKey !== "string" || apiKey.trim() === "") {
    throw new TypeError("createPixClient: apiKey is required");
  }
  if (typeof baseUrl !== "string" || baseUrl.trim() === "") {
    throw new TypeError("createPixClient: baseUrl is required");
  }
  const fetch = retryingFetch(
    options.fetch ?? ((request) => globalThis.fetch(request)),
    options.maxRetries ?? DEFAULT_MAX_RETRIES,
    options.retryBackoff,
  );
  const client = createClient<paths>({ baseUrl, fetch });
  const auth: Middleware = {
    onRequest({ request }) {
      request.headers.set("x-api-key", apiKey);
      return request;
    },
  };
  client.use(auth);
  if (options.throwOnError === true) {
    const throwOnError: Middleware = {
      async onResponse({ response }) {
        if (!response.ok) throw PixApiError.fromResponse(response, await readBody(response));
        return undefined;
      },
    };
    client.use(throwOnError);
  }
  return client;
}
