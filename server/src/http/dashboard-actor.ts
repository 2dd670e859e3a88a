import { type DashboardMode, inMode, type ModeCaller } from "../domain/dashboard-scope.js";
import { DomainError } from "../domain/errors.js";
import type { DashboardActor } from "../domain/sessions.js";
import type { DashboardContext } from "./dashboard.js";

/** The session's user; every operation that declares `x-roles` has one (`mountDashboard` admitted it). */
export function actorOf(ctx: DashboardContext): DashboardActor {
  if (!ctx.actor) throw new DomainError("UNAUTHORIZED", "Sessão ausente, expirada ou encerrada. Entre novamente.");
  return ctx.actor;
}

/** The session's user in `mode` of its account (`/dashboard/v1/modes/{mode}/…`). */
export const callerIn = (ctx: DashboardContext, mode: DashboardMode): ModeCaller => inMode(actorOf(ctx), mode);
