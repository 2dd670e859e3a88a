import type { components } from "../../../../generated/admin-api.js";
import type { AuditedBy } from "../audit/index.js";
import { DomainError } from "../core/errors.js";
import { newId } from "../core/ids.js";
import type { DomainDeps } from "../deps.js";
import {
  BankDownError,
  BankRefusedError,
  BankUnavailableError,
  type BankRefund,
  type PixBank,
} from "../ports/pix-bank.js";
import type { ReceivedPixRecord } from "../ports/received-pix-store.js";
import { noBankConnection } from "./connection.js";

// The operator returns an unmatched receipt to its payer (record 0051, "Unmatched receipts"): a
// devolução of the full amount at the bank (`PUT /pix/{e2eid}/devolucao/{id}`), one id of ours per
// attempt, derived from the end-to-end id and the attempt's number. A return the bank has not
// settled (`PENDING`) is read back first (`readRefund`) and asked again only when the bank does
// not know it; the reconciler and the bank's callbacks follow it too (`received.ts`, `follow`).
// No merchant's balance moves: the money never was theirs.

type Schemas = components["schemas"];

/** How long a caller waits before asking again when the bank does not answer. */
const bankDownRetryAfterSeconds = 30;

/** Our devolução id of a receipt's `attempt`: `d`, the end-to-end id's last 32 characters, the attempt in base 36 (≤ 35). */
const returnIdOf = (endToEndId: string, attempt: number): string =>
  `d${endToEndId.replace(/[^A-Za-z0-9]/g, "").slice(-32)}${attempt.toString(36)}`;

/** An unmatched receipt as the operator sees it, with its return. */
export function presentReceipt(r: ReceivedPixRecord): Schemas["UnmatchedReceipt"] {
  return {
    endToEndId: r.id,
    txid: r.txid,
    amountCents: r.amountCents,
    paidAt: r.paidAt,
    payerName: r.payerName,
    payerDocument: r.payerDocument,
    reason: r.reason ?? "",
    receivedAt: r.createdAt,
    ...(r.returnStatus === null || r.returnId === null
      ? {}
      : {
          payerReturn: {
            status: r.returnStatus,
            id: r.returnId,
            attempts: r.returnAttempts,
            ...(r.returnedAt === null ? {} : { returnedAt: r.returnedAt }),
            ...(r.returnFailureReason === null ? {} : { failureReason: r.returnFailureReason }),
          },
        }),
  };
}

const notReturnable = (message: string) => new DomainError("REQUEST_ERROR", message);

/**
 * Applies the bank's word on the latest attempt of `kept`'s return (`PENDING`): `DEVOLVIDO` →
 * `COMPLETED`, `NAO_REALIZADO` or a refusal → `FAILED`, `EM_PROCESSAMENTO` → unchanged. Answers
 * the row as it is afterwards (another process may have applied it first).
 */
export async function applyReturnAnswer(
  deps: Pick<DomainDeps, "store" | "clock" | "logger">,
  kept: ReceivedPixRecord,
  answer: BankRefund | { refused: string },
): Promise<ReceivedPixRecord> {
  if (kept.returnStatus !== "PENDING") return kept;
  if ("status" in answer && answer.status === "EM_PROCESSAMENTO") return kept;
  const completed = "status" in answer && answer.status === "DEVOLVIDO";
  const failure =
    "refused" in answer ? answer.refused : (answer.reason ?? "O banco não realizou a devolução.").slice(0, 500);
  const after: ReceivedPixRecord = {
    ...kept,
    returnStatus: completed ? "COMPLETED" : "FAILED",
    returnedAt: completed ? deps.clock.now().toISOString() : null,
    returnFailureReason: completed ? null : failure,
  };
  const moved = await deps.store.transaction((tx) =>
    tx.receivedPix.updateReturn(after, { returnAttempts: kept.returnAttempts, returnStatus: "PENDING" }),
  );
  if (moved) {
    deps.logger.info({ endToEndId: kept.id, status: after.returnStatus }, "bank: unmatched receipt's return settled");
    return after;
  }
  return (await deps.store.read.receivedPix.get(kept.id)) ?? kept;
}

/** Asks the bank for `kept`'s latest attempt (idempotent on its id) and applies the answer. */
async function requestReturn(
  deps: Pick<DomainDeps, "store" | "clock" | "logger">,
  bank: PixBank,
  kept: ReceivedPixRecord,
): Promise<ReceivedPixRecord> {
  let answer: BankRefund | { refused: string };
  try {
    answer = await bank.requestRefund({
      endToEndId: kept.id,
      refundId: kept.returnId as string,
      amountCents: kept.amountCents,
      description: "Devolução de Pix recebido sem cobrança correspondente.",
    });
  } catch (error) {
    if (!(error instanceof BankRefusedError)) throw error;
    answer = { refused: `O banco recusou a devolução: ${error.detail}`.slice(0, 500) };
  }
  return applyReturnAnswer(deps, kept, answer);
}

