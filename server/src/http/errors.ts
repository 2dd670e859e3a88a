import type { ErrorRequestHandler, Request, Response } from "express";
import type { Logger } from "pino";
import {
  DomainError,
  type ErrorCode,
  errorCatalogue,
  type FieldError,
  serviceUnavailableRetryAfterSeconds,
} from "../domain/core/errors.js";

/** Writes the seed's error body (§7). */
export function sendError(
  req: Request,
  res: Response,
  code: ErrorCode,
  message: string = errorCatalogue[code].message,
  errors?: FieldError[],
): void {
  // The database is away: the pool redials at once, so a client may try again in a second.
  if (code === "SERVICE_UNAVAILABLE" && !res.hasHeader("Retry-After")) {
    res.setHeader("Retry-After", String(serviceUnavailableRetryAfterSeconds));
  }
  res.status(errorCatalogue[code].status).json({
    ok: false,
    code,
    message,
    ...(errors && errors.length > 0 ? { errors } : {}),
    path: req.originalUrl.split("?")[0] ?? req.path,
    timestamp: new Date().toISOString(),
  });
}

/** The 404 message of a path no route has (not the "no such object" one of `NOT_FOUND`). */
export function routeNotFoundMessage(req: Request): string {
  return `Rota não encontrada: ${req.method} ${req.originalUrl.split("?")[0] ?? req.path}.`;
}

type HttpishError = Error & {
  status?: number;
  statusCode?: number;
  type?: string;
  headers?: Record<string, string>;
};

/** The answer to a request the body parser or Express refused, or null for any other failure. */
interface RefusalAnswer {
  code: ErrorCode;
  message?: string;
  errors?: FieldError[];
  /** `Allow` of a 405. */
  headers?: Record<string, string>;
}

/**
 * What the seed's error body says of a failure of the body parser (400 for JSON it cannot read, 413,
 * 415) or of Express itself (404, 405). The request check throws `DomainError`s. Null for anything
 * else (a failure of ours: 500).
 */
function validatorAnswer(err: HttpishError): RefusalAnswer | null {
  const status = err.status ?? err.statusCode;
  if (err.type === "entity.parse.failed") {
    return {
      code: "VALIDATION_ERROR",
      message: "JSON malformado.",
      errors: [{ path: "body", message: "o corpo não é um JSON válido" }],
    };
  }
  if (err.type === "entity.too.large" || status === 413) return { code: "PAYLOAD_TOO_LARGE" };
  if (err.type === "encoding.unsupported" || err.type === "charset.unsupported" || status === 415) {
    return { code: "UNSUPPORTED_MEDIA_TYPE" };
  }
  if (status === 404) return { code: "NOT_FOUND" };
  if (status === 405) return { code: "METHOD_NOT_ALLOWED", ...(err.headers ? { headers: err.headers } : {}) };
  return null;
}

/** The one error middleware, registered last: every failure leaves in the seed's shape. */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err: HttpishError, req, res, _next) => {
    if (res.headersSent) {
      // A streamed answer (a CSV export) failed after it started: closing the connection
      // unfinished is the only way left to say so.
      logger.error(
        { err, requestId: res.getHeader("x-request-id"), path: req.path },
        "failure after the answer started",
      );
      req.socket.destroy();
      return;
    }
    if (err instanceof DomainError) {
      if (err.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(err.retryAfterSeconds));
      return sendError(req, res, err.code, err.message, err.errors);
    }
    const answer = validatorAnswer(err);
    if (answer) {
      if (answer.headers) res.set(answer.headers);
      const message = answer.code === "NOT_FOUND" ? routeNotFoundMessage(req) : answer.message;
      return sendError(req, res, answer.code, message, answer.errors);
    }
    const requestId = res.getHeader("x-request-id");
    logger.error({ err, requestId, path: req.path }, "unexpected failure");
    return sendError(req, res, "INTERNAL_ERROR");
  };
}
