import type { StoreReads, StoreTx } from "../ports/store.js";
import type { RefundDecision } from "../ports/acquirer.js";
import { type ScopedCaller, acquirerFor, type DomainDeps } from "../deps.js";
import { addSeconds } from "../core/time.js";
import { formatBRL } from "../core/money.js";
import { DomainError, notFound } from "../core/errors.js";
import { recordEvent } from "../webhooks/index.js";
import { auditChange, requireActiveForProduction } from "../identity/index.js";
import { once } from "../core/idempotency.js";
import { newId, randomBase62 } from "../core/ids.js";
import type { PageRequest, RefundRecord, Schemas, TransactionRecord } from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import { refundLimits } from "../core/policy.js";
import { isPending } from "../balance/index.js";
import { effectiveStatus, presentRefund } from "./presenters.js";
import { type BankRefund, BankRefusedError, type PixBank } from "../ports/pix-bank.js";
import type { Scope } from "../core/model.js";
import { bankDownRefusal, bankFor, bankTask, bankTaskId, bankWaitMs, untilOrNull } from "./bank-charges.js";

const refundWindowDays = refundLimits.windowDays;

/** A Pix return id shaped like the BCB's: D + ISPB (8) + yyyyMMddHHmm + 11 characters. */
const returnId = (at: string) => `D00000000${at.slice(0, 16).replace(/[-T:]/g, "")}${randomBase62(11)}`;

/** What can still be refunded: the amount, minus refunds not failed, minus what a lost MED returned. */
function refundableCents(charge: TransactionRecord): number {
  const lost = charge.dispute?.status === "LOST" ? charge.dispute.amountCents : 0;
  return Math.max(0, charge.amountCents - charge.refundedAmountCents - lost);
}

/** The ids of every refund of `charge` (failed ones too: their returns cancel their debits). */
async function refundIdsOf(tx: Pick<StoreReads, "refunds">, charge: TransactionRecord): Promise<string[]> {
  const ids: string[] = [];
  for (let startingAfter: string | undefined; ;) {
    const page = await tx.refunds.listByTransaction(charge, charge.id, { limit: 100, startingAfter });
    ids.push(...page.items.map((r) => r.id));
    if (!page.hasMore || page.items.length === 0) return ids;
    startingAfter = page.items[page.items.length - 1]?.id;
  }
}

/** What of a charge's net amount is still pending at `at`, and when it is released (record 0055). */
interface ChargePending {
  cents: number;
  releaseAt: string | null;
}

/**
 * The charge's own pending money at `at` (record 0055): its `charge_paid` credit while its release
 * is ahead, less the pending parts of its refunds (a failed one's return cancels its part), never
 * more than the scope's pending money of that release instant (test mode's "release now" moves a
 * whole instant to available without the charge's entries seeing it). Zero once released.
 */
async function pendingOfCharge(
  tx: Pick<StoreReads, "refunds" | "ledger">,
  charge: TransactionRecord,
  at: string,
): Promise<ChargePending> {
  const credit = (await tx.ledger.listByRefs(charge, [charge.id])).find(
    (e) => e.kind === "charge_paid" && isPending(e, at),
  );
  if (!credit?.releaseAt) return { cents: 0, releaseAt: null };
  const releaseAt = credit.releaseAt;
  const refundIds = await refundIdsOf(tx, charge);
  const refundParts = refundIds.length === 0 ? [] : await tx.ledger.listByRefs(charge, refundIds);
  const own = refundParts
    .filter((e) => e.bucket === "available" && e.releaseAt === releaseAt)
    .reduce((sum, e) => sum + e.amountCents, credit.amountCents);
  const ofInstant = await tx.ledger.sumReleasingAt(charge, releaseAt);
  return { cents: Math.max(0, Math.min(own, ofInstant)), releaseAt };
}

/**
 * Where a refund of `charge` asked at `at` would take its money from, read outside a transaction
 * for the dashboard's confirmation (the refund itself reads the same figures under the scope lock):
 * null unless the charge is paid and something of it is left to refund.
 */
export async function refundSourcesOf(
  read: StoreReads,
  charge: TransactionRecord,
  at: string,
): Promise<{ chargePendingCents: number; availableCents: number } | null> {
  if (effectiveStatus(charge, at) !== "PAID" || refundableCents(charge) === 0) return null;
  const [pending, totals] = await Promise.all([pendingOfCharge(read, charge, at), read.ledger.totals(charge, at)]);
  return { chargePendingCents: pending.cents, availableCents: Math.max(0, totals.availableCents) };
}

