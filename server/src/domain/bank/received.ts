import type { DomainDeps } from "../deps.js";
import { DomainError } from "../core/errors.js";
import { formatBRL } from "../core/money.js";
import type { PageRequest, TransactionRecord } from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import type { BankRefund, PixBank, ReceivedPix } from "../ports/pix-bank.js";
import type { ReceivedPixRecord } from "../ports/received-pix-store.js";
import type { StoreTx } from "../ports/store.js";
import {
  amountExpectedAt,
  applyAnswer,
  chargeIdOfTxid,
  closeDisputeOf,
  creditPaidCharge,
  effectiveStatus,
  openDisputeOn,
  refundIdOfBank,
  withBankBreakdown,
} from "../payments/index.js";
import { applyReturnAnswer, presentReceipt } from "./unmatched-return.js";

// Received Pix (issue 35; docs/decisions, "Received Pix: exactly once, and what matches nothing").
// A bank's callback is a hint, never proof: each end-to-end id is read back from the bank
// (`readReceived`) and credited only when it is to our key, carries a txid of ours and the
// charge's amount, while the charge waits for payment. The credit and the received Pix's row
// (keyed by the end-to-end id) are written in one store transaction, under the charge's scope
// lock: a second callback, another process or the reconciler finds the row and credits nothing.
// A Pix that matches nothing is kept UNMATCHED, held for the operator.

/** What became of one received Pix. */
export type ReceiptOutcome =
  /** Credited to its charge now. */
  | "credited"
  /** Already kept (credited or unmatched before): nothing done. */
  | "known"
  /** Kept as an unmatched receipt, for the operator. */
  | "unmatched"
  /** Not to the platform's key: not ours, nothing kept. */
  | "foreign"
  /** The bank does not know this end-to-end id (a forged or mistaken callback). */
  | "unknown"
  /** The bank did not answer: the reconciler will find it later. */
  | "unavailable";

/** The instant of a received Pix: the bank's `horario`, never later than our clock. */
export const paidInstant = (pix: ReceivedPix, now: string): string => {
  const at = new Date(pix.paidAt);
  if (Number.isNaN(at.getTime())) return now;
  const iso = at.toISOString();
  return iso < now ? iso : now;
};

/** Why `pix` cannot pay `charge`, or null when it can. */
function mismatch(charge: TransactionRecord | null, pix: ReceivedPix, paidAt: string): string | null {
  if (!charge || !charge.livemode) return "O txid não é de nenhuma cobrança de produção.";
  // A charge with a due date: the amount due on the Pix's date (issue 38).
  const expected = amountExpectedAt(charge, paidAt);
  if (expected === null) {
    return `A cobrança ${charge.id} não podia ser paga no dia do Pix (fora do prazo de pagamento).`;
  }
  if (pix.amountCents !== expected) {
    return `Valor recebido (${formatBRL(pix.amountCents)}) diferente do valor da cobrança ${charge.id} (${formatBRL(expected)}).`;
  }
  if (charge.cycle) return `A cobrança ${charge.id} é de um ciclo de recorrência, debitada pelo Pix Automático.`;
  const status = effectiveStatus(charge, paidAt);
  if (status !== "WAITING_PAYMENT") {
    return `A cobrança ${charge.id} não aguardava pagamento quando o Pix chegou (status ${status}).`;
  }
  return null;
}

/** Why `pix` pays none of our charges (its unmatched row's reason), or null when it pays `charge`. */
export function unmatchedReason(
  pix: ReceivedPix,
  chargeId: string | null,
  charge: TransactionRecord | null,
  paidAt: string,
): string | null {
  if (pix.txid === null) return "Pix recebido sem txid (pago à chave, sem cobrança).";
  if (chargeId === null) return `O txid ${pix.txid} não é de uma cobrança deste serviço.`;
  return mismatch(charge, pix, paidAt);
}

/**
 * `charge` as the Pix pays it: a charge with a due date carries the bank's `componentesValor` as
 * its paid breakdown (logged when the bank's parts are not ours: the total matched).
 */
export function asPaidBy(
  deps: Pick<DomainDeps, "logger">,
  charge: TransactionRecord,
  pix: ReceivedPix,
  paidAt: string,
) {
  const { charge: paying, differs } = withBankBreakdown(charge, pix, paidAt);
  if (differs) {
    deps.logger.warn(
      { transactionId: charge.id, endToEndId: pix.endToEndId, components: pix.components },
      "bank: componentesValor differs from our breakdown (the bank's is kept)",
    );
  }
  return paying;
}

/** The received Pix's row: credited to `charge`, or unmatched for `reason`. */
export const receivedRow = (
  pix: ReceivedPix,
  paidAt: string,
  at: string,
  match: { charge: TransactionRecord } | { reason: string },
): ReceivedPixRecord => ({
  id: pix.endToEndId,
  txid: pix.txid,
  amountCents: pix.amountCents,
  paidAt,
  payerName: pix.payer.name,
  payerDocument: pix.payer.document,
  outcome: "charge" in match ? "CREDITED" : "UNMATCHED",
  transactionId: "charge" in match ? match.charge.id : null,
  accountId: "charge" in match ? match.charge.accountId : null,
  livemode: "charge" in match ? match.charge.livemode : null,
  reason: "reason" in match ? match.reason : null,
  createdAt: at,
  returnStatus: null,
  returnId: null,
  returnAttempts: 0,
  returnedAt: null,
  returnFailureReason: null,
});

