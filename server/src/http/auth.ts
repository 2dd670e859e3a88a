import type { ErrorRequestHandler, RequestHandler } from "express";
import { authenticationCodes, type Credentials } from "../domain/authentication.js";
import type { Actor } from "../domain/deps.js";
import { DomainError } from "../domain/errors.js";
import type { Domain } from "../domain/service.js";
import type { OperationId } from "../../../generated/operations.js";
import { matchOperation, type OperationMatch } from "./operations.js";

/** The key in `x-api-key`, or in `Authorization: Bearer`. */
function presentedSecret(headers: { "x-api-key"?: string | string[]; authorization?: string }): string | null {
  const header = headers["x-api-key"];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader) return fromHeader.trim();
  const auth = headers.authorization;
  const match = auth?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}

/** Everything a handler knows about the call. */
export interface RequestContext {
  /** Who is calling. Read it only in a handler of an operation not in `admittedByTheirRead`. */
  actor: Actor;
  /** What the caller presented, for the operations that admit the caller with their own read. */
  credentials: Credentials;
  operation: OperationMatch;
}

/**
 * Operations whose handler admits the caller with its own read (`listAsCaller`: the statement that
 * reads the page confirms the key): the middleware leaves them unauthenticated, and
 * `authenticateBeforeErrors` keeps the key's answer first if anything else fails before.
 */
const admittedByTheirRead: ReadonlySet<OperationId> = new Set<OperationId>(["listTransactions"]);

/**
 * Authenticates and authorises every public operation through the domain's `authenticate` use
 * case, but for those in `admittedByTheirRead`. Routes the contract does not know pass through to
 * the validator, which answers 404/405.
 */
export function authenticate(domain: Domain): RequestHandler {
  return async (req, res, next) => {
    const operation = matchOperation(req.method, req.path);
    if (!operation) return next();
    const credentials: Credentials = {
      secret: presentedSecret(req.headers as Record<string, string>),
      ip: req.ip,
      permission: operation.meta.permission,
    };
    if (admittedByTheirRead.has(operation.id)) {
      const context = { credentials, operation } as RequestContext;
      Object.defineProperty(context, "actor", {
        get() {
          throw new Error(`${operation.id} admits its caller with its own read: it has no actor before`);
        },
      });
      res.locals.context = context;
      return next();
    }
    const actor = await domain.authentication.authenticate(credentials);
    const context: RequestContext = { actor, credentials, operation };
    res.locals.context = context;
    next();
  };
}

/**
 * The key's answer before any other, for an operation admitted by its read: when something fails
 * before (or instead of) that read admits the caller, such as a malformed query, the caller is
 * authenticated here, and a 401/403 replaces the error, as it would have come first for every
 * other operation (a caller without a valid key learns nothing about its request).
 */
export function authenticateBeforeErrors(domain: Domain): ErrorRequestHandler {
  return (err, _req, res, next) => {
    const context = res.locals.context as RequestContext | undefined;
    if (!context || !admittedByTheirRead.has(context.operation.id)) return next(err);
    if (err instanceof DomainError && authenticationCodes.has(err.code)) return next(err);
    domain.authentication.authenticate(context.credentials).then(
      () => next(err),
      (authError: unknown) => next(authError),
    );
  };
}
