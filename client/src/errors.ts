import type { ErrorBody, ErrorCode, FieldError } from "./types.js";

function isErrorBody(value: unknown): value is ErrorBody {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { code?: unknown }).code === "string" &&
    typeof (value as { message?: unknown }).message === "string"
  );
}

/**
 * A non-2xx answer of the API, thrown by {@link paginate} and by every call of a client created with
 * `throwOnError: true`. Carries the HTTP `status`, the parsed {@link ErrorBody} (`body`, undefined
 * when the answer was not one, for example from a proxy), its stable `code`, the field `errors` of
 * a `VALIDATION_ERROR` and the `x-request-id` to quote to support. `message` reads
 * `Pix API answered <status> <code>: <the service's Portuguese message>`; the service's message
 * alone is `body.message`.
 */
export class PixApiError extends Error {
  /** The HTTP status of the answer, for example 401 or 429. */
  readonly status: number;
  /** The error body of the answer, when it was an {@link ErrorBody}. */
  readonly body: ErrorBody | undefined;
  /** The stable error code (`UNAUTHORIZED`, `RATE_LIMITED`, ...), when the body carried one. */
  readonly code: ErrorCode | undefined;
  /** One item per invalid field (`path`, `message`) of a `VALIDATION_ERROR`; empty otherwise. */
  readonly errors: readonly FieldError[];
  /** The `x-request-id` response header, when present. */
  readonly requestId: string | undefined;

  /**
   * @param status The HTTP status.
   * @param body The parsed response body (anything; kept in `body` only if it is an {@link ErrorBody}).
   * @param requestId The `x-request-id` response header.
   */
  constructor(status: number, body: unknown, requestId?: string | null) {
    const errorBody = isErrorBody(body) ? body : undefined;
    super(
      errorBody
        ? `Pix API answered ${status} ${errorBody.code}: ${errorBody.message}`
        : `Pix API answered ${status}${typeof body === "string" && body !== "" ? `: ${body.slice(0, 200)}` : ""}`,
    );
    this.name = "PixApiError";
    this.status = status;
    this.body = errorBody;
    this.code = errorBody?.code;
    this.errors = Array.isArray(errorBody?.errors) ? errorBody.errors : [];
    this.requestId = requestId ?? undefined;
  }

  /** Builds the error of a failed openapi-fetch call from its `error` and `response`. */
  static fromResponse(response: Response, error: unknown): PixApiError {
    return new PixApiError(response.status, error, response.headers.get("x-request-id"));
  }
}
