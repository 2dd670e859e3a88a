import { DomainError } from "../../../domain/core/errors.js";

/** The SQLSTATE of a PostgreSQL error, or Node's code (`ECONNREFUSED`) of a socket error. */
export const sqlState = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;

/**
 * Codes of a lost or refused connection: the server shut down or crashed (57P01 admin shutdown,
 * 57P02 crash shutdown, 57P03 cannot connect now: starting up or shutting down), the connection
 * failed (class 08), or the socket did.
 */
const connectionCodes = new Set([
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** What node-postgres says, without a code, when a connection ends or cannot be made in time. */
const connectionMessages = [
  /^Connection terminated/i,
  /^timeout exceeded when trying to connect/i,
  /^Client has encountered a connection error and is not queryable/i,
  /^Client was closed and is not queryable/i,
  /^Query read timeout/i,
];

/** True when `error` means the database cannot be reached now, not that the statement is wrong. */
export function isConnectionError(error: unknown): boolean {
  const code = sqlState(error);
  if (code !== undefined && connectionCodes.has(code)) return true;
  const message = error instanceof Error ? error.message : "";
  return connectionMessages.some((pattern) => pattern.test(message));
}

/**
 * A lost database becomes `SERVICE_UNAVAILABLE` (503; the HTTP layer adds `Retry-After`), the
 * original error kept as `cause`; any other error passes unchanged.
 */
export function toStoreError(error: unknown): unknown {
  if (error instanceof DomainError || !isConnectionError(error)) return error;
  const unavailable = new DomainError("SERVICE_UNAVAILABLE");
  unavailable.cause = error;
  return unavailable;
}