export function unmatchedReturnUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();

  /** Starts the next attempt (under a compare-and-set on the row), audited in the platform's change log. */
  async function nextAttempt(kept: ReceivedPixRecord, by: AuditedBy): Promise<ReceivedPixRecord> {
    const attempt = kept.returnAttempts + 1;
    const after: ReceivedPixRecord = {
      ...kept,
      returnStatus: "PENDING",
      returnId: returnIdOf(kept.id, attempt),
      returnAttempts: attempt,
      returnedAt: null,
      returnFailureReason: null,
    };
    const at = now();
    const moved = await deps.store.transaction(async (tx) => {
      if (!(await tx.receivedPix.updateReturn(after, kept))) return false;
      await tx.bankConnectionChanges.append({
        id: newId("bch"),
        action: "unmatched_receipt.return_requested",
        ip: by.ip,
        changes: {
          endToEndId: { from: null, to: kept.id },
          amountCents: { from: null, to: kept.amountCents },
          returnId: { from: kept.returnId, to: after.returnId },
        },
        createdAt: at,
      });
      return true;
    });
    if (!moved) throw notReturnable("A devolução deste recebimento acabou de ser pedida por outra requisição.");
    return after;
  }

  /**
   * Reads a `PENDING` return back first (asked again only if the bank does not know it); a new
   * attempt when there is none or it failed. `processing`: the bank still processed the return
   * that was pending before this request.
   */
  async function follow(
    bank: PixBank,
    kept: ReceivedPixRecord,
    by: AuditedBy,
  ): Promise<{ after: ReceivedPixRecord; processing: boolean }> {
    if (kept.returnStatus === "PENDING") {
      const known = await bank.readRefund(kept.id, kept.returnId as string);
      const after = known ? await applyReturnAnswer(deps, kept, known) : await requestReturn(deps, bank, kept);
      if (after.returnStatus !== "FAILED")
        return { after, processing: known !== null && after.returnStatus === "PENDING" };
      kept = after;
    }
    return { after: await requestReturn(deps, bank, await nextAttempt(kept, by)), processing: false };
  }

  return {
    /**
     * Returns the unmatched receipt `endToEndId` to its payer (`POST
     * /admin/v1/bank/unmatched-receipts/{endToEndId}/return`). Answers the receipt and whether
     * the bank still processes its return (`202`).
     */
    async returnReceipt(
      endToEndId: string,
      by: AuditedBy,
    ): Promise<{ receipt: Schemas["UnmatchedReceipt"]; pending: boolean }> {
      const bank = await deps.bank?.current();
      if (!bank) throw noBankConnection();
      const kept = await deps.store.read.receivedPix.get(endToEndId);
      if (!kept) throw new DomainError("NOT_FOUND", "Nenhum recebimento não identificado com este end-to-end id.");
      if (kept.outcome !== "UNMATCHED")
        throw notReturnable("Este recebimento foi creditado a uma cobrança: devolva-o pelo reembolso da cobrança.");
      if (kept.returnStatus === "COMPLETED") throw notReturnable("Este recebimento já foi devolvido ao pagador.");
      const downFor = bank.downForSeconds?.() ?? null;
      if (downFor !== null) throw new DomainError("SERVICE_UNAVAILABLE", undefined, { retryAfterSeconds: downFor });
      let after: ReceivedPixRecord;
      let processing = false;
      try {
        ({ after, processing } = await follow(bank, kept, by));
      } catch (error) {
        if (error instanceof BankDownError) {
          deps.logger.warn({ err: error, endToEndId }, "bank: unmatched receipt's return not sent");
          throw new DomainError("SERVICE_UNAVAILABLE", undefined, { retryAfterSeconds: error.retryAfterSeconds });
        }
        if (!(error instanceof BankUnavailableError)) throw error;
        deps.logger.warn({ err: error, endToEndId }, "bank: unmatched receipt's return not answered yet");
        const current = await deps.store.read.receivedPix.get(endToEndId);
        if (current?.returnStatus !== "PENDING") {
          throw new DomainError("SERVICE_UNAVAILABLE", undefined, { retryAfterSeconds: bankDownRetryAfterSeconds });
        }
        after = current;
      }
      if (processing) {
        throw notReturnable("A devolução deste recebimento está em processamento no banco.");
      }
      return { receipt: presentReceipt(after), pending: after.returnStatus === "PENDING" };
    },
  };
}
