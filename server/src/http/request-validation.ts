import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from "express";
import type { OperationMatcher, RouteMatch } from "./operations.js";
import { type CheckedRequest, requestChecks } from "./request-checks.js";
import { referenceValidator } from "./validator-cross-check.js";
import { validatorDocument } from "./kit/openapi-document.js";
import { requestLimits } from "../domain/core/policy.js";

// How every API document (public, operator) reads and checks a request: one body parser and one
// request check, so they cannot drift apart. docs/decisions/0015-request-validation-through-public-surfaces.md.

/**
 * JSON bodies up to the spec's size (64 KiB), parsed for POST, PUT and PATCH, and for DELETE where
 * the document declares `413`/`415` on its deletes (`deletesToo`: the dashboard's): a body sent
 * with a GET is ignored, not parsed (nor refused).
 */
export function jsonBodies(options: { deletesToo?: boolean } = {}): RequestHandler {
  const json = express.json({ limit: requestLimits.maxBodyBytes });
  const parsed = new Set(["POST", "PUT", "PATCH", ...(options.deletesToo ? ["DELETE"] : [])]);
  return (req, res, next) => (parsed.has(req.method) ? json(req, res, next) : next());
}

/** The operation a checked request is for, and its decoded path parameters: what the dispatcher reads. */
export interface Dispatch {
  operationId: string;
  params: Record<string, string>;
}

/** Where the checks leave a request's `Dispatch`. */
export const dispatchOf = (res: Response): Dispatch | undefined => res.locals.dispatch as Dispatch | undefined;

/** Hands a checked request on: decoded path parameters, the coerced query, and its operation. */
function admit(req: Request, res: Response, checked: CheckedRequest): void {
  req.params = checked.params;
  if (req.query !== checked.query) {
    Object.defineProperty(req, "query", { value: checked.query, writable: true, configurable: true, enumerable: true });
  }
  const dispatch: Dispatch = { operationId: checked.operation.id, params: checked.params };
  res.locals.dispatch = dispatch;
}

export interface RequestValidationOptions {
  /** The OpenAPI document's path (`generated/*.yaml`). */
  documentPath: string;
  /** The document's operations. */
  matcher: OperationMatcher;
  /** Requests under this prefix, spelled exactly (`/x/` is no route), are checked; others pass on. */
  prefix: string;
  /**
   * Development checks: express-openapi-validator checks every request too (and every response),
   * and a request on which it and our check disagree answers 500 with both verdicts logged.
   */
  developmentChecks: boolean;
}

/**
 * The request check of one document: path parameters, query, headers and body, against the
 * document. A request no operation has passes on (the app answers 404 or 405).
 */
export function requestValidation(options: RequestValidationOptions): (RequestHandler | ErrorRequestHandler)[] {
  const { prefix, matcher } = options;
  const document = validatorDocument(options.documentPath);
  const checks = requestChecks(document, matcher);
  const ignored = (path: string) => !path.startsWith(prefix) || path.endsWith("/");
  if (!options.developmentChecks) {
    const check: RequestHandler = (req, res, next) => {
      if (ignored(req.path)) return next();
      checks.refuseUndeclaredQuery(req, res.locals.route as RouteMatch | undefined);
      const checked = checks.check(req as never, res.locals.route as RouteMatch | undefined);
      if (checked) admit(req, res, checked);
      next();
    };
    return [check];
  }
  // Built at the first request it checks, not at start-up: loading and compiling the reference
  // is most of a second, and not on the way to the first /health.
  let reference: express.Router | null = null;
  const lazily: RequestHandler = (req, res, next) => {
    if (ignored(req.path)) return next();
    // Before both checks: the reference reads `__proto__[x]` or `[]=1` by brackets and admits or
    // drops them; an undeclared name is refused as sent, in every mode alike.
    checks.refuseUndeclaredQuery(req, res.locals.route as RouteMatch | undefined);
    if (!reference) {
      reference = express.Router();
      reference.use(
        referenceValidator({ document: validatorDocument(options.documentPath), checks, matcher, ignored, admit }),
      );
    }
    reference(req, res, next);
  };
  return [lazily];
}
