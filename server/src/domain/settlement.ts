import type { StoreTx } from "./ports/store.js";
import type { DomainDeps } from "./deps.js";
import { DomainError, notFound } from "./errors.js";
import type { Account, Scope } from "./model.js";
import { creditPaidCharge } from "./charges.js";
import { closeDisputeOf, openDisputeOn } from "./disputes.js";
import { settleRefundRecord } from "./refunds.js";
import { settleWithdrawalRecord } from "./withdrawals.js";
import { presentRefund, presentTransaction, presentWithdrawal } from "./presenters.js";

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
 * API. A real PSP plugs in behind the same operations.
 */
export function settlementUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();
  return {
    /** Pays a production charge as if the payer had. */
    async payCharge(transactionId: string) {
      return deps.store.transaction(async (tx) => {
        const charge = await lockedReload(tx, () => tx.transactions.getById(transactionId));
        if (!charge.livemode) {
          throw new DomainError("REQUEST_ERROR", "Cobranças de teste são pagas pela rota de sandbox da API pública.");
        }
        const at = now();
        const paid = await creditPaidCharge(tx, await accountOf(tx, charge.accountId), charge, at, {
          config: deps.config,
        });
        return presentTransaction(paid, at);
      });
    },

    /** Ends a PENDING withdrawal: all paid, part paid (the rest returns), or failed (all returns). */
    async settleWithdrawal(
      withdrawalId: string,
      input: { outcome: "PAID" | "PARTIALLY_PAID" | "FAILED"; paidAmountCents?: number; failureReason?: string },
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
        return presentWithdrawal(await settleWithdrawalRecord(tx, w, decision, now()));
      });
    },

    /** Ends a PENDING refund: COMPLETED, or FAILED with its amount back in the balance. */
    async settleRefund(refundId: string, input: { outcome: "COMPLETED" | "FAILED"; failureReason?: string }) {
      return deps.store.transaction(async (tx) => {
        const refund = await lockedReload(tx, () => tx.refunds.getById(refundId));
        const decision =
          input.outcome === "FAILED" ? { outcome: input.outcome, failureReason: input.failureReason } : input;
        return presentRefund(await settleRefundRecord(tx, refund, decision, now()));
      });
    },

    /** Opens a MED on a paid charge: the amount moves from available to blocked. */
    async openDispute(transactionId: string, amountCents?: number) {
      return deps.store.transaction(async (tx) => {
        const charge = await lockedReload(tx, () => tx.transactions.getById(transactionId));
        const at = now();
        return presentTransaction(await openDisputeOn(tx, charge, amountCents, at), at);
      });
    },

    /** Closes a MED: WON releases the blocked amount; LOST returns it to the payer. */
    async closeDispute(disputeId: string, outcome: "WON" | "LOST") {
      return deps.store.transaction(async (tx) => {
        const charge = await lockedReload(tx, () => tx.transactions.getByDisputeId(disputeId));
        const at = now();
        return presentTransaction(await closeDisputeOf(tx, charge, outcome, at), at);
      });
    },
  };
}
