/**
 * The HTTP clients the CLI speaks through, typed from the generated contracts with openapi-fetch:
 * the operator API (`/admin/v1`, bearer `ADMIN_TOKEN`) and, for partner commands, the public API
 * (`/api/v1`, `x-api-key`).
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths as OperatorPaths } from "../../../generated/admin-api.js";
import type { paths as PartnerPaths } from "../../../generated/api.js";

/** A failure the CLI reports as one `error: …` line and exit code 1; `status` when the API answered it. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export type OperatorClient = Client<OperatorPaths>;
export type PartnerClient = Client<PartnerPaths>;

const trimSlashes = (url: string) => url.replace(/\/+$/, "");

/** What this service answers to `GET /` asked for JSON (`service`): how the CLI knows it. */
const serviceName = "Pix Charging Service";

/**
 * Asks `GET /` (no token, no key) whether `baseUrl` is this service. A token once went to whatever
 * listened on the default port when the server ran on another; now a server that does not answer
 * as this service gets no secret. A network error passes through as it is (`listen` tries again).
 */
async function identify(baseUrl: string): Promise<void> {
  const response = await fetch(`${baseUrl}/`, {
    headers: { accept: "application/json" },
    redirect: "manual",
    signal: AbortSignal.timeout(15_000),
  });
  const body: unknown = await response.json().catch(() => undefined);
  const service = typeof body === "object" && body !== null ? (body as { service?: unknown }).service : undefined;
  if (response.ok && service === serviceName) return;
  const answer = response.ok ? "não respondeu como o serviço" : `respondeu ${response.status}`;
  throw new CliError(
    `${baseUrl} não é o Pix Charging Service (GET / ${answer}): nada foi enviado a ele. ` +
      "Confira --server ou PIX_ADMIN_URL (npm start imprime o par PIX_ADMIN_URL e ADMIN_TOKEN).",
    // A 5xx or 429 of the service itself is worth another try.
    response.ok ? undefined : response.status,
  );
}

/** A middleware that holds every request back until `baseUrl` has identified itself (once per client). */
function identifiedFirst(baseUrl: string): Middleware {
  let identified: Promise<void> | undefined;
  return {
    async onRequest() {
      identified ??= identify(baseUrl).catch((error: unknown) => {
        identified = undefined; // asked again by the next request
        throw error;
      });
      await identified;
      return undefined;
    },
  };
}

/** The operator API at `baseUrl` with the operator token, sent only once the server identified itself. */
export function operatorClient(baseUrl: string, token: string): OperatorClient {
  const client = createClient<OperatorPaths>({
    baseUrl: trimSlashes(baseUrl),
    headers: { authorization: `Bearer ${token}` },
  });
  client.use(identifiedFirst(trimSlashes(baseUrl)));
  return client;
}

/**
 * A fetch that sends a GET, or a POST with an `idempotency-key`, again after a network error, a 429
 * or a 5xx (at most `retries` more times, 300 ms then doubling): the service acts once per key.
 */
function retryingFetch(retries: number): (request: Request) => Promise<Response> {
  return async (request) => {
    const idempotent = request.method === "GET" || request.headers.has("idempotency-key");
    for (let attempt = 0; ; attempt++) {
      const last = !idempotent || attempt >= retries;
      try {
        const response = await fetch(last ? request : request.clone());
        if (last || (response.status !== 429 && response.status < 500)) return response;
        await response.body?.cancel();
      } catch (error) {
        if (last) throw error;
      }
      await new Promise((r) => setTimeout(r, 300 * 2 ** attempt));
    }
  };
}

/**
 * The partner (public) API at `baseUrl` with an API key, sent only once the server identified
 * itself; idempotent requests retried twice.
 */
export function partnerClient(baseUrl: string, apiKey: string): PartnerClient {
  const client = createClient<PartnerPaths>({
    baseUrl: trimSlashes(baseUrl),
    headers: { "x-api-key": apiKey },
    fetch: retryingFetch(2),
  });
  client.use(identifiedFirst(trimSlashes(baseUrl)));
  return client;
}

interface ErrorBody {
  code?: string;
  message?: string;
  errors?: { path: string; message: string }[];
}

/** Unwraps an openapi-fetch result: the data, or a CliError with the API's (Portuguese) message. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || !result.response.ok) {
    const body = result.error as ErrorBody | undefined;
    const fields = body?.errors?.map((e) => `  ${e.path}: ${e.message}`).join("\n");
    const summary = `${result.response.status} ${body?.code ?? ""} ${body?.message ?? result.response.statusText}`;
    const message = `${summary.replace(/\s+/g, " ").trim()}${fields ? `\n${fields}` : ""}`;
    throw new CliError(message, result.response.status);
  }
  return result.data as T;
}
