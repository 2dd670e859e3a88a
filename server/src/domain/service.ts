import { auditUseCases } from "./audit/index.js";
import { authenticationUseCases } from "./keys/index.js";
import { balanceUseCases } from "./balance/index.js";
import { chargeUseCases } from "./payments/index.js";
import { dueDateChargeUseCases, dueDatePreviewUseCases } from "./payments/index.js";
import { checkoutUseCases } from "./payments/index.js";
import { customerUseCases } from "./payments/index.js";
import { dashboardMoneyUseCases } from "./balance/index.js";
import { transactionTimelineUseCases } from "./payments/index.js";
import { healthUseCases } from "./core/health.js";
import { homeFigureUseCases } from "./reports/index.js";
import { exportUseCases } from "./reports/index.js";
import { statementUseCases } from "./reports/index.js";
import { noticePreferenceUseCases, noticeUseCases } from "./notices/index.js";
import { requestLogUseCases } from "./request-logs/index.js";
import type { DomainDeps } from "./deps.js";
import { idempotencyUseCases } from "./core/idempotency.js";
import { operatorUseCases } from "./operator/index.js";
import type { UrlGuard } from "./webhooks/index.js";
import { eventUseCases } from "./webhooks/index.js";
import { paymentLinkUseCases } from "./payments/index.js";
import { refundUseCases } from "./payments/index.js";
import { recurrenceUseCases } from "./payments/index.js";
import { recurrenceSandboxUseCases } from "./payments/index.js";
import { recurrenceSettlementUseCases } from "./payments/index.js";
import { recurrenceDutyUseCases } from "./payments/index.js";
import { sandboxUseCases } from "./payments/index.js";
import { sessionUseCases } from "./identity/index.js";
import { dashboardKeyUseCases } from "./keys/index.js";
import { dashboardWebhookUseCases } from "./webhooks/index.js";
import { userUseCases } from "./identity/index.js";
import { twoFactorUseCases } from "./identity/index.js";
import { settlementUseCases } from "./operator/index.js";
import { teamUseCases } from "./identity/index.js";
import { accountProfileUseCases } from "./accounts/index.js";
import { verificationUseCases } from "./accounts/index.js";
import { withdrawalPayoutUseCases, withdrawalUseCases } from "./balance/index.js";
import { bankConnectionUseCases, sealedSecretUseCases } from "./bank/index.js";
import {
  bankReceiptUseCases,
  bankReconcileUseCases,
  bankRecurrenceUseCases,
  bankWorkUseCases,
  unmatchedReturnUseCases,
} from "./bank/index.js";

/** Every public use case, wired to one set of dependencies. */
export function createDomain(deps: DomainDeps, options: { webhookUrlGuard?: UrlGuard } = {}) {
  const authentication = authenticationUseCases(deps);
  const withdrawalPayouts = withdrawalPayoutUseCases(deps);
  const withdrawals = withdrawalUseCases(deps, withdrawalPayouts);
  const bankConnection = bankConnectionUseCases(deps);
  const health = healthUseCases(deps);
  return {
    authentication,
    health: {
      /** The store answers (else it throws); the bank connection's status and warnings when one is set. */
      ready: async () => {
        await health.ready();
        return { bank: (await bankConnection.readiness()) ?? undefined };
      },
    },
    bankConnection,
    /** Received Pix (the bank's callbacks, the operator's unmatched receipts), the reconciler, the bank's tasks. */
    bankReceipts: bankReceiptUseCases(deps),
    bankReturns: unmatchedReturnUseCases(deps),
    bankRecurrences: bankRecurrenceUseCases(deps),
    bankReconcile: bankReconcileUseCases(deps),
    bankWork: bankWorkUseCases(deps),
    sealedSecrets: sealedSecretUseCases(deps),
    charges: chargeUseCases(deps, authentication),
    /** Charges with a due date (issue 38): created here, then read, paid and cancelled as any charge. */
    dueDateCharges: dueDateChargeUseCases(deps),
    /** The dashboard's preview of a charge with a due date: the amount due by date, nothing kept. */
    dueDatePreview: dueDatePreviewUseCases(deps),
    customers: customerUseCases(deps),
    paymentLinks: paymentLinkUseCases(deps),
    checkout: checkoutUseCases(deps),
    balance: balanceUseCases(deps),
    withdrawals,
    /** Production withdrawals paid out by the bank (issue 36 §1): the payout job's passes. */
    withdrawalPayouts,
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
    /** The statement (extrato) of a mode: the ledger's movements with a running balance (issue 37 §2). */
    statement: statementUseCases(deps),
    /** The e-mail notices (issue 37 §2): the outbox's pass and the daily summaries (jobs/notices.ts). */
    notices: noticeUseCases(deps),
    /** Each member's own choice of e-mail notices. */
    noticePreferences: noticePreferenceUseCases(deps),
    /** The public API's request logs (issue 37 §2): noted after each answer, written in batches (jobs/request-logs.ts). */
    requestLogs: requestLogUseCases(deps, authentication),
    dashboardMoney: dashboardMoneyUseCases(deps, { withdrawals }),
    timeline: transactionTimelineUseCases(deps),
    dashboardKeys: dashboardKeyUseCases(deps),
    dashboardWebhooks: dashboardWebhookUseCases(deps, options.webhookUrlGuard),
  };
}

export type Domain = ReturnType<typeof createDomain>;
