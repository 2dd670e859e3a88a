import type { BankTaskRecord } from "../ports/received-pix-store.js";
import type { StoreTx } from "../ports/store.js";
import { type BankCharge, type BankChargeRequest, BankRefusedError, type PixBank } from "../ports/pix-bank.js";
import { defaultBankWaitMs, type DomainDeps } from "../deps.js";
import { recordEvent } from "../webhooks/index.js";
import type { Scope, TransactionRecord } from "../core/model.js";
import { addSeconds } from "../core/time.js";
import { presentTransaction } from "./presenters.js";

// A production charge through the platform's bank (issue 35, docs/decisions, "Production charges
// through the bank"): inserted `PENDING`, registered with `PUT /cob/{txid}` (the port's
// `registerCharge`), then `WAITING_PAYMENT` with the bank's code, or `FAILED` with its reason.
// The create waits for the bank a bounded time; whatever it did not see finished, a bank task
// finishes (domain/bank/charges-at-bank.ts, run by a job). The bank's side reaches payments only
// through the port in `DomainDeps.bank`.

const txidPrefix = "svc";

/** The charge's txid at the bank: `svc` + its id without `_` (26 letters and digits for a `txn_` + 20). */
export const txidOf = (chargeId: string): string => txidPrefix + chargeId.replace("_", "");

/** The charge id a txid of ours names, or null when the txid is not one of ours. */
export function chargeIdOfTxid(txid: string): string | null {
  const match = /^svctxn([A-Za-z0-9]{20,29})$/.exec(txid);
  return match ? `txn_${match[1]}` : null;
}

/** The id of a bank task of `kind` about `subjectId`. */
export const bankTaskId = (kind: BankTaskRecord["kind"], subjectId: string): string => `${kind}:${subjectId}`;

/** A bank task about `subjectId` of `scope`, due at `dueAt`. */
export const bankTask = (
  kind: BankTaskRecord["kind"],
  subjectId: string,
  scope: Scope,
  dueAt: string,
  at: string,
): BankTaskRecord => ({
  id: bankTaskId(kind, subjectId),
  kind,
  subjectId,
  accountId: scope.accountId,
  livemode: scope.livemode,
  dueAt,
  attempts: 0,
  lastError: null,
  createdAt: at,
});

/** The bank of a production scope, or null (test mode, no bank, no connection): the charge goes as before. */
export async function bankFor(deps: Pick<DomainDeps, "bank">, scope: Scope): Promise<PixBank | null> {
  if (!scope.livemode || !deps.bank) return null;
  return deps.bank.current();
}

/** How long the create waits for the bank. */
export const bankWaitMs = (deps: Pick<DomainDeps, "bank">): number => deps.bank?.waitMs ?? defaultBankWaitMs;

/** What `registerCharge` is asked for `charge`: the same on every retry (the life counts from its creation). */
function bankChargeRequest(charge: TransactionRecord): BankChargeRequest {
  const life = Math.ceil((Date.parse(charge.expiresAt) - Date.parse(charge.createdAt)) / 1000);
  return {
    txid: txidOf(charge.id),
    amountCents: charge.amountCents,
    expiresInSeconds: Math.max(1, life),
    payer: {
      name: charge.customer.name,
      documentType: charge.customer.documentType,
      document: charge.customer.document,
    },
    description: charge.description.slice(0, 140),
  };
}

/**
 * Inside the charge's insert: marks a production charge with a bank `PENDING` (no code yet) and
 * queues its registration, due once the create's own wait is over (`bankWaitMs`), so the job
 * only takes what the create did not finish.
 */
export async function pendAtBank(
  deps: Pick<DomainDeps, "bank">,
  tx: StoreTx,
  record: TransactionRecord,
  now: string,
): Promise<TransactionRecord> {
  const pending: TransactionRecord = { ...record, status: "PENDING", brCode: "" };
  const dueAt = new Date(Date.parse(now) + bankWaitMs(deps)).toISOString();
  await tx.bankTasks.put(bankTask("register", record.id, record, dueAt, now));
  return pending;
}

/** The bank's answer to a registration: its charge, or its refusal's reason. */
export type Registration = { charge: BankCharge } | { refused: string };

