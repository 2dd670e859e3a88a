import { buildBrCode } from "../../../pix/brcode.js";
import type { StoreTx } from "../../ports/store.js";
import { chargeFee, creditPaidCharge } from "../charges.js";
import { requireActiveForProduction } from "../../identity/index.js";
import { acquirerFor, type DomainDeps } from "../../deps.js";
import { formatBRL } from "../../core/money.js";
import { DomainError, fieldError } from "../../core/errors.js";
import { recordEvent } from "../../webhooks/index.js";
import { newId, randomBase62 } from "../../core/ids.js";
import { brCodeMerchant } from "../../accounts/index.js";
import { checkMetadata } from "../../core/metadata.js";
import type {
  Account,
  RecurrenceRecord,
  RecurringChargeAttempt,
  Schemas,
  TransactionRecord,
} from "../../core/model.js";
import { recurrenceLimits } from "../../core/policy.js";
import { effectiveStatus, presentTransaction } from "../presenters.js";
import { addDays, daysBetween, endOfBrasiliaDay, firstCycleFrom, isCycleDate, nextBusinessDay } from "./calendar.js";
import { recurrenceToday, requireRecurrenceStatus } from "./rules.js";
import { afterWait, owedToBank, recurrenceBankFor } from "./bank-owed.js";

// Cycle charges of a recurrence (Pix Automático): each is a Transaction with `recurrenceId` and a
// `cycle` (due date and attempts), so balance, fees, refunds, disputes and lists treat it as any
// charge. Its status follows its attempts: WAITING_PAYMENT while one is SCHEDULED, PAID once one is,
// FAILED when the last failed with no retry left, CANCELLED when cancelled before its date.

type FailureCode = Schemas["RecurringAttemptFailureCode"];

/** Codes after which the Central Bank rejects the cycle's charge for good (API Pix 2.9.0, `CobRTentativas`). */
const finalCodes: ReadonlySet<FailureCode> = new Set([
  "AC05",
  "AM09",
  "DENC",
  "DS27",
  "DTED",
  "MIDI",
  "MSUC",
  "NITX",
  "RC09",
]);

/** What a reason code says, in Portuguese, where its meaning is certain; else the catalogue's code. */
const reasons: Partial<Record<FailureCode, string>> = {
  AM04: "Saldo ou limite insuficiente na conta do pagador.",
  AC05: "A conta do pagador está encerrada.",
  AC06: "A conta do pagador está bloqueada.",
  AM02: "O valor passa do limite que o pagador autorizou.",
  AM09: "O valor não corresponde ao autorizado na recorrência.",
};
const reasonOf = (code: FailureCode) =>
  reasons[code] ?? `Tentativa recusada pela instituição do pagador (motivo ${code} do catálogo de mensagens do Pix).`;

/** A Pix end-to-end id shaped like the BCB's: E + ISPB (8) + yyyyMMddHHmm + 11 characters. */
const endToEndId = (at: string) => `E00000000${at.slice(0, 16).replace(/[-T:]/g, "")}${randomBase62(11)}`;

export interface NewCycleCharge {
  dueDate: string;
  amountCents?: number | undefined;
  description?: string | undefined;
  adjustToBusinessDay?: boolean | undefined;
  metadata?: Schemas["Metadata"] | undefined;
}

/** The amount a cycle charges: the fixed one, or the asked one within the payer's ceiling. */
function cycleAmount(r: RecurrenceRecord, requested: number | undefined): number {
  if (r.amountCents !== null) {
    if (requested !== undefined && requested !== r.amountCents) {
      throw new DomainError(
        "REQUEST_ERROR",
        `Esta recorrência tem valor fixo de ${formatBRL(r.amountCents)}: omita amountCents ou envie ${r.amountCents}.`,
      );
    }
    return r.amountCents;
  }
  if (requested === undefined) throw fieldError("amountCents", "é obrigatório numa recorrência de valor variável");
  if (r.payerMaximumAmountCents !== null && requested > r.payerMaximumAmountCents) {
    throw new DomainError(
      "REQUEST_ERROR",
      `O valor passa do teto que o pagador autorizou: ${formatBRL(r.payerMaximumAmountCents)}.`,
    );
  }
  return requested;
}

