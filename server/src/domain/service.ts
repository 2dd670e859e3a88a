import { balanceUseCases } from "./balance.js";
import { chargeUseCases } from "./charges.js";
import { customerUseCases } from "./customers.js";
import type { DomainDeps } from "./deps.js";
import { paymentLinkUseCases } from "./payment-links.js";
import { withdrawalUseCases } from "./withdrawals.js";

/** Every public use case, wired to one set of dependencies. */
export function createDomain(deps: DomainDeps) {
  return {
    deps,
    charges: chargeUseCases(deps),
    customers: customerUseCases(deps),
    paymentLinks: paymentLinkUseCases(deps),
    balance: balanceUseCases(deps),
    withdrawals: withdrawalUseCases(deps),
  };
}

export type Domain = ReturnType<typeof createDomain>;