/** A refund's amount split by where it is taken from (record 0055). */
interface RefundSplit {
  amount: number;
  /** Taken from the charge's own pending money, released at `releaseAt`. */
  pending: { cents: number; releaseAt: string } | null;
  /** Taken from the available balance. */
  availableCents: number;
}

/**
 * Checks every rule of a refund of `charge` at `at` and answers the amount to refund, split: the
 * charge's own pending money first, then the available balance (record 0055). Called under the
 * scope lock, so the figures it reads cannot change before the refund is written.
 */
async function refundAmount(
  tx: StoreTx,
  charge: TransactionRecord,
  requested: number | undefined,
  at: string,
): Promise<RefundSplit> {
  const status = effectiveStatus(charge, at);
  if (status !== "PAID") {
    throw new DomainError("REQUEST_ERROR", `Só cobranças pagas podem ser devolvidas: status atual ${status}.`);
  }
  if (charge.paidAt && addSeconds(charge.paidAt, refundWindowDays * 86_400) < at) {
    throw new DomainError(
      "REQUEST_ERROR",
      `O prazo de devolução terminou: ${refundWindowDays} dias depois do pagamento (${charge.paidAt}).`,
    );
  }
  if (charge.dispute?.status === "OPEN") {
    throw new DomainError(
      "REQUEST_ERROR",
      "A cobrança tem uma contestação (MED) em aberto; devolva depois que ela for encerrada.",
    );
  }
  const refundable = refundableCents(charge);
  if (refundable === 0) throw new DomainError("REQUEST_ERROR", "Nada mais a devolver desta cobrança.");
  const amount = requested ?? refundable;
  if (amount > refundable) {
    throw new DomainError(
      "REQUEST_ERROR",
      `O valor passa do que ainda pode ser devolvido desta cobrança (${formatBRL(refundable)}).`,
    );
  }
  const pending = await pendingOfCharge(tx, charge, at);
  const fromPending = Math.min(amount, pending.cents);
  const rest = amount - fromPending;
  const totals = await tx.ledger.totals(charge, at);
  if (rest > totals.availableCents) {
    throw new DomainError(
      "INSUFFICIENT_BALANCE",
      `Saldo insuficiente para a devolução: desta cobrança ainda a liberar ${formatBRL(pending.cents)}, ` +
        `disponível ${formatBRL(Math.max(0, totals.availableCents))}.`,
    );
  }
  return {
    amount,
    pending: fromPending > 0 && pending.releaseAt ? { cents: fromPending, releaseAt: pending.releaseAt } : null,
    availableCents: rest,
  };
}

/**
 * Ends a `PENDING` refund with the acquirer's outcome. `FAILED` gives each part of its amount back
 * where it came from (its own `refund` entries say how it was split: the pending part with its
 * release instant, the rest to the available balance) and takes it off the charge's
 * `refundedAmountCents`. Records the event.
 */
export async function settleRefundRecord(
  tx: StoreTx,
  refund: RefundRecord,
  decision: Exclude<RefundDecision, { outcome: "PENDING" }>,
  at: string,
): Promise<RefundRecord> {
  if (refund.status !== "PENDING") {
    throw new DomainError("REQUEST_ERROR", `A devolução não está pendente: status atual ${refund.status}.`);
  }
  let settled: RefundRecord;
  if (decision.outcome === "COMPLETED") {
    settled = { ...refund, status: "COMPLETED", endToEndId: decision.endToEndId ?? returnId(at), updatedAt: at };
  } else {
    settled = {
      ...refund,
      status: "FAILED",
      failureReason: decision.failureReason ?? "Devolução Pix recusada pela instituição do pagador.",
      updatedAt: at,
    };
    const charge = await tx.transactions.get(refund, refund.transactionId);
    if (!charge) throw new Error(`refund ${refund.id} without its charge`);
    await tx.transactions.update({
      ...charge,
      refundedAmountCents: charge.refundedAmountCents - refund.amountCents,
      updatedAt: at,
    });
    const parts = (await tx.ledger.listByRefs(refund, [refund.id])).filter((e) => e.kind === "refund");
    for (const part of parts) {
      await tx.ledger.append({
        id: newId("led"),
        accountId: refund.accountId,
        livemode: refund.livemode,
        bucket: "available",
        amountCents: -part.amountCents,
        releaseAt: part.releaseAt,
        kind: "refund_returned",
        refId: refund.id,
        createdAt: at,
      });
    }
  }
  await tx.refunds.update(settled);
  const type = settled.status === "COMPLETED" ? "refund.completed" : "refund.failed";
  await recordEvent(tx, refund, type, presentRefund(settled), at);
  return settled;
}

