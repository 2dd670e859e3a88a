import { changedFields, recordAudit, recordChange } from "../audit/index.js";
import { type AuditedBy } from "../audit/model.js";
import type { DomainDeps } from "../deps.js";
import { DomainError } from "../core/errors.js";
import { accountOf, lockedReload } from "../core/locked.js";
import { creditPaidCharge } from "../payments/index.js";
import { closeDisputeOf, openDisputeOn } from "../payments/index.js";
import { settleRefundRecord } from "../payments/index.js";
import { settleWithdrawalRecord } from "../balance/index.js";
import { presentRefund, presentTransaction } from "../payments/index.js";
import { presentWithdrawal } from "../balance/index.js";

/**
 * The settlement simulator: stands in for the acquirer in production mode, driven by the operator
 * API. A real PSP plugs in behind the same operations. Each move is written to the account's audit
 * log with the operator as its actor (`by`), in the move's transaction.
 */
export function settlementUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();
  return {
    /** Pays a production charge as if the payer had. */
    async payCharge(transactionId: string, by: AuditedBy) {
      return deps.store.transaction(async (tx) => {
        const charge = await lockedReload(tx, () => tx.transactions.getById(transactionId));
        if (!charge.livemode) {
          throw new DomainError("REQUEST_ERROR", "Cobranças de teste são pagas pela rota de sandbox da API pública.");
        }
        const at = now();
        const paid = await creditPaidCharge(tx, await accountOf(tx, charge.accountId), charge, at, {
          config: deps.config,
        });
        await recordChange(tx, {
          by,
          action: "simulator.charge_paid",
          target: "transaction",
          before: charge,
          after: paid,
          fields: ["status", "paidAt"],
          at,
        });
        return presentTransaction(paid, at);
      });
    },

    /** Ends a PENDING withdrawal: all paid, part paid (the rest returns), or failed (all returns). */
    async settleWithdrawal(
      withdrawalId: string,
      input: { outcome: "PAID" | "PARTIALLY_PAID" | "FAILED"; paidAmountCents?: number; failureReason?: string },
      by: AuditedBy,
    ) {
      return deps.store.transaction(async (tx) => {
        const w = await lockedReload(tx, () => tx.withdrawals.getById(withdrawalId));
        const decision =
          input.outcome === "PARTIALLY_PAID"
            ? {
                outcome: input.outcome,
                paidAmountCents: input.paidAmountCents ?? 0,
                failureReason: input.failureReason,
              }
            : input.outcome === "FAILED"
              ? { outcome: input.outcome, failureReason: input.failureReason }
              : { outcome: input.outcome };
        const at = now();
        const settled = await settleWithdrawalRecord(tx, w, decision, at);
        await recordChange(tx, {
          by,
          action: "simulator.withdrawal_settled",
          target: "withdrawal",
          before: w,
          after: settled,
          fields: ["status", "paidAmountCents", "returnedAmountCents", "failureReason"],
          at,
        });
        return presentWithdrawal(settled);
      });
    },

    /** Ends a PENDING refund: COMPLETED, or FAILED with its amount back in the balance. */
    async settleRefund(
      refundId: string,
      input: { outcome: "COMPLETED" | "FAILED"; failureReason?: string },
      by: AuditedBy,
    ) {
      return deps.store.transaction(async (tx) => {
        const refund = await lockedReload(tx, () => tx.refunds.getById(refundId));
        const decision =
          input.outcome === "FAILED" ? { outcome: input.outcome, failureReason: input.failureReason } : input;
        const at = now();
        const settled = await settleRefundRecord(tx, refund, decision, at);
        await recordChange(tx, {
          by,
          action: "simulator.refund_settled",
          target: "refund",
          before: refund,
          after: settled,
          fields: ["status", "failureReason"],
          at,
        });
        return presentRefund(settled);
      });
    },

    /** Opens a MED on a paid charge: the amount moves from available to blocked. */
    async openDispute(transactionId: string, amountCents: number | undefined, by: AuditedBy) {
      return deps.store.transaction(async (tx) => {
        const charge = await lockedReload(tx, () => tx.transactions.getById(transactionId));
        const at = now();
        const disputed = await openDisputeOn(tx, charge, amountCents, at);
        await recordChange(tx, {
          by,
          action: "simulator.dispute_opened",
          target: "transaction",
          before: charge,
          after: disputed,
          fields: ["dispute"],
          at,
        });
        return presentTransaction(disputed, at);
      });
    },

    /** Closes a MED: WON releases the blocked amount; LOST returns it to the payer. */
    async closeDispute(disputeId: string, outcome: "WON" | "LOST", by: AuditedBy) {
      return deps.store.transaction(async (tx) => {
        const charge = await lockedReload(tx, () => tx.transactions.getByDisputeId(disputeId));
        const at = now();
        const closed = await closeDisputeOf(tx, charge, outcome, at);
        await recordAudit(tx, {
          accountId: charge.accountId,
          by,
          action: "simulator.dispute_closed",
          target: { type: "dispute", id: disputeId },
          livemode: charge.livemode,
          changes: changedFields(charge, closed, ["dispute"]),
          at,
        });
        return presentTransaction(closed, at);
      });
    },
  };
}
