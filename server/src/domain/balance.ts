import type { Actor, DomainDeps } from "./deps.js";
import type { Schemas } from "./model.js";
import { amountLimits } from "./policy.js";
import { remainingDailyLimit } from "./withdrawals.js";

export function balanceUseCases(deps: DomainDeps) {
  return {
    /**
     * The balance in the key's mode, derived from the ledger at this instant. `withdrawableNowCents`
     * is what this key could withdraw now: 0 when it lacks `withdrawals:write`.
     */
    async get(actor: Actor): Promise<Schemas["Balance"]> {
      const now = deps.clock.now();
      const totals = await deps.store.read.ledger.totals(actor.scope, now.toISOString());
      const remaining = await remainingDailyLimit(deps.store.read, actor.apiKey, now);
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
    },
  };
}
