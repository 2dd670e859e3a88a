import { auditUseCases } from "./audit.js";
import { authenticationUseCases } from "./authentication.js";
import { balanceUseCases } from "./balance.js";
import { chargeUseCases } from "./charges.js";
import { checkoutUseCases } from "./checkout.js";
import { customerUseCases } from "./customers.js";
import { dashboardMoneyUseCases } from "./dashboard-money.js";
import { healthUseCases } from "./health.js";
import { homeFigureUseCases } from "./home-figures.js";
import { exportUseCases } from "./exports.js";
import type { DomainDeps } from "./deps.js";
import { idempotencyUseCases } from "./idempotency.js";
import { operatorUseCases } from "./operator.js";
import type { UrlGuard } from "./webhook-endpoints.js";
import { eventUseCases } from "./events.js";
import { paymentLinkUseCases } from "./payment-links.js";
import { refundUseCases } from "./refunds.js";
import { recurrenceUseCases } from "./recurrences.js";
import { recurrenceSandboxUseCases } from "./recurrence-sandbox.js";
import { recurrenceSettlementUseCases } from "./recurrence-settlement.js";
import { recurrenceDutyUseCases } from "./recurrence-duties.js";
import { sandboxUseCases } from "./sandbox.js";
import { sessionUseCases } from "./sessions.js";
import { dashboardKeyUseCases } from "./dashboard-keys.js";
import { dashboardWebhookUseCases } from "./dashboard-webhooks.js";
import { userUseCases } from "./users.js";
import { twoFactorUseCases } from "./two-factor.js";
import { settlementUseCases } from "./settlement.js";
import { teamUseCases } from "./team.js";
import { accountProfileUseCases } from "./account-profile.js";
import { verificationUseCases } from "./verification.js";
import { withdrawalUseCases } from "./withdrawals.js";

/** Every public use case, wired to one set of dependencies. */
export function createDomain(deps: DomainDeps, options: { webhookUrlGuard?: UrlGuard } = {}) {
  const authentication = authenticationUseCases(deps);
  const withdrawals = withdrawalUseCases(deps);
  return {
    authentication,
    health: healthUseCases(deps),
    charges: chargeUseCases(deps, authentication),
    customers: customerUseCases(deps),
    paymentLinks: paymentLinkUseCases(deps),
    checkout: checkoutUseCases(deps),
    balance: balanceUseCases(deps),
    withdrawals,
    refunds: refundUseCases(deps),
    recurrences: recurrenceUseCases(deps),
    recurrenceSandbox: recurrenceSandboxUseCases(deps),
    recurrenceSettlement: recurrenceSettlementUseCases(deps),
    recurrenceDuties: recurrenceDutyUseCases(deps),
    sandbox: sandboxUseCases(deps),
    events: eventUseCases(deps),
    operator: operatorUseCases(deps, options.webhookUrlGuard),
    settlement: settlementUseCases(deps),
    idempotency: idempotencyUseCases(deps),
    sessions: sessionUseCases(deps),
    users: userUseCases(deps),
    twoFactor: twoFactorUseCases(deps),
    audit: auditUseCases(deps),
    team: teamUseCases(deps),
    accountProfile: accountProfileUseCases(deps),
    verification: verificationUseCases(deps),
    homeFigures: homeFigureUseCases(deps),
    exports: exportUseCases(deps),
    dashboardMoney: dashboardMoneyUseCases(deps, { withdrawals }),
    dashboardKeys: dashboardKeyUseCases(deps),
    dashboardWebhooks: dashboardWebhookUseCases(deps, options.webhookUrlGuard),
  };
}

export type Domain = ReturnType<typeof createDomain>;
