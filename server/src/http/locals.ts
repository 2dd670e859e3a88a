import type { DashboardContext } from "./dashboard/context.js";
import type { RouteMatch } from "./operations.js";
import type { RequestContext } from "./public/auth.js";
import type { Dispatch } from "./request-validation.js";

// The request state, typed once: every slot a step of the pipeline parks on `res.locals` for a
// later step, declared on Express's own `Locals` (which every `res.locals` is), so a slot is read
// with its type and without a cast. A step that parks something new declares it here.
// docs/decisions/0047-request-state-typed-once-and-the-session-proved-by-type.md.

declare module "express-serve-static-core" {
  interface Locals {
    /** The request's id (`x-request-id`, or a fresh one): app.ts, for the request log. */
    requestId?: string;
    /** The request's operation, matched once by the step that first needs it (the public API's `authenticate`, the dashboard's `authenticateSession`); the request check reads it instead of matching again. */
    route?: RouteMatch;
    /** The public API's caller: admitted, or to be admitted by its handler's read (public/auth.ts). */
    context?: RequestContext;
    /** The dashboard's caller: a session's, or none for an operation without `x-roles` (dashboard/mount.ts). */
    dashboard?: DashboardContext;
    /** A checked request's operation and decoded path parameters, for the dispatcher (request-validation.ts). */
    dispatch?: Dispatch;
    /** A wrong current password was given (dashboard/mount.ts): it counts in the failed-log-in budgets. */
    wrongPassword?: boolean;
    /** The JSON text of the answer, as `res.json` (json.ts) or a replay (router.ts) sent it: the request logs read it. */
    answerText?: string;
    /** The checkout page's per-request CSP nonce (checkout/security.ts). */
    cspNonce?: string;
  }
}
