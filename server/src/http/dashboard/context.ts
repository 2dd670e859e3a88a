import { type DashboardMode, inMode, type ModeCaller } from "../../domain/identity/index.js";
import { DomainError } from "../../domain/core/errors.js";
import type { ClientInfo, DashboardActor } from "../../domain/identity/model.js";

/** What a dashboard handler knows of its request. */
export interface DashboardContext {
  client: ClientInfo;
  /** The session's user: present on every operation that declares `x-roles`, absent on the others. */
  actor: DashboardActor | undefined;
  cookie: SessionCookie;
}

/** The session cookie (spec/dashboard/common.tsp `SessionCookie`). */
export interface SessionCookie {
  name: string;
  /** `Set-Cookie` for a new session's token. */
  set(token: string): string;
  /** `Set-Cookie` that clears it. */
  clear(): string;
}

/** The session's user; every operation that declares `x-roles` has one (`mountDashboard` admitted it). */
export function actorOf(ctx: DashboardContext): DashboardActor {
  if (!ctx.actor) throw new DomainError("UNAUTHORIZED", "Sessão ausente, expirada ou encerrada. Entre novamente.");
  return ctx.actor;
}

/** The session's user in `mode` of its account (`/dashboard/v1/modes/{mode}/…`). */
export const callerIn = (ctx: DashboardContext, mode: DashboardMode): ModeCaller => inMode(actorOf(ctx), mode);
