import type { RequestHandler } from "express";
import type { Credentials } from "../domain/authentication.js";
import type { Actor } from "../domain/deps.js";
import type { Domain } from "../domain/service.js";
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

/** Everything a handler knows about the call: an admitted caller, always. */
export interface RequestContext {
  /** Who is calling: the key was read and admitted for this operation by this very request. */
  actor: Actor;
  operation: OperationMatch;
}

/**
 * Authenticates and authorises every public operation through the domain's `authenticate` use
 * case, before anything else reads the request (a caller without a valid key learns nothing about
 * its body: 401, not 400/413). Routes the contract does not know pass on, to be answered 404/405.
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
    const actor = await domain.authentication.authenticate(credentials);
    const context: RequestContext = { actor, operation };
    res.locals.context = context;
    next();
  };
}