export function refundUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();
  return {
    /**
     * Refunds part or all of a paid charge: checks the rules, takes the amount from the charge's
     * own pending money first, then the available balance (record 0055), records `refund.created`, and hands it to the mode's acquirer (the sandbox decides
     * at once; production waits for the settlement). Production only for a verified account
     * (`403 ACCOUNT_NOT_ACTIVE`).
     */
    async create(
      actor: ScopedCaller,
      transactionId: string,
      body: Schemas["CreateRefundRequest"],
      idempotencyKey?: string,
    ) {
      requireActiveForProduction(actor);
      const at = now();
      let atBank: { bank: PixBank; refund: RefundRecord; endToEndId: string } | undefined;
      const outcome = await deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        return once(tx, actor.scope, "createRefund", idempotencyKey, { transactionId, ...body }, at, async () => {
          const charge = await tx.transactions.get(actor.scope, transactionId);
          if (!charge) throw notFound();
          const split = await refundAmount(tx, charge, body.amountCents, at);
          const amount = split.amount;
          const refund: RefundRecord = {
            id: newId("rfd"),
            ...actor.scope,
            transactionId: charge.id,
            status: "PENDING",
            amountCents: amount,
            reason: body.reason ?? null,
            endToEndId: null,
            failureReason: null,
            createdAt: at,
            updatedAt: at,
          };
          await tx.refunds.insert(refund);
          await auditChange(tx, actor, {
            action: "refund.created",
            target: { type: "refund", id: refund.id },
            changes: {
              transactionId: { from: null, to: charge.id },
              amountCents: { from: null, to: amount },
              reason: { from: null, to: refund.reason },
            },
            at,
          });
          await tx.transactions.update({
            ...charge,
            refundedAmountCents: charge.refundedAmountCents + amount,
            updatedAt: at,
          });
          // Record 0055: the charge's own pending part keeps its release instant (the release
          // then brings that much less); the rest leaves the available balance now.
          const parts = [
            ...(split.pending ? [{ cents: split.pending.cents, releaseAt: split.pending.releaseAt }] : []),
            ...(split.availableCents > 0 ? [{ cents: split.availableCents, releaseAt: null }] : []),
          ];
          for (const part of parts) {
            await tx.ledger.append({
              id: newId("led"),
              ...actor.scope,
              bucket: "available",
              amountCents: -part.cents,
              releaseAt: part.releaseAt,
              kind: "refund",
              refId: refund.id,
              createdAt: at,
            });
          }
          await recordEvent(tx, actor.scope, "refund.created", presentRefund(refund), at);
          // Production with the bank connected: a refund of a Pix the bank confirmed is a
          // devolução of it (`requestRefund`), sent once this transaction commits; its task
          // follows it to the end if the bank does not answer in time.
          const bank = await bankFor(deps, actor.scope);
          const received = bank ? await tx.receivedPix.getCreditedTo(charge.id) : null;
          if (bank && received) {
            // The bank known to be down (its breaker open): 503 at once, and this transaction,
            // the refund and its debit with it, rolled back.
            const downFor = bank.downForSeconds?.() ?? null;
            if (downFor !== null) throw bankDownRefusal(downFor, "a devolução");
            const due = new Date(Date.parse(at) + bankWaitMs(deps)).toISOString();
            await tx.bankTasks.put(bankTask("refund", refund.id, refund, due, at));
            atBank = { bank, refund, endToEndId: received.id };
            return { status: 201, body: presentRefund(refund) };
          }
          const decision = await acquirerFor(deps, actor.scope.livemode).sendRefund(refund);
          const final = decision.outcome === "PENDING" ? refund : await settleRefundRecord(tx, refund, decision, at);
          return { status: 201, body: presentRefund(final) };
        });
      });
      if (!atBank) return outcome;
      const sent = atBank;
      const finished = await untilOrNull(
        requestRefundAtBank(deps, sent.bank, sent.refund, sent.endToEndId),
        bankWaitMs(deps),
      );
      return { status: 201, body: presentRefund(finished ?? sent.refund), replayed: false as const };
    },

    async get(actor: ScopedCaller, id: string) {
      const refund = await deps.store.read.refunds.get(actor.scope, id);
      if (!refund) throw notFound();
      return presentRefund(refund);
    },

    async listForTransaction(actor: ScopedCaller, transactionId: string, page: PageRequest) {
      const charge = await deps.store.read.transactions.get(actor.scope, transactionId);
      if (!charge) throw notFound();
      const result = await pageOrInvalidCursor(() =>
        deps.store.read.refunds.listByTransaction(actor.scope, transactionId, page),
      );
      return { data: result.items.map(presentRefund), hasMore: result.hasMore };
    },
  };
}