/**
 * Applies the bank's answer to a `PENDING` charge, under the scope's lock: `WAITING_PAYMENT` with
 * the bank's code (its removal queued for `expiresAt`), or `FAILED` with the bank's reason and
 * `transaction.failed`. A charge no longer `PENDING` (another process finished it) is left as it is.
 */
export async function applyRegistration(
  tx: StoreTx,
  chargeId: string,
  scope: Scope,
  registration: Registration,
  at: string,
): Promise<TransactionRecord | null> {
  await tx.lockScope(scope);
  const charge = await tx.transactions.get(scope, chargeId);
  if (!charge) return null;
  if (charge.status !== "PENDING") return charge;
  await tx.bankTasks.delete(bankTaskId("register", charge.id));
  if ("charge" in registration) {
    const waiting: TransactionRecord = {
      ...charge,
      status: "WAITING_PAYMENT",
      brCode: registration.charge.copyPaste,
      updatedAt: at,
    };
    await tx.transactions.update(waiting);
    await tx.bankTasks.put(bankTask("remove", charge.id, charge, charge.expiresAt, at));
    return waiting;
  }
  const failed: TransactionRecord = {
    ...charge,
    status: "FAILED",
    failureReason: registration.refused,
    updatedAt: at,
  };
  await tx.transactions.update(failed);
  await recordEvent(tx, charge, "transaction.failed", presentTransaction(failed, at), at);
  return failed;
}

/**
 * Asks the bank to register a `PENDING` charge and applies its answer. Never throws: a bank that
 * does not answer (`BankUnavailableError`) or any other fault leaves the charge `PENDING`, its
 * task due again later, and answers null.
 */
export async function registerAtBank(
  deps: Pick<DomainDeps, "store" | "clock" | "logger">,
  bank: PixBank,
  charge: TransactionRecord,
): Promise<TransactionRecord | null> {
  let registration: Registration;
  try {
    registration = { charge: await bank.registerCharge(bankChargeRequest(charge)) };
  } catch (error) {
    if (error instanceof BankRefusedError) registration = { refused: bankReason(error.detail) };
    else {
      deps.logger.warn({ err: error, transactionId: charge.id }, "bank: charge not registered yet");
      return null;
    }
  }
  try {
    return await deps.store.transaction((tx) =>
      applyRegistration(tx, charge.id, charge, registration, deps.clock.now().toISOString()),
    );
  } catch (error) {
    deps.logger.error({ err: error, transactionId: charge.id }, "bank: registration not applied");
    return null;
  }
}

/** The bank's reason, as the charge's `failureReason` says it (Portuguese, at most 500 characters). */
const bankReason = (detail: string) => `O banco recusou a cobrança: ${detail}`.slice(0, 500);

/**
 * Registers a `PENDING` charge, waiting at most `bankWaitMs`: answers the charge as it then is
 * (`WAITING_PAYMENT`/`FAILED`, or still `PENDING`, finished later by the same call or the job).
 */
export async function registerWithin(
  deps: Pick<DomainDeps, "store" | "clock" | "logger" | "bank">,
  charge: TransactionRecord,
): Promise<TransactionRecord> {
  const bank = await bankFor(deps, charge).catch(() => null);
  if (!bank) return charge;
  return (await untilOrNull(registerAtBank(deps, bank, charge), bankWaitMs(deps))) ?? charge;
}

/** The removal of a charge at the bank, due now (a cancellation), if the charge was registered there. */
export async function removeAtBankNow(tx: StoreTx, charge: TransactionRecord, at: string): Promise<void> {
  const task = await tx.bankTasks.get(bankTaskId("remove", charge.id));
  if (task) await tx.bankTasks.put({ ...task, dueAt: at });
}

/** When a task that could not be done is tried again: 5 s, doubling, at most 10 minutes. */
export const retryAt = (task: BankTaskRecord, at: string): string =>
  addSeconds(at, Math.min(600, 5 * 2 ** Math.min(task.attempts, 7)));

/** `work`'s result, or null once `ms` pass first (the work goes on). */
export async function untilOrNull<T>(work: Promise<T | null>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
