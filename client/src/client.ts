import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./types.js";

/**
 * The typed client of the public API: openapi-fetch's `Client<paths>`. Call routes with
 * `client.GET(path, init)`, `client.POST(path, init)`, `client.PATCH(path, init)`; each resolves to
 * `{ data, error, response }` where `data` is the typed success body and `error` the typed
 * {@link ErrorBody} of a non-2xx answer.
 */
export type PixClient = Client<paths>;

/** Options of {@link createPixClient}. */
export interface PixClientOptions {
  /** The API key: `svc_test_…` for test mode, `svc_…` for production. Sent as the `x-api-key` header. */
  apiKey: string;
  /** The service's base address, for example `https://pix.example.com` (without `/api/v1`). */
  baseUrl: string;
  /** A `fetch` to use instead of `globalThis.fetch` (for tests, proxies or instrumentation). */
  fetch?: (input: Request) => Promise<Response>;
}

/**
 * Creates a typed client of the public API. The API key is added to every request as the
 * `x-api-key` header by an openapi-fetch middleware.
 *
 * @example
 * ```ts
 * const client = createPixClient({ apiKey: process.env.PIX_API_KEY!, baseUrl: "https://pix.example.com" });
 * const { data, error } = await client.GET("/api/v1/balance");
 * ```
 * @throws TypeError when `apiKey` or `baseUrl` is empty.
 */
export function createPixClient(options: PixClientOptions): PixClient {
  const { apiKey, baseUrl } = options;
  if (typeof apiKey !== "string" || apiKey.trim() === "") {
    throw new TypeError("createPixClient: apiKey is required");
  }
  if (typeof baseUrl !== "string" || baseUrl.trim() === "") {
    throw new TypeError("createPixClient: baseUrl is required");
  }
  const client = createClient<paths>(options.fetch ? { baseUrl, fetch: options.fetch } : { baseUrl });
  const auth: Middleware = {
    onRequest({ request }) {
      request.headers.set("x-api-key", apiKey);
      return request;
    },
  };
  client.use(auth);
  return client;
}
