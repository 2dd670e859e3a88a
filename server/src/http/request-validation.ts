import express, { type Request, type RequestHandler, type Response } from "express";
import type { OperationValidators } from "../../../generated/request-validators.js";
import type { OperationMatcher } from "./operations.js";
import { type CheckedRequest, requestChecks } from "./request-checks.js";
import { requestLimits } from "../domain/core/policy.js";

// How every API document (public, operator) reads and checks a request: one body parser and one
// request check, so they cannot drift apart. docs/decisions/0049-request-validation-owned-and-generated.md.

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
export const dispatchOf = (res: Response): Dispatch | undefined => res.locals.dispatch;

/** Hands a checked request on: decoded path parameters, the coerced query, and its operation. */
function applyCheckedRequest(req: Request, res: Response, checked: CheckedRequest): void {
  req.params = checked.params;
  if (req.query !== checked.query) {
    Object.defineProperty(req, "query", { value: checked.query, writable: true, configurable: true, enumerable: true });
  }
  const dispatch: Dispatch = { operationId: checked.operation.id, params: checked.params };
  res.locals.dispatch = dispatch;
}

export interface RequestValidationOptions {
  /**
   * Loads the document's generated validators (`generated/*request-validators.ts`): at the first
   * request under `prefix`, not at start-up (evaluating the three modules is tens of
   * milliseconds, not on the way to the first /health).
   */
  load: () => Promise<Readonly<Record<string, OperationValidators>>>;
  /** The document's operations. */
  matcher: OperationMatcher;
  /** Requests under this prefix, spelled exactly (`/x/` is no route), are checked; others pass on. */
  prefix: string;
}

/**
 * The request check of one document: path parameters, query, headers and body, against the
 * document, one path in every mode. A request no operation has passes on (the app answers 404 or 405).
 */
export function requestValidation(options: RequestValidationOptions): RequestHandler {
  const { prefix, matcher } = options;
  let checks: ReturnType<typeof requestChecks> | null = null;
  let loading: Promise<ReturnType<typeof requestChecks>> | null = null;
  const run = (checks: ReturnType<typeof requestChecks>, req: Request, res: Response) => {
    const route = res.locals.route;
    checks.refuseUndeclaredQuery(req, route);
    const checked = checks.check(req as never, route);
    if (checked) applyCheckedRequest(req, res, checked);
  };
  return async (req, res, next) => {
    if (!req.path.startsWith(prefix) || req.path.endsWith("/")) return next();
    if (!checks) {
      // Requests arriving while the validators load wait for the same load. A load that fails
      // (its chunk unreadable) is that request's error, and the next request tries again.
      loading ??= options.load().then(
        (validators) => requestChecks(validators, matcher),
        (error: unknown) => {
          loading = null;
          throw error;
        },
      );
      checks = await loading;
    }
    run(checks, req, res);
    next();
  };
}
