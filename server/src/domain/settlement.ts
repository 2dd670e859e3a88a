import type { StoreTx } from "./ports/store.js";
import { type DomainDeps, formatBRL } from "./deps.js";
import { DomainError, notFound } from "./errors.js";
import { recordEvent } from "./events.js";
import { newId } from "./ids.js";
import type { Account, Dispute, Scope, TransactionRecord, WithdrawalRecord } from "./model.js";
import { creditPaidCharge } from "./charges.js";
import { endToEndId } from "./withdrawals.js";
import { effectiveStatus, presentTransaction, presentWithdrawal } from "./presenters.js";

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
        const paid = await creditPaidCharge(tx, await accountOf(tx, charge.accountId), charge, at);
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
        if (w.status !== "PENDING") {
          throw new DomainError("REQUEST_ERROR", `O saque não está pendente: status atual ${w.status}.`);
        }
        const at = now();
        const net = w.amountCents - w.feeCents;
        const reason = input.failureReason ?? "Transferência Pix recusada pela instituição de destino.";
        let settled: WithdrawalRecord;
        if (input.outcome === "PAID") {
          settled = {
            ...w,
            status: "PAID",
            paidAmountCents: net,
            transfers: [
              { id: newId("trf"), amountCents: net, status: "PAID", endToEndId: endToEndId(at), completedAt: at },
            ],
          };
        } else if (input.outcome === "PARTIALLY_PAID") {
          const paid = input.paidAmountCents;
          if (paid === undefined || paid <= 0 || paid >= net) {
            throw new DomainError(
              "REQUEST_ERROR",
              `paidAmountCents deve ser maior que 0 e menor que o valor líquido (${formatBRL(net)}).`,
            );
          }
          settled = {
            ...w,
            status: "PARTIALLY_PAID",
            paidAmountCents: paid,
            returnedAmountCents: net - paid,
            failureReason: reason,
            transfers: [
              { id: newId("trf"), amountCents: paid, status: "PAID", endToEndId: endToEndId(at), completedAt: at },
              { id: newId("trf"), amountCents: net - paid, status: "FAILED", endToEndId: null, completedAt: at },
            ],
          };
        } else {
          settled = {
            ...w,
            status: "FAILED",
            paidAmountCents: 0,
            returnedAmountCents: w.amountCents,
            failureReason: reason,
            transfers: w.transfers.map((t) => ({ ...t, status: "FAILED" as const, completedAt: at })),
          };
        }
        settled = { ...settled, updatedAt: at };
        await tx.withdrawals.update(settled);
        if (settled.returnedAmountCents > 0) {
          await tx.ledger.append({
            id: newId("led"),
            accountId: w.accountId,
            livemode: w.livemode,
            bucket: "available",
            amountCents: settled.returnedAmountCents,
            releaseAt: null,
            kind: "withdrawal_returned",
            refId: w.id,
            createdAt: at,
          });
        }
        const type =
          settled.status === "PAID"
            ? "withdrawal.paid"
            : settled.status === "PARTIALLY_PAID"
              ? "withdrawal.partially_paid"
              : "withdrawal.failed";
        await recordEvent(tx, w, type, presentWithdrawal(settled), at);
        return presentWithdrawal(settled);
      });
    },

    /** Opens a MED on a paid charge: the amount moves from available to blocked. */
    async openDispute(transactionId: string, amountCents?: number) {
      return deps.store.transaction(async (tx) => {
        const charge = await lockedReload(tx, () => tx.transactions.getById(transactionId));
        const at = now();
        if (effectiveStatus(charge, at) !== "PAID") {
          throw new DomainError("REQUEST_ERROR", "Só cobranças pagas podem ser contestadas.");
        }
        if (charge.dispute) throw new DomainError("REQUEST_ERROR", "Esta cobrança já tem uma contestação.");
        const amount = amountCents ?? charge.amountCents;
        if (amount > charge.amountCents) {
          throw new DomainError("REQUEST_ERROR", "O valor contestado passa do valor da cobrança.");
        }
        const totals = await tx.ledger.totals(charge, at);
        if (amount > totals.availableCents) {
          throw new DomainError(
            "REQUEST_ERROR",
            `Saldo disponível insuficiente para bloquear a contestação: disponível ${formatBRL(totals.availableCents)}.`,
          );
        }
        const dispute: Dispute = { id: newId("dsp"), status: "OPEN", amountCents: amount, createdAt: at };
        const scope = { accountId: charge.accountId, livemode: charge.livemode };
        for (const [bucket, sign] of [
          ["available", -1],
          ["blocked", 1],
        ] as const) {
          await tx.ledger.append({
            id: newId("led"),
            ...scope,
            bucket,
            amountCents: sign * amount,
            releaseAt: null,
            kind: "dispute_opened",
            refId: dispute.id,
            createdAt: at,
          });
        }
        const updated: TransactionRecord = { ...charge, dispute, updatedAt: at };
        await tx.transactions.update(updated);
        return presentTransaction(updated, at);
      });
    },

    /** Closes a MED: WON releases the blocked amount; LOST returns it to the payer. */
    async closeDispute(disputeId: string, outcome: "WON" | "LOST") {
      return deps.store.transaction(async (tx) => {
        const charge = await lockedReload(tx, () => tx.transactions.getByDisputeId(disputeId));
        const dispute = charge.dispute as Dispute;
        if (dispute.status !== "OPEN") {
          throw new DomainError("REQUEST_ERROR", `A contestação já foi encerrada: ${dispute.status}.`);
        }
        const at = now();
        const scope = { accountId: charge.accountId, livemode: charge.livemode };
        await tx.ledger.append({
          id: newId("led"),
          ...scope,
          bucket: "blocked",
          amountCents: -dispute.amountCents,
          releaseAt: null,
          kind: outcome === "WON" ? "dispute_won" : "dispute_lost",
          refId: dispute.id,
          createdAt: at,
        });
        if (outcome === "WON") {
          await tx.ledger.append({
            id: newId("led"),
            ...scope,
            bucket: "available",
            amountCents: dispute.amountCents,
            releaseAt: null,
            kind: "dispute_won",
            refId: dispute.id,
            createdAt: at,
          });
        }
        const updated: TransactionRecord = { ...charge, dispute: { ...dispute, status: outcome }, updatedAt: at };
        await tx.transactions.update(updated);
        return presentTransaction(updated, at);
      });
    },
  };
}
