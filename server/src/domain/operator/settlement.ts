import { changedFields, recordAudit } from "../audit/index.js";
import { type AuditedBy } from "../audit/model.js";
import type { StoreTx } from "../ports/store.js";
import type { DomainDeps } from "../deps.js";
import { DomainError, notFound } from "../core/errors.js";
import type { Account, Scope } from "../core/model.js";
import { creditPaidCharge } from "../payments/index.js";
import { closeDisputeOf, openDisputeOn } from "../payments/index.js";
import { settleRefundRecord } from "../payments/index.js";
import { settleWithdrawalRecord } from "../balance/index.js";
import { presentRefund, presentTransaction } from "../payments/index.js";
import { presentWithdrawal } from "../balance/index.js";

/**
 * Finds a record by id, takes its scope's lock, and reads it again under the lock, so what the
 * caller decides on cannot change underneath it.
 */
async function lockedReload<T extends Scope>(tx: StoreTx, read: () => Promise<T | null>): Promise<T> {
  const found = await read();
  if (!found) throw notFound();
  await tx.lockScope(found);
  return (await read()) as T;
}

async function accountOf(tx: StoreTx, accountId: string): Promise<Account> {
  const account = await tx.accounts.get(accountId);
  if (!account) throw notFound();
  return account;
}

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
        await recordAudit(tx, {
          accountId: charge.accountId,
          by,
          action: "simulator.charge_paid",
          target: { type: "transaction", id: charge.id },
          livemode: charge.livemode,
          changes: changedFields(charge, paid, ["status", "paidAt"]),
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
        await recordAudit(tx, {
          accountId: w.accountId,
          by,
          action: "simulator.withdrawal_settled",
          target: { type: "withdrawal", id: w.id },
          livemode: w.livemode,
          changes: changedFields(w, settled, ["status", "paidAmountCents", "returnedAmountCents", "failureReason"]),
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
        await recordAudit(tx, {
          accountId: refund.accountId,
          by,
          action: "simulator.refund_settled",
          target: { type: "refund", id: refund.id },
          livemode: refund.livemode,
          changes: changedFields(refund, settled, ["status", "failureReason"]),
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
        await recordAudit(tx, {
          accountId: charge.accountId,
          by,
          action: "simulator.dispute_opened",
          target: { type: "transaction", id: charge.id },
          livemode: charge.livemode,
          changes: changedFields(charge, disputed, ["dispute"]),
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
