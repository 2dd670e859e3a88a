import type { StoreTx } from "../../ports/store.js";
import type { DomainConfig } from "../../deps.js";
import { DomainError } from "../../core/errors.js";
import { recordEvent } from "../../webhooks/index.js";
import type { RecurrenceRecord, RecurrenceStatus, Schemas, TransactionRecord } from "../../core/model.js";
import { effectiveStatus, presentTransaction } from "../presenters.js";
import { removeAtBankNow } from "../bank-charges.js";
import { brasiliaDate } from "./calendar.js";
import { recurrenceUrl } from "../../core/recurrence-location.js";

export { baseAddressFitsRecurrences, recurrenceLocation } from "../../core/recurrence-location.js";

// The life of a recurrence (Pix Automático) as the Central Bank's `Rec`: CREATED → APPROVED,
// REJECTED or EXPIRED; CREATED or APPROVED → CANCELLED. Each move appends to `history` and
// records its event in the outbox, inside the caller's transaction (which holds the scope's lock).

/** The status a client sees: a CREATED recurrence past `expiresAt` is EXPIRED, with no sweep needed. */
export const effectiveRecurrenceStatus = (r: Pick<RecurrenceRecord, "status" | "expiresAt">, now: string) =>
  r.status === "CREATED" && r.expiresAt <= now ? "EXPIRED" : r.status;

/**
 * Today for a recurrence's rules, `YYYY-MM-DD`: the Brasília date, or in test mode the date its
 * calendar was moved to (`simulatedDate`) while the real date has not passed it.
 */
export function recurrenceToday(r: Pick<RecurrenceRecord, "simulatedDate">, now: string): string {
  const real = brasiliaDate(new Date(now));
  return r.simulatedDate !== null && r.simulatedDate > real ? r.simulatedDate : real;
}

