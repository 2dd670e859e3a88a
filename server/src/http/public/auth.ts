import type { ErrorRequestHandler, RequestHandler } from "express";
import type { Handlers, HandlersOfTag, OperationId, Tag } from "../../../../generated/operations.js";
import { authenticationCodes, type Credentials } from "../../domain/keys/index.js";
import type { Actor } from "../../domain/deps.js";
import { DomainError } from "../../domain/core/errors.js";
import type { Domain } from "../../domain/service.js";
import { matchOperation, type OperationMatch } from "../operations.js";
import type { WithReplays } from "../replay.js";

/** The key in `x-api-key`, or in `Authorization: Bearer`. */
function presentedSecret(headers: { "x-api-key"?: string | string[]; authorization?: string }): string | null {
  const header = headers["x-api-key"];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader) return fromHeader.trim();
  const auth = headers.authorization;
  const match = auth?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}

/**
 * Operations whose handler admits the caller with its own read (`charges.listAsCaller` and
 * `charges.getAsCaller`: the statement that reads the first page, or the charge, also confirms the
 * key unchanged; docs/decisions/0016-*). The middleware leaves
 * them unauthenticated; `PublicHandlers` gives their handlers a `CallerContext`, which has no
 * actor, so the compiler refuses a handler that would act for a caller nobody admitted.
 */
const admittedByTheirRead = ["listTransactions", "getTransaction"] as const satisfies readonly OperationId[];
type AdmittedByTheirRead = (typeof admittedByTheirRead)[number];
const isAdmittedByTheirRead = (id: OperationId): id is AdmittedByTheirRead =>
  (admittedByTheirRead as readonly OperationId[]).includes(id);

/** A call whose key was read and admitted for this operation by this very request. */
export interface AdmittedContext {
  actor: Actor;
  operation: OperationMatch;
}

/** A call not yet admitted: what the caller presented, for a handler that admits it with its own read. */
export interface CallerContext {
  credentials: Credentials;
  operation: OperationMatch;
}

/** What a handler is given: an admitted actor, but for the operations admitted by their read. */
export type RequestContext = AdmittedContext | CallerContext;

/** The public API's handlers, each typed with the context the middleware gives its operation. */
export type PublicHandlers = WithReplays<
  Omit<Handlers<AdmittedContext>, AdmittedByTheirRead> & Pick<Handlers<CallerContext>, AdmittedByTheirRead>
>;

/** The handlers of one tag's operations (or of a union of tags), each given an admitted caller. */
export type TagHandlers<T extends Tag> = WithReplays<HandlersOfTag<T, AdmittedContext>>;

/**
 * Authenticates and authorises every public operation through the domain's `authenticate` use
 * case, before anything else reads the request (a caller without a valid key learns nothing about
 * its body: 401, not 400/413), but for those in `admittedByTheirRead`. Routes the contract does
 * not know pass on, to be answered 404/405.
 */
export function authenticate(domain: Domain): RequestHandler {
  return async (req, res, next) => {
    const operation = matchOperation(req.method, req.path);
    if (!operation) return next();
    // The request check reads the same match instead of looking the route up again.
    res.locals.route = operation;
    const credentials: Credentials = {
      secret: presentedSecret(req.headers as Record<string, string>),
      ip: req.ip,
      permission: operation.meta.permission,
    };
    if (isAdmittedByTheirRead(operation.id)) {
      const context: CallerContext = { credentials, operation };
      res.locals.context = context;
      return next();
    }
    const actor = await domain.authentication.authenticate(credentials);
    const context: AdmittedContext = { actor, operation };
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
    const context = res.locals.context;
    if (!context || !("credentials" in context)) return next(err);
    if (err instanceof DomainError && authenticationCodes.has(err.code)) return next(err);
    domain.authentication.authenticate(context.credentials).then(
      () => next(err),
      (authError: unknown) => next(authError),
    );
  };
}
