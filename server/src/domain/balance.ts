import type { Actor, DomainDeps } from "./deps.js";
import type { StoreReads } from "./ports/store.js";
import type { Schemas } from "./model.js";
import { amountLimits } from "./policy.js";
import { remainingDailyLimit } from "./withdrawals.js";

/**
 * The balance in the key's mode, derived from the ledger at `now`, read through `reads` (the store,
 * or a transaction that just moved money). `withdrawableNowCents` is what this key could withdraw
 * now: 0 when it lacks `withdrawals:write`.
 */
export async function balanceOf(reads: StoreReads, actor: Actor, now: Date): Promise<Schemas["Balance"]> {
  const totals = await reads.ledger.totals(actor.scope, now.toISOString());
  const remaining = await remainingDailyLimit(reads, actor.apiKey, now);
  const cap = Math.max(0, remaining === null ? totals.availableCents : Math.min(totals.availableCents, remaining));
  const withdrawFeeCents = actor.account.plan.withdrawFeeCents;
  const mayWithdraw = actor.apiKey.permissions.includes("withdrawals:write");
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
    get: (actor: Actor): Promise<Schemas["Balance"]> => balanceOf(deps.store.read, actor, deps.clock.now()),
  };
}
