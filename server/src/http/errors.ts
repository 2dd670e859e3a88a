import { maxFieldErrors } from "../domain/policy.js";
import type { ErrorRequestHandler, Request, Response } from "express";
import type { Logger } from "pino";
import {
  DomainError,
  type ErrorCode,
  errorCatalogue,
  type FieldError,
  serviceUnavailableRetryAfterSeconds,
} from "../domain/errors.js";

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

/** The bounds of the text field an error is about, when the caller has its schema. */
export interface TextBounds {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

/**
 * Portuguese for the validator's (Ajv's) English messages. Given the field's schema (`bounds`), a
 * length or digits-only rule of a field with both bounds is said whole: "deve ter de 8 a 20
 * dígitos" rather than only the bound that failed.
 */
export function translateValidationMessage(message: string, bounds?: TextBounds): string {
  const whole = wholeLengthRule(message, bounds);
  if (whole) return whole;
  const rules: [RegExp, (m: RegExpMatchArray) => string][] = [
    [/^must be >= (\S+)/, (m) => `deve ser maior ou igual a ${m[1]}`],
    [/^must be <= (\S+)/, (m) => `deve ser menor ou igual a ${m[1]}`],
    [/^must be > (\S+)/, (m) => `deve ser maior que ${m[1]}`],
    [/^must be < (\S+)/, (m) => `deve ser menor que ${m[1]}`],
    [/^must NOT have fewer than (\d+) characters/, (m) => `deve ter no mínimo ${m[1]} caracteres`],
    [/^must NOT have more than (\d+) characters/, (m) => `deve ter no máximo ${m[1]} caracteres`],
    [/^must NOT have more than (\d+) items/, (m) => `deve ter no máximo ${m[1]} itens`],
    [/^must NOT have fewer than (\d+) items/, (m) => `deve ter no mínimo ${m[1]} itens`],
    [/^must match format "email"/, () => "deve ser um e-mail válido"],
    [/^must match format "date-time"/, () => "deve ser data e hora ISO 8601 em UTC, terminando em Z"],
    [/^must match format "uri"/, () => "deve ser um endereço (URL) válido"],
    [/^must match format "int64"/, () => "deve ser um número inteiro de no máximo 9007199254740991"],
    [/^must match format "(.+)"/, (m) => `deve estar no formato ${m[1]}`],
    [/^must match pattern "\^https:/, () => "deve ser um endereço https"],
    [
      /^must match pattern "\^\(19\[7-9\]/,
      () => "deve ser data e hora ISO 8601 em UTC, terminando em Z, entre os anos 1970 e 9999",
    ],
    [/^must match pattern "\^\[0-9\]\+\$"/, () => "deve conter apenas dígitos"],
    [/^must match pattern/, () => "formato inválido"],
    [/^must be integer/, () => "deve ser um número inteiro"],
    [/^must be number/, () => "deve ser um número"],
    [/^must be string/, () => "deve ser um texto"],
    [/^must be boolean/, () => "deve ser verdadeiro ou falso"],
    [/^must be object/, () => "deve ser um objeto"],
    [/^must be array/, () => "deve ser uma lista"],
    [/^must be null/, () => "deve ser nulo"],
    [/^must have required property/, () => "campo obrigatório"],
    [/^must NOT have additional properties/, () => "campo não permitido"],
    [/^must NOT be valid/, () => "campo não permitido"],
    [/^must be equal to one of the allowed values:?\s*(.*)/, (m) => `deve ser um dos valores: ${m[1]}`],
    [/^must be equal to constant/, () => "valor não permitido"],
    [/must be url encoded/i, () => "deve ser codificado para URL (por exemplo, / como %2F)"],
    [/^format is unsupported|unknown format/i, () => "formato inválido"],
  ];
  for (const [pattern, render] of rules) {
    const match = message.match(pattern);
    if (match) return render(match);
  }
  return "valor inválido";
}

function wholeLengthRule(message: string, bounds: TextBounds | undefined): string | null {
  if (bounds?.minLength === undefined || bounds.maxLength === undefined) return null;
  const digits = bounds.pattern === "^[0-9]+$";
  const about =
    /^must NOT have (fewer|more) than \d+ characters/.test(message) || (digits && /^must match pattern/.test(message));
  if (!about) return null;
  const unit = digits ? "dígitos" : "caracteres";
  const { minLength: min, maxLength: max } = bounds;
  return min === max ? `deve ter ${min} ${unit}` : `deve ter de ${min} a ${max} ${unit}`;
}

/** What express-openapi-validator (and our request check, alike) say of a path that `decodeURIComponent` refuses. */
export const malformedUriMessage = "malformed uri'";

interface ValidatorErrorItem {
  path?: string;
  message?: string;
  errorCode?: string;
  params?: { missingProperty?: string; additionalProperty?: string };
}

/** `/body/customer/document` → `customer.document`; `/query/limit` → `limit`. */
export function fieldPath(item: ValidatorErrorItem): string {
  const raw = (item.path ?? "").replace(/^\.?\/?(body|query|headers|path|params)(\/|\.|$)/, "");
  let parts = raw.split(/[/.]/).filter((p) => p.length > 0);
  const extra = item.params?.additionalProperty;
  if (extra !== undefined && parts[parts.length - 1] !== extra) parts = [...parts, extra];
  const missing = item.params?.missingProperty;
  if (missing !== undefined && parts[parts.length - 1] !== missing) parts = [...parts, missing];
  const path = parts.join(".");
  if (path) return path;
  return /^\.?\/?body/.test(item.path ?? "") ? "body" : (item.path ?? "body");
}

type HttpishError = Error & {
  status?: number;
  statusCode?: number;
  type?: string;
  errors?: ValidatorErrorItem[];
  headers?: Record<string, string>;
};

/** The answer to a request the body parser or the request check refused, or null for any other failure. */
export interface RefusalAnswer {
  code: ErrorCode;
  message?: string;
  errors?: FieldError[];
  /** `Allow` of a 405. */
  headers?: Record<string, string>;
}

/**
 * What the seed's error body says of a failure of the body parser or of the request check (ours or
 * express-openapi-validator's, which share this shape): 400 with one item per field, 413, 415, 404,
 * 405. Null for anything else (a failure of ours: 500).
 */
export function validatorAnswer(err: HttpishError): RefusalAnswer | null {
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
  if (status === 400 && err.errors?.length === 1 && err.errors[0]?.message === malformedUriMessage) {
    // A percent-encoding that is not UTF-8 in the URL's path: no route matched yet, so no
    // parameter to name; the validator's item names the raw path in English.
    return {
      code: "VALIDATION_ERROR",
      message: "Dados inválidos.",
      errors: [{ path: "path", message: "o caminho da URL tem uma codificação percentual (%) inválida" }],
    };
  }
  if (status === 400 && Array.isArray(err.errors)) {
    const seen = new Set<string>();
    const errors: FieldError[] = [];
    for (const item of err.errors) {
      if (errors.length === maxFieldErrors) break;
      const path = fieldPath(item);
      if (seen.has(path)) continue;
      seen.add(path);
      errors.push({ path, message: translateValidationMessage(item.message ?? "") });
    }
    return { code: "VALIDATION_ERROR", message: "Dados inválidos.", errors };
  }
  return null;
}

/** The one error middleware, registered last: every failure leaves in the seed's shape. */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err: HttpishError, req, res, _next) => {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    if (err instanceof DomainError) {
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
