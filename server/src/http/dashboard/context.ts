import type { Handlers, HandlersOfTag, Tag } from "../../../../generated/dashboard-operations.js";
import { type DashboardMode, inMode, type ModeCaller } from "../../domain/identity/index.js";
import type { ClientInfo, DashboardActor } from "../../domain/identity/model.js";
import type { WithReplays } from "../replay.js";

// What a dashboard handler is given, proved by type as the public API's admission is
// (docs/decisions/0047-request-state-typed-once-and-the-session-proved-by-type.md): the generated
// contract gives a `SessionContext` to every operation that declares `x-roles` and an
// `OpenContext` to the others, and `authenticateSession` (mount.ts) builds the one each operation gets.

/** What every dashboard handler knows of its request: no session (sign-up, log-in, password reset, …). */
export interface OpenContext {
  client: ClientInfo;
  cookie: SessionCookie;
}

/** A request of a session: its user, authenticated with its CSRF token, role and two-factor checked. */
export interface SessionContext extends OpenContext {
  actor: DashboardActor;
}

/** The context `authenticateSession` parks for the request (`res.locals.dashboard`). */
export type DashboardContext = OpenContext | SessionContext;

/** The dashboard's handler contract: each handler given its operation's context, each may answer a replay. */
export type DashboardHandlers = WithReplays<Handlers<OpenContext, SessionContext>>;

/** The handlers of one tag's operations (or of a union of tags): what one handler file serves. */
export type TagHandlers<T extends Tag> = WithReplays<HandlersOfTag<T, OpenContext, SessionContext>>;

/** The session cookie (spec/dashboard/common.tsp `SessionCookie`). */
export interface SessionCookie {
  name: string;
  /** `Set-Cookie` for a new session's token. */
  set(token: string): string;
  /** `Set-Cookie` that clears it. */
  clear(): string;
}

/** The session's user in `mode` of its account (`/dashboard/v1/modes/{mode}/…`). */
export const callerIn = (ctx: SessionContext, mode: DashboardMode): ModeCaller => inMode(ctx.actor, mode);
