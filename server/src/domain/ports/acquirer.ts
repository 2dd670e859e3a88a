import type { RecurrenceRecord, RefundRecord, TransactionRecord, WithdrawalRecord } from "../core/model.js";

/**
 * The acquirer: the institution that moves the money of withdrawals and refunds (docs/decisions/
 * 0008-acquirer-port-and-settlement-simulator.md). The domain reserves the money and records the request, then hands it over
 * here, inside the same store transaction; the answer is either a final outcome, applied at once,
 * or `PENDING`, ended later through the settlement use cases (the operator's settlement simulator
 * today, a PSP's callback tomorrow). An adapter for a real PSP answers `PENDING` and must not wait
 * on the network here.
 */
export interface Acquirer {
  sendWithdrawal(withdrawal: WithdrawalRecord): Promise<WithdrawalDecision>;
  sendRefund(refund: RefundRecord): Promise<RefundDecision>;
  /**
   * A recurrence (Pix Automático) to offer the payer's bank, and a cycle charge to schedule there.
   * What follows (approval, rejection, each attempt's outcome) comes back through the recurrence
   * use cases: the sandbox routes in test mode, the settlement simulator (or a PSP's callback) in
   * production. Neither call waits on the network.
   */
  registerRecurrence(recurrence: RecurrenceRecord): Promise<{ outcome: "PENDING" }>;
  scheduleRecurringCharge(charge: TransactionRecord): Promise<{ outcome: "PENDING" }>;
}

export type WithdrawalDecision =
  | { outcome: "PENDING" }
  | { outcome: "PAID" }
  | { outcome: "PARTIALLY_PAID"; paidAmountCents: number; failureReason?: string | undefined }
  | { outcome: "FAILED"; failureReason?: string | undefined };

export type RefundDecision =
  | { outcome: "PENDING" }
  /** `endToEndId`: the return's id (rtrId) when a bank gave it; otherwise one is made up. */
  | { outcome: "COMPLETED"; endToEndId?: string | undefined }
  | { outcome: "FAILED"; failureReason?: string | undefined };

/** One acquirer per mode: test keys never reach the production one. */
export interface Acquirers {
  test: Acquirer;
  live: Acquirer;
}

/** Test-mode withdrawals to this key (type `EMAIL`) end `FAILED`. */
const sandboxFailingPixKey = "falha@sandbox.pix";
/** Test-mode withdrawals to this key (type `EMAIL`) end `PARTIALLY_PAID`, half of the net paid. */
const sandboxPartialPixKey = "parcial@sandbox.pix";
/** Test-mode refunds with this reason end `FAILED`. */
const sandboxFailingRefundReason = "sandbox:falha";

/**
 * The sandbox acquirer (test mode): every outcome at once, chosen by the magic values above;
 * anything else succeeds, as the seed's test mode always did.
 */
const sandboxAcquirer: Acquirer = {
  async sendWithdrawal(w) {
    if (w.pixKeyType === "EMAIL" && w.pixKey === sandboxFailingPixKey) {
      return { outcome: "FAILED", failureReason: "Sandbox: transferência Pix recusada (chave falha@sandbox.pix)." };
    }
    if (w.pixKeyType === "EMAIL" && w.pixKey === sandboxPartialPixKey) {
      const paid = Math.floor((w.amountCents - w.feeCents) / 2);
      const failureReason = "Sandbox: parte da transferência Pix recusada (chave parcial@sandbox.pix).";
      return paid > 0
        ? { outcome: "PARTIALLY_PAID", paidAmountCents: paid, failureReason }
        : { outcome: "FAILED", failureReason };
    }
    return { outcome: "PAID" };
  },
  async sendRefund(r) {
    if (r.reason === sandboxFailingRefundReason) {
      return { outcome: "FAILED", failureReason: "Sandbox: devolução Pix recusada (motivo sandbox:falha)." };
    }
    return { outcome: "COMPLETED" };
  },
  // The payer's moves are played by the sandbox routes (/api/v1/sandbox/recurrences/…).
  async registerRecurrence() {
    return { outcome: "PENDING" };
  },
  async scheduleRecurringCharge() {
    return { outcome: "PENDING" };
  },
};

/**
 * The settlement-simulator acquirer (production without a PSP): it accepts everything and decides
 * nothing; each withdrawal and refund stays `PENDING` until the operator settles it through
 * `/admin/v1/simulator/…` (or the CLI's `simulate`).
 */
const settlementSimulatorAcquirer: Acquirer = {
  async sendWithdrawal() {
    return { outcome: "PENDING" };
  },
  async sendRefund() {
    return { outcome: "PENDING" };
  },
  async registerRecurrence() {
    return { outcome: "PENDING" };
  },
  async scheduleRecurringCharge() {
    return { outcome: "PENDING" };
  },
};

export const builtInAcquirers: Acquirers = { test: sandboxAcquirer, live: settlementSimulatorAcquirer };
