import type { StoreTx } from "../ports/store.js";
import { formatBRL } from "../core/money.js";
import { DomainError } from "../core/errors.js";
import { recordEvent } from "../webhooks/index.js";
import { newId } from "../core/ids.js";
import type { Dispute, TransactionRecord } from "../core/model.js";
import { effectiveStatus, presentTransaction } from "./presenters.js";

// MED (Mecanismo Especial de Devolução): the payer contests a paid charge through their bank.
// Opened and closed by the acquirer: the settlement simulator in production, the sandbox routes
// in test mode. Both run these functions under the charge's scope lock.

/** Opens a MED on a paid charge: the amount moves from available to blocked; `dispute.opened`. */
export async function openDisputeOn(
  tx: StoreTx,
  charge: TransactionRecord,
  amountCents: number | undefined,
  at: string,
): Promise<TransactionRecord> {
  if (effectiveStatus(charge, at) !== "PAID") {
    throw new DomainError("REQUEST_ERROR", "Só cobranças pagas podem ser contestadas.");
  }
  if (charge.dispute) throw new DomainError("REQUEST_ERROR", "Esta cobrança já tem uma contestação.");
  const contestable = charge.amountCents - charge.refundedAmountCents;
  const amount = amountCents ?? contestable;
  if (amount <= 0 || amount > contestable) {
    throw new DomainError(
      "REQUEST_ERROR",
      `O valor contestado passa do que a cobrança ainda tem, descontadas as devoluções (${formatBRL(contestable)}).`,
    );
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
  await recordEvent(tx, scope, "dispute.opened", presentTransaction(updated, at), at);
  return updated;
}

/** Closes a MED: WON releases the blocked amount; LOST returns it to the payer; `dispute.closed`. */
export async function closeDisputeOf(
  tx: StoreTx,
  charge: TransactionRecord,
  outcome: "WON" | "LOST",
  at: string,
): Promise<TransactionRecord> {
  const dispute = charge.dispute as Dispute;
  if (dispute.status !== "OPEN") {
    throw new DomainError("REQUEST_ERROR", `A contestação já foi encerrada: ${dispute.status}.`);
  }
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
  await recordEvent(tx, scope, "dispute.closed", presentTransaction(updated, at), at);
  return updated;
}
