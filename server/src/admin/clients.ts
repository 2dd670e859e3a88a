/**
 * The HTTP clients the CLI speaks through, typed from the generated contracts with openapi-fetch:
 * the operator API (`/admin/v1`, bearer `ADMIN_TOKEN`) and, for partner commands, the public API
 * (`/api/v1`, `x-api-key`).
 */
import createClient, { type Client } from "openapi-fetch";
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

/** The operator API at `baseUrl` with the operator token. */
export function operatorClient(baseUrl: string, token: string): OperatorClient {
  return createClient<OperatorPaths>({
    baseUrl: trimSlashes(baseUrl),
    headers: { authorization: `Bearer ${token}` },
  });
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

/** The partner (public) API at `baseUrl` with an API key; idempotent requests retried twice. */
export function partnerClient(baseUrl: string, apiKey: string): PartnerClient {
  return createClient<PartnerPaths>({
    baseUrl: trimSlashes(baseUrl),
    headers: { "x-api-key": apiKey },
    fetch: retryingFetch(2),
  });
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