/** Refuses a due date that is not a cycle of `r`, falls after its end, or lies outside the sending window. */
function checkDueDate(r: RecurrenceRecord, dueDate: string, today: string): void {
  if (!isCycleDate(r.firstDate, r.periodicity, dueDate)) {
    const next = firstCycleFrom(r.firstDate, r.periodicity, dueDate).date;
    throw new DomainError("REQUEST_ERROR", `${dueDate} não é uma data de ciclo da recorrência; a seguinte é ${next}.`);
  }
  if (r.lastDate !== null && dueDate > r.lastDate) {
    throw new DomainError("REQUEST_ERROR", `${dueDate} passa da data final da recorrência (${r.lastDate}).`);
  }
  const ahead = daysBetween(today, dueDate);
  const { minDaysBeforeDue: min, maxDaysBeforeDue: max } = recurrenceLimits;
  if (ahead < min || ahead > max) {
    throw new DomainError(
      "REQUEST_ERROR",
      `A cobrança de um ciclo deve ser enviada de ${min} a ${max} dias antes do vencimento: para ${dueDate}, de ` +
        `${addDays(dueDate, -max)} a ${addDays(dueDate, -min)}.`,
    );
  }
}

/**
 * Sends the charge of one cycle of an APPROVED recurrence: checks the Central Bank's rules (a cycle
 * date, 2 to 10 days ahead, one live charge per cycle), inserts it WAITING_PAYMENT with its first
 * attempt SCHEDULED, records `recurring_charge.created` and hands it to the mode's acquirer.
 * Called under the scope's lock.
 */
export async function insertCycleCharge(
  deps: DomainDeps,
  tx: StoreTx,
  account: Account,
  r: RecurrenceRecord,
  input: NewCycleCharge,
  at: string,
): Promise<TransactionRecord> {
  // A cycle's charge debits the payer: in production only for a verified account, whether the
  // merchant sends it or the background pass does (which then skips it and logs why).
  requireActiveForProduction({ scope: r, account });
  requireRecurrenceStatus(r, at, ["APPROVED"], (s) => `A recorrência não está aprovada: status atual ${s}.`);
  checkMetadata(input.metadata);
  checkDueDate(r, input.dueDate, recurrenceToday(r, at));
  const amountCents = cycleAmount(r, input.amountCents);
  const feeCents = chargeFee(account, amountCents);
  if (feeCents >= amountCents) {
    throw new DomainError(
      "REQUEST_ERROR",
      `O valor da cobrança deve ser maior que a tarifa do plano (${formatBRL(feeCents)}).`,
    );
  }
  const live = (await tx.transactions.listByRecurrence(r, r.id)).find(
    (t) => t.cycle?.dueDate === input.dueDate && !["FAILED", "CANCELLED"].includes(effectiveStatus(t, at)),
  );
  if (live) {
    throw new DomainError(
      "REQUEST_ERROR",
      `O ciclo de ${input.dueDate} já tem uma cobrança: ${live.id} (${effectiveStatus(live, at)}).`,
    );
  }
  const settlementDate = input.adjustToBusinessDay === false ? input.dueDate : nextBusinessDay(input.dueDate);
  const lastAttemptDay =
    r.retryPolicy === "RETRY_3_IN_7_DAYS" ? addDays(settlementDate, recurrenceLimits.retryWindowDays) : settlementDate;
  const id = newId("txn");
  const charge: TransactionRecord = {
    id,
    accountId: r.accountId,
    livemode: r.livemode,
    status: "WAITING_PAYMENT",
    amountCents,
    feeCents,
    description: input.description ?? r.description,
    brCode: buildBrCode({ pixKey: account.pixKey, ...brCodeMerchant(account), amountCents, txid: id.replace("_", "") }),
    customer: { ...r.payer },
    paymentLinkId: null,
    dispute: null,
    refundedAmountCents: 0,
    recurrenceId: r.id,
    cycle: {
      dueDate: input.dueDate,
      attempts: [
        {
          settlementDate,
          type: "SCHEDULED",
          status: "SCHEDULED",
          reasonCode: null,
          reason: null,
          endToEndId: null,
          updatedAt: at,
        },
      ],
    },
    metadata: input.metadata ?? r.metadata,
    // The charge can be debited until its last possible attempt's day ends; past it, unsettled, it reads EXPIRED.
    expiresAt: endOfBrasiliaDay(lastAttemptDay),
    paidAt: null,
    createdAt: at,
    updatedAt: at,
  };
  await tx.transactions.insert(charge);
  // A recurrence registered at the platform's bank: the charge goes there as a cobr (at-bank.ts).
  if (r.livemode && r.bankRecId && (await recurrenceBankFor(deps, r))) {
    await owedToBank(tx, charge.id, charge, afterWait(deps, at), at);
  }
  await recordEvent(tx, charge, "recurring_charge.created", presentTransaction(charge, at), at);
  await acquirerFor(deps, charge.livemode).scheduleRecurringCharge(charge);
  return charge;
}

