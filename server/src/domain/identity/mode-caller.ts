import type { components } from "../../../../generated/dashboard-api.js";
import { operationTable } from "../../../../generated/dashboard-operations.js";
import { type AuditRecord, recordAudit } from "../audit/index.js";
import { byUser } from "../audit/model.js";
import { type AuditedBy } from "../audit/model.js";
import type { ActingUser, ScopedCaller } from "../deps.js";
import { DomainError } from "../core/errors.js";
import type { Role } from "./model.js";
import type { StoreTx } from "../ports/store.js";
import type { DashboardActor } from "./model.js";

// A dashboard user working in one mode of its account (issue 25): the scope the public API's use
// cases take, made from the session instead of an API key.
// docs/decisions/0023-dashboard-modes-and-callers.md.

/** `test` or `production` (spec/dashboard/common.tsp `DashboardMode`). */
export type DashboardMode = components["schemas"]["DashboardMode"];

/** A dashboard user in one mode of its own account: what the use cases take, and who acted. */
export interface ModeCaller extends ScopedCaller {
  user: ActingUser;
  audit: AuditedBy;
  apiKey?: undefined;
}

/** The roles that may withdraw: the `x-roles` of the dashboard's withdrawal (spec/dashboard/money.tsp). */
export const withdrawingRoles: readonly Role[] = operationTable.createDashboardWithdrawal.roles;

/**
 * The session's user in `mode` of its account, and only its account: every object a use case then
 * finds is in that scope, so another account's, or the other mode's, is simply not found.
 */
export function inMode(actor: DashboardActor, mode: DashboardMode): ModeCaller {
  const { user, account } = actor;
  return {
    scope: { accountId: account.id, livemode: mode === "production" },
    account,
    user: { id: user.id, email: user.email, name: user.name, role: user.role },
    audit: byUser(actor),
  };
}

/**
 * Records a change made through the dashboard in the account's audit log, inside the change's
 * transaction (`tx`), in the caller's mode; a change through the public API (no `audit`) records
 * nothing.
 */
export async function auditChange(
  tx: StoreTx,
  caller: ScopedCaller,
  record: Pick<AuditRecord, "action" | "target" | "changes" | "at">,
): Promise<void> {
  if (!caller.audit) return;
  await recordAudit(tx, { ...record, accountId: caller.account.id, by: caller.audit, livemode: caller.scope.livemode });
}

/**
 * Refuses production (`403 ACCOUNT_NOT_ACTIVE`) while the account is not verified; test mode always
 * passes. The public API's withdrawals and the dashboard's production changes alike.
 */
export function requireActiveForProduction(caller: ScopedCaller): void {
  if (caller.scope.livemode && !caller.account.verified) throw new DomainError("ACCOUNT_NOT_ACTIVE");
}
