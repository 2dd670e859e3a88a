import type { Caller, DomainDeps } from "../deps.js";
import { withdrawingRoles } from "../identity/index.js";
import type { StoreReads } from "../ports/store.js";
import type { Schemas } from "../core/model.js";
import { amountLimits } from "../core/policy.js";
import { remainingDailyLimit } from "./withdrawals.js";

/**
 * The balance in the caller's mode, derived from the ledger at `now`, read through `reads` (the
 * store, or a transaction that just moved money). `withdrawableNowCents` is what this caller could
 * withdraw now: a key within its daily limit, 0 when it lacks `withdrawals:write`; a dashboard user
 * the whole available balance (no key, no key's limit), 0 when its role cannot withdraw.
 */
export async function balanceOf(reads: StoreReads, actor: Caller, now: Date): Promise<Schemas["Balance"]> {
  const totals = await reads.ledger.totals(actor.scope, now.toISOString());
  const remaining = actor.apiKey ? await remainingDailyLimit(reads, actor.apiKey, now) : null;
  const cap = Math.max(0, remaining === null ? totals.availableCents : Math.min(totals.availableCents, remaining));
  const withdrawFeeCents = actor.account.plan.withdrawFeeCents;
  const mayWithdraw = actor.apiKey
    ? actor.apiKey.permissions.includes("withdrawals:write")
    : withdrawingRoles.includes(actor.user.role);
  const withdrawable = mayWithdraw && cap >= amountLimits.minWithdrawalCents && cap > withdrawFeeCents ? cap : 0;
  return {
    ...totals,
    withdrawableNowCents: withdrawable,
    withdrawFeeCents,
    livemode: actor.scope.livemode,
  };
}

export function balanceUseCases(deps: DomainDeps) {
  return {
    get: (actor: Caller): Promise<Schemas["Balance"]> => balanceOf(deps.store.read, actor, deps.clock.now()),
  };
}