/** An attempt's outcome; a PAID one through the bank carries the bank's end-to-end id. */
export type AttemptOutcome = { outcome: "PAID"; endToEndId?: string } | { outcome: "FAILED"; reasonCode: FailureCode };

/** The body of settle-attempt, checked: `reasonCode` goes with FAILED and only with it. */
export function attemptOutcome(body: {
  outcome: "PAID" | "FAILED";
  reasonCode?: FailureCode | undefined;
}): AttemptOutcome {
  if (body.outcome === "PAID") {
    if (body.reasonCode !== undefined) throw fieldError("reasonCode", "só se usa com outcome FAILED");
    return { outcome: "PAID" };
  }
  if (body.reasonCode === undefined) throw fieldError("reasonCode", "é obrigatório com outcome FAILED");
  return { outcome: "FAILED", reasonCode: body.reasonCode };
}

/**
 * The payer's bank plays a cycle charge's SCHEDULED attempt. PAID credits the charge as any paid
 * charge (`transaction.paid`). FAILED records the reason code; a RETRY follows on the next day when
 * the policy allows one (a retryable code, retries left, within the window: `recurring_charge.retrying`),
 * else the charge is FAILED (`recurring_charge.failed`). In test mode the recurrence's calendar moves
 * to the attempt's date. Called under the scope's lock.
 */
export async function settleAttempt(
  deps: DomainDeps,
  tx: StoreTx,
  account: Account,
  charge: TransactionRecord,
  result: AttemptOutcome,
  at: string,
): Promise<TransactionRecord> {
  const status = effectiveStatus(charge, at);
  const cycle = charge.cycle;
  const index = cycle?.attempts.findIndex((a) => a.status === "SCHEDULED") ?? -1;
  const scheduled = cycle?.attempts[index];
  if (!cycle || !scheduled || status !== "WAITING_PAYMENT") {
    throw new DomainError("REQUEST_ERROR", `A cobrança não tem tentativa agendada: status atual ${status}.`);
  }
  const r = charge.recurrenceId ? await tx.recurrences.get(charge, charge.recurrenceId) : null;
  if (!r) throw new Error(`cycle charge ${charge.id} without its recurrence`);
  if (!r.livemode && scheduled.settlementDate > recurrenceToday(r, at)) {
    await tx.recurrences.update({ ...r, simulatedDate: scheduled.settlementDate, updatedAt: at });
  }
  const attempts = [...cycle.attempts];
  if (result.outcome === "PAID") {
    attempts[index] = {
      ...scheduled,
      status: "PAID",
      endToEndId: result.endToEndId ?? endToEndId(at),
      updatedAt: at,
    };
    const withAttempt: TransactionRecord = { ...charge, cycle: { ...cycle, attempts } };
    return creditPaidCharge(tx, account, withAttempt, at, { config: deps.config, byAttempt: true });
  }
  const { reasonCode } = result;
  attempts[index] = { ...scheduled, status: "FAILED", reasonCode, reason: reasonOf(reasonCode), updatedAt: at };
  const retry = nextRetry(r, attempts, scheduled, reasonCode);
  if (retry) attempts.push({ ...retry, updatedAt: at });
  const next: TransactionRecord = {
    ...charge,
    status: retry ? "WAITING_PAYMENT" : "FAILED",
    cycle: { ...cycle, attempts },
    updatedAt: at,
  };
  await tx.transactions.update(next);
  const type = retry ? "recurring_charge.retrying" : "recurring_charge.failed";
  await recordEvent(tx, next, type, presentTransaction(next, at), at);
  return next;
}

/** The retry after a failed attempt, or null when the policy, the code, the count or the window forbids one. */
function nextRetry(
  r: RecurrenceRecord,
  attempts: RecurringChargeAttempt[],
  failed: RecurringChargeAttempt,
  code: FailureCode,
): Omit<RecurringChargeAttempt, "updatedAt"> | null {
  if (r.retryPolicy !== "RETRY_3_IN_7_DAYS" || finalCodes.has(code)) return null;
  const first = attempts[0]?.settlementDate ?? failed.settlementDate;
  const settlementDate = addDays(failed.settlementDate, 1);
  const retries = attempts.filter((a) => a.type === "RETRY").length;
  if (retries >= recurrenceLimits.maxRetries || daysBetween(first, settlementDate) > recurrenceLimits.retryWindowDays) {
    return null;
  }
  return { settlementDate, type: "RETRY", status: "SCHEDULED", reasonCode: null, reason: null, endToEndId: null };
}
