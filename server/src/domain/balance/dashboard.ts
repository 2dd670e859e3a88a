import { type DashboardMode, inMode, requireActiveForProduction } from "../identity/index.js";
import type { DomainDeps } from "../deps.js";
import { DomainError } from "../core/errors.js";
import type { Schemas } from "../core/model.js";
import { requireStepUp } from "../identity/index.js";
import { type DashboardActor } from "../identity/model.js";
import type { withdrawalUseCases } from "./withdrawals.js";

// What the dashboard adds to the public API's use cases for money (issue 25 §2): the rules of a
// withdrawal asked by a person (a transaction's timeline is payments/timeline.ts).
// docs/decisions/0023-dashboard-modes-and-callers.md.

export function dashboardMoneyUseCases(
  deps: DomainDeps,
  parts: { withdrawals: ReturnType<typeof withdrawalUseCases> },
) {
  const { clock } = deps;
  const now = () => clock.now().toISOString();

  return {
    /**
     * A withdrawal asked in the dashboard: production only for a verified account, then a step-up
     * within the last 10 minutes (in either mode), then the public API's withdrawal with no key
     * (no key's daily limit); the owner is e-mailed of a production one with who asked for it.
     */
    async withdraw(
      actor: DashboardActor,
      mode: DashboardMode,
      body: Schemas["CreateWithdrawalRequest"],
      idempotencyKey: string | undefined,
    ) {
      const caller = inMode(actor, mode);
      requireActiveForProduction(caller);
      requireStepUp(actor, now());
      return parts.withdrawals.create(caller, body, idempotencyKey);
    },

    /** Refuses a sandbox control in production (`403 TEST_MODE_ONLY`), in the dashboard's words. */
    requireTestMode(mode: DashboardMode): void {
      if (mode !== "test") throw new DomainError("TEST_MODE_ONLY", "O sandbox só existe no modo de teste.");
    },
  };
}