export function presentRecurrence(r: RecurrenceRecord, config: DomainConfig, now: string): Schemas["Recurrence"] {
  return {
    id: r.id,
    status: effectiveRecurrenceStatus(r, now),
    journey: r.journey,
    payer: { ...r.payer },
    contractReference: r.contractReference,
    description: r.description,
    periodicity: r.periodicity,
    firstDate: r.firstDate,
    lastDate: r.lastDate,
    amountType: r.amountCents === null ? "VARIABLE" : "FIXED",
    amountCents: r.amountCents,
    minimumAmountCents: r.minimumAmountCents,
    payerMaximumAmountCents: r.payerMaximumAmountCents,
    retryPolicy: r.retryPolicy,
    automaticCharges: r.automaticCharges,
    initialTransactionId: r.initialTransactionId,
    pix: { copyPaste: r.brCode, qrCode: r.brCode },
    url: recurrenceUrl(config, r.id),
    metadata: r.metadata,
    livemode: r.livemode,
    expiresAt: r.expiresAt,
    approvedAt: r.approvedAt,
    rejection: r.rejection ? { ...r.rejection } : null,
    cancellation: r.cancellation ? { ...r.cancellation } : null,
    history: r.history.map((h) => ({ ...h })),
    simulatedDate: r.livemode ? null : r.simulatedDate,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

type RecurrenceEventType = `recurrence.${"created" | "approved" | "rejected" | "expired" | "cancelled"}`;

/** Writes `next` and records its event. */
async function save(tx: StoreTx, config: DomainConfig, next: RecurrenceRecord, type: RecurrenceEventType, at: string) {
  await tx.recurrences.update(next);
  await recordEvent(tx, next, type, presentRecurrence(next, config, at), at);
  return next;
}

const moved = (r: RecurrenceRecord, status: RecurrenceStatus, at: string): RecurrenceRecord => ({
  ...r,
  status,
  history: [...r.history, { status, at }],
  updatedAt: at,
});

/** Refuses unless the recurrence, as a client sees it at `at`, has one of `allowed` statuses. */
export function requireRecurrenceStatus(
  r: RecurrenceRecord,
  at: string,
  allowed: readonly RecurrenceStatus[],
  message: (status: RecurrenceStatus) => string,
): void {
  const status = effectiveRecurrenceStatus(r, at);
  if (!allowed.includes(status)) throw new DomainError("REQUEST_ERROR", message(status));
}

const waitingApproval = (status: RecurrenceStatus) =>
  `A recorrência não está aguardando aprovação: status atual ${status}.`;

/** The payer approved it: APPROVED, with the ceiling they set for a VARIABLE one. */
export async function approveRecurrence(
  tx: StoreTx,
  config: DomainConfig,
  r: RecurrenceRecord,
  at: string,
  payerMaximumAmountCents?: number,
): Promise<RecurrenceRecord> {
  requireRecurrenceStatus(r, at, ["CREATED"], waitingApproval);
  if (payerMaximumAmountCents !== undefined) {
    if (r.amountCents !== null) {
      throw new DomainError("REQUEST_ERROR", "Uma recorrência de valor fixo não tem teto definido pelo pagador.");
    }
    if (r.minimumAmountCents !== null && payerMaximumAmountCents < r.minimumAmountCents) {
      throw new DomainError(
        "REQUEST_ERROR",
        `O teto do pagador não pode ser menor que o valor mínimo da recorrência (${r.minimumAmountCents} centavos).`,
      );
    }
  }
  const approved: RecurrenceRecord = {
    ...moved(r, "APPROVED", at),
    approvedAt: at,
    payerMaximumAmountCents: payerMaximumAmountCents ?? null,
  };
  return save(tx, config, approved, "recurrence.approved", at);
}

/** The payer's side refused it: REJECTED; a journey 3 immediate charge still waiting is cancelled. */
export async function rejectRecurrence(
  tx: StoreTx,
  config: DomainConfig,
  r: RecurrenceRecord,
  rejection: NonNullable<RecurrenceRecord["rejection"]>,
  at: string,
): Promise<RecurrenceRecord> {
  requireRecurrenceStatus(r, at, ["CREATED"], waitingApproval);
  await endInitialCharge(tx, r, "CANCELLED", at);
  return save(tx, config, { ...moved(r, "REJECTED", at), rejection }, "recurrence.rejected", at);
}

/**
 * Not approved in time: EXPIRED; a journey 3 immediate charge still waiting expires with it. The
 * sandbox expires it now (`expiresAt` becomes now); the background pass writes an expiry that has
 * happened (`keepExpiresAt`).
 */
export async function expireRecurrence(
  tx: StoreTx,
  config: DomainConfig,
  r: RecurrenceRecord,
  at: string,
  options: { keepExpiresAt?: boolean } = {},
): Promise<RecurrenceRecord> {
  if (!options.keepExpiresAt) requireRecurrenceStatus(r, at, ["CREATED"], waitingApproval);
  else if (r.status !== "CREATED" || r.expiresAt > at) throw new Error(`${r.id} has no expiry to write`);
  const expiresAt = options.keepExpiresAt ? r.expiresAt : at;
  await endInitialCharge(tx, r, "EXPIRED", expiresAt);
  return save(tx, config, { ...moved(r, "EXPIRED", at), expiresAt }, "recurrence.expired", at);
}

/**
 * Cancelled by someone (`cancellation` says who): CANCELLED, and every charge of it still waiting
 * is cancelled with it (a cycle charge sends `recurring_charge.cancelled`).
 */
export async function cancelRecurrence(
  tx: StoreTx,
  config: DomainConfig,
  r: RecurrenceRecord,
  cancellation: NonNullable<RecurrenceRecord["cancellation"]>,
  at: string,
): Promise<RecurrenceRecord> {
  requireRecurrenceStatus(
    r,
    at,
    ["CREATED", "APPROVED"],
    (status) => `A recorrência não pode ser cancelada: status atual ${status}.`,
  );
  for (const charge of await tx.transactions.listByRecurrence(r, r.id)) {
    if (effectiveStatus(charge, at) !== "WAITING_PAYMENT") continue;
    if (charge.cycle) await cancelCycleCharge(tx, charge, at);
    else {
      await tx.transactions.update({ ...charge, status: "CANCELLED", updatedAt: at });
      await removeAtBankNow(tx, charge, at); // A journey 3 cob at the bank is removed now.
    }
  }
  return save(tx, config, { ...moved(r, "CANCELLED", at), cancellation }, "recurrence.cancelled", at);
}

/** Ends a journey 3 immediate charge that still waits for payment, as its recurrence ends unapproved. */
async function endInitialCharge(tx: StoreTx, r: RecurrenceRecord, status: "CANCELLED" | "EXPIRED", at: string) {
  if (r.initialTransactionId === null) return;
  const charge = await tx.transactions.get(r, r.initialTransactionId);
  if (!charge || effectiveStatus(charge, at) !== "WAITING_PAYMENT") return;
  await tx.transactions.update({
    ...charge,
    status,
    ...(status === "EXPIRED" ? { expiresAt: at } : {}),
    updatedAt: at,
  });
  // Its cob at the platform's bank, if it has one, is removed now rather than at its expiry.
  await removeAtBankNow(tx, charge, at);
}

/** A cycle charge and its scheduled attempt CANCELLED; records `recurring_charge.cancelled`. */
export async function cancelCycleCharge(
  tx: StoreTx,
  charge: TransactionRecord,
  at: string,
): Promise<TransactionRecord> {
  const cycle = charge.cycle;
  if (!cycle) throw new Error(`${charge.id} is no cycle charge`);
  const cancelled: TransactionRecord = {
    ...charge,
    status: "CANCELLED",
    cycle: {
      ...cycle,
      attempts: cycle.attempts.map((a) =>
        a.status === "SCHEDULED" ? { ...a, status: "CANCELLED", updatedAt: at } : a,
      ),
    },
    updatedAt: at,
  };
  await tx.transactions.update(cancelled);
  await recordEvent(tx, cancelled, "recurring_charge.cancelled", presentTransaction(cancelled, at), at);
  return cancelled;
}

/**
 * Journey 3: the immediate charge was paid, so the payer approved its recurrence (called where any
 * charge is credited, inside the same transaction). A charge of no recurrence, or a cycle charge,
 * changes nothing.
 */
export async function approveByInitialPayment(
  tx: StoreTx,
  config: DomainConfig,
  paid: TransactionRecord,
  at: string,
): Promise<void> {
  if (!paid.recurrenceId || paid.cycle) return;
  const r = await tx.recurrences.get(paid, paid.recurrenceId);
  if (!r || r.initialTransactionId !== paid.id || r.status !== "CREATED") return;
  // At the platform's bank, paying the cob does not by itself authorise the recurrence (the payer
  // may decline it in their bank): the bank's answer does (payments/recurrences/at-bank.ts). One on
  // its way there has no code yet: its cob paid meanwhile (by its own code) authorises nothing either.
  if (r.livemode && (r.bankRecId || r.bankLocId || r.brCode === "")) return;
  await save(tx, config, { ...moved(r, "APPROVED", at), approvedAt: at }, "recurrence.approved", at);
}