export function bankReceiptUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();

  /** Keeps `pix` (to our key): credits its charge, or keeps it unmatched; exactly once per end-to-end id. */
  async function keep(pix: ReceivedPix): Promise<"credited" | "known" | "unmatched"> {
    if (await deps.store.read.receivedPix.get(pix.endToEndId)) return "known";
    const chargeId = pix.txid === null ? null : chargeIdOfTxid(pix.txid);
    const found = chargeId === null ? null : await deps.store.read.transactions.getById(chargeId);
    return deps.store.transaction(async (tx) => {
      if (found) await tx.lockScope(found);
      if (await tx.receivedPix.get(pix.endToEndId)) return "known";
      const at = now();
      const paidAt = paidInstant(pix, at);
      const charge = found ? await tx.transactions.get(found, found.id) : null;
      const reason = unmatchedReason(pix, chargeId, charge, paidAt);
      if (reason !== null || !charge) {
        const kept = await tx.receivedPix.insertIfAbsent(
          receivedRow(pix, paidAt, at, { reason: reason ?? "Cobrança não encontrada." }),
        );
        if (kept) deps.logger.warn({ endToEndId: pix.endToEndId, reason }, "bank: unmatched receipt kept");
        return kept ? "unmatched" : "known";
      }
      const account = await tx.accounts.get(charge.accountId);
      if (!account) throw new Error(`charge ${charge.id} without its account`);
      await creditPaidCharge(tx, account, asPaidBy(deps, charge, pix, paidAt), paidAt, { config: deps.config });
      if (!(await tx.receivedPix.insertIfAbsent(receivedRow(pix, paidAt, at, { charge })))) {
        throw new Error(`received Pix ${pix.endToEndId} kept twice`); // rolls the credit back
      }
      return "credited";
    });
  }

  /** A devolução the bank reports on a received Pix: ours (a refund) or a MED (a dispute). */
  async function follow(pix: ReceivedPix, devolucao: BankRefund): Promise<void> {
    if (devolucao.nature === "MED_OPERACIONAL" || devolucao.nature === "MED_FRAUDE") {
      const kept = await deps.store.read.receivedPix.get(pix.endToEndId);
      if (kept?.transactionId) await followMed(kept.transactionId, devolucao);
      return;
    }
    const kept = await deps.store.read.receivedPix.get(pix.endToEndId);
    if (kept?.returnStatus === "PENDING" && kept.returnId === devolucao.refundId) {
      await applyReturnAnswer(deps, kept, devolucao); // the operator's return of an unmatched receipt
      return;
    }
    const refundId = refundIdOfBank(devolucao.refundId);
    const refund = refundId === null ? null : await deps.store.read.refunds.getById(refundId);
    if (refund?.status === "PENDING" && devolucao.status !== "EM_PROCESSAMENTO") {
      await applyAnswer(deps, refund, devolucao);
    }
  }

  /**
   * A MED devolução on a credited Pix becomes the charge's dispute, as the sandbox plays it: open
   * while the bank processes it (the amount blocked), `LOST` once returned (`DEVOLVIDO`), `WON`
   * when not (`NAO_REALIZADO`). Each move once: the charge's dispute says where it is.
   */
  async function followMed(transactionId: string, devolucao: BankRefund): Promise<void> {
    try {
      await deps.store.transaction(async (tx: StoreTx) => {
        const found = await tx.transactions.getById(transactionId);
        if (!found) return;
        await tx.lockScope(found);
        let charge = (await tx.transactions.get(found, found.id)) as TransactionRecord;
        const at = now();
        if (!charge.dispute) charge = await openDisputeOn(tx, charge, devolucao.amountCents, at);
        if (charge.dispute?.status === "OPEN" && devolucao.status !== "EM_PROCESSAMENTO") {
          await closeDisputeOf(tx, charge, devolucao.status === "DEVOLVIDO" ? "LOST" : "WON", at);
        }
      });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      deps.logger.warn({ err: error, transactionId }, "bank: MED devolução not applied");
    }
  }

  /** Keeps one received Pix as the bank reported it and follows its devoluções. */
  async function handle(bank: PixBank, pix: ReceivedPix): Promise<ReceiptOutcome> {
    if (pix.key !== bank.pixKey) {
      deps.logger.warn({ endToEndId: pix.endToEndId }, "bank: received Pix to another key ignored");
      return "foreign";
    }
    const outcome = await keep(pix);
    for (const devolucao of pix.refunds) await follow(pix, devolucao);
    return outcome;
  }

  return {
    handle,

    /**
     * The bank's callback named these end-to-end ids (a hint): each is read back from the bank
     * and kept at most once. Answers each one's outcome; a bank that does not answer leaves it to
     * the reconciler (`unavailable`). Without a bank connected, nothing is done.
     */
    async confirmReceived(endToEndIds: readonly string[]): Promise<ReceiptOutcome[]> {
      const bank = await deps.bank?.current();
      if (!bank) return endToEndIds.map(() => "unavailable");
      const outcomes: ReceiptOutcome[] = [];
      for (const id of endToEndIds) {
        let pix: ReceivedPix | null;
        try {
          pix = await bank.readReceived(id);
        } catch (error) {
          deps.logger.warn({ err: error, endToEndId: id }, "bank: received Pix not read");
          outcomes.push("unavailable");
          continue;
        }
        outcomes.push(pix ? await handle(bank, pix) : "unknown");
      }
      return outcomes;
    },

    /** The unmatched receipts, newest first (operator). */
    async listUnmatched(page: PageRequest) {
      const result = await pageOrInvalidCursor(() => deps.store.read.receivedPix.listUnmatched(page));
      return { data: result.items.map(presentReceipt), hasMore: result.hasMore };
    },
  };
}
