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

/** The partner (public) API at `baseUrl` with an API key. */
export function partnerClient(baseUrl: string, apiKey: string): PartnerClient {
  return createClient<PartnerPaths>({ baseUrl: trimSlashes(baseUrl), headers: { "x-api-key": apiKey } });
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