/** The devolução's id at the bank: `svc` + the refund's id without `_` (at most 35 characters). */
export const bankRefundIdOf = (refundId: string): string => `svc${refundId.replace("_", "")}`;

/** The refund id a devolução id of ours names, or null. */
export function refundIdOfBank(id: string): string | null {
  const match = /^svcrfd([A-Za-z0-9]{20,29})$/.exec(id);
  return match ? `rfd_${match[1]}` : null;
}

/**
 * Applies the bank's word on a devolução to our `PENDING` refund, under the scope's lock:
 * `DEVOLVIDO` completes it (with the bank's return id), `NAO_REALIZADO` fails it (the amount
 * returns to the balance), `EM_PROCESSAMENTO` leaves it. Answers the refund as it then is; a
 * refund already ended is left as it is (a second callback, a read after the answer).
 */
async function applyBankRefund(
  tx: StoreTx,
  refundId: string,
  scope: Scope,
  answer: BankRefund | { refused: string },
  at: string,
): Promise<RefundRecord | null> {
  await tx.lockScope(scope);
  const refund = await tx.refunds.get(scope, refundId);
  if (!refund) return null;
  if (refund.status !== "PENDING") {
    await tx.bankTasks.delete(bankTaskId("refund", refund.id));
    return refund;
  }
  if ("refused" in answer) {
    await tx.bankTasks.delete(bankTaskId("refund", refund.id));
    return settleRefundRecord(tx, refund, { outcome: "FAILED", failureReason: answer.refused }, at);
  }
  if (answer.status === "EM_PROCESSAMENTO") return refund;
  await tx.bankTasks.delete(bankTaskId("refund", refund.id));
  return answer.status === "DEVOLVIDO"
    ? settleRefundRecord(tx, refund, { outcome: "COMPLETED", endToEndId: answer.returnId }, at)
    : settleRefundRecord(
        tx,
        refund,
        { outcome: "FAILED", failureReason: answer.reason ?? "Devolução Pix não realizada pelo banco." },
        at,
      );
}

/**
 * Asks the bank for the devolução of `refund` (idempotent on its id) and applies the answer.
 * Never throws: a bank that does not answer leaves the refund `PENDING` (its task reads it back
 * later) and answers null.
 */
export async function requestRefundAtBank(
  deps: Pick<DomainDeps, "store" | "clock" | "logger">,
  bank: PixBank,
  refund: RefundRecord,
  endToEndId: string,
): Promise<RefundRecord | null> {
  let answer: BankRefund | { refused: string };
  try {
    answer = await bank.requestRefund({
      endToEndId,
      refundId: bankRefundIdOf(refund.id),
      amountCents: refund.amountCents,
      ...(refund.reason ? { description: refund.reason.slice(0, 140) } : {}),
    });
  } catch (error) {
    if (error instanceof BankRefusedError)
      answer = { refused: `O banco recusou a devolução: ${error.detail}`.slice(0, 500) };
    else {
      deps.logger.warn({ err: error, refundId: refund.id }, "bank: refund not sent yet");
      return null;
    }
  }
  return applyAnswer(deps, refund, answer);
}

/** Applies a bank's answer about `refund` in its own transaction; null (logged) when that fails. */
export async function applyAnswer(
  deps: Pick<DomainDeps, "store" | "clock" | "logger">,
  refund: RefundRecord,
  answer: BankRefund | { refused: string },
): Promise<RefundRecord | null> {
  try {
    return await deps.store.transaction((tx) =>
      applyBankRefund(tx, refund.id, refund, answer, deps.clock.now().toISOString()),
    );
  } catch (error) {
    deps.logger.error({ err: error, refundId: refund.id }, "bank: refund answer not applied");
    return null;
  }
}
