import type { BankTaskRecord } from "../ports/received-pix-store.js";
import type { StoreTx } from "../ports/store.js";
import {
  type BankCharge,
  type BankChargeRequest,
  BankDownError,
  BankRefusedError,
  type PixBank,
} from "../ports/pix-bank.js";
import { DomainError } from "../core/errors.js";
import { defaultBankWaitMs, type DomainDeps } from "../deps.js";
import { recordEvent } from "../webhooks/index.js";
import type { Scope, TransactionRecord } from "../core/model.js";
import { addSeconds } from "../core/time.js";
import { presentTransaction } from "./presenters.js";
import { dueDateBankRequest } from "./due-date/pay.js";

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
  if (charge.status !== "PENDING") {
    // Cancelled while the bank registered it: the cob landed after all, and is removed at once.
    if (charge.status === "CANCELLED" && "charge" in registration) {
      await tx.bankTasks.put(bankTask("remove", charge.id, charge, at, at));
    }
    return charge;
  }
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

/** What asking the bank gave: its answer, the bank down, or nothing known (slow, or another fault). */
type Asked = Registration | { down: BankDownError } | null;

/** The bank's due-date charges (`cobv`), or a refusal when this adapter has none. */
function dueDateChargesOf(bank: PixBank) {
  if (!bank.dueDateCharges) {
    throw new BankRefusedError(404, "o banco desta conexão não registra cobranças com vencimento");
  }
  return bank.dueDateCharges;
}

/** `PUT /cob/{txid}`, or `PUT /cobv/{txid}` for a charge with a due date (issue 38). */
function registerAt(bank: PixBank, charge: TransactionRecord): Promise<BankCharge> {
  const { dueDateCharge } = charge;
  if (dueDateCharge) {
    return dueDateChargesOf(bank).register(dueDateBankRequest({ ...charge, dueDateCharge }, txidOf(charge.id)));
  }
  return bank.registerCharge(bankChargeRequest(charge));
}

/**
 * Removes a charge at the bank: its cob, or its cobv for a charge with a due date. A charge no
 * longer here (withdrawn when the bank answered 5xx) may have left either: the cob is removed, or,
 * when the bank knows none, the cobv (a 404 of both is the caller's "nothing to remove").
 */
export async function removeAtBank(bank: PixBank, chargeId: string, charge: TransactionRecord | null): Promise<void> {
  const txid = txidOf(chargeId);
  if (charge?.dueDateCharge) return dueDateChargesOf(bank).remove(txid);
  if (charge || !bank.dueDateCharges) return bank.removeCharge(txid);
  try {
    await bank.removeCharge(txid);
  } catch (error) {
    if (!(error instanceof BankRefusedError && error.status === 404)) throw error;
    await bank.dueDateCharges.remove(txid);
  }
}

/** Asks the bank to register `charge`; never throws. */
async function askBank(deps: Pick<DomainDeps, "logger">, bank: PixBank, charge: TransactionRecord): Promise<Asked> {
  try {
    return { charge: await registerAt(bank, charge) };
  } catch (error) {
    if (error instanceof BankRefusedError) return { refused: bankReason(error.detail) };
    deps.logger.warn({ err: error, transactionId: charge.id }, "bank: charge not registered yet");
    return error instanceof BankDownError ? { down: error } : null;
  }
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
  const asked = await askBank(deps, bank, charge);
  return asked === null || "down" in asked ? null : applyRegistered(deps, charge, asked);
}

/** Applies the bank's answer in its own transaction; null (logged) when that fails. */
async function applyRegistered(
  deps: Pick<DomainDeps, "store" | "clock" | "logger">,
  charge: TransactionRecord,
  registration: Registration,
): Promise<TransactionRecord | null> {
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

/** The refusal of a create while the bank is down: `503` with `Retry-After`, nothing kept. */
export const bankDownRefusal = (retryAfterSeconds: number, what = "a cobrança"): DomainError =>
  new DomainError(
    "SERVICE_UNAVAILABLE",
    `O banco da plataforma está indisponível; ${what} não foi criada. Tente novamente em ${retryAfterSeconds} s.`,
    { retryAfterSeconds },
  );

/** The idempotency record a create made (`once`), forgotten when the create is withdrawn. */
export interface CreateKey {
  operation: string;
  key: string | undefined;
}

/**
 * Withdraws a charge the bank would not take because it is down: the charge (still `PENDING`,
 * never shown), its task and its idempotency record are deleted, so a retry with the same key
 * creates it anew. A request that may have reached the bank (a 5xx) leaves a `remove` task, in
 * case the cob was made after all. Answers whether it was withdrawn (not when another process
 * finished it meanwhile).
 */
async function withdrawCharge(
  tx: StoreTx,
  charge: TransactionRecord,
  created: CreateKey,
  down: BankDownError,
  at: string,
): Promise<boolean> {
  await tx.lockScope(charge);
  const current = await tx.transactions.get(charge, charge.id);
  if (current?.status !== "PENDING") return false;
  await tx.bankTasks.delete(bankTaskId("register", charge.id));
  await tx.transactions.delete(charge, charge.id);
  if (created.key !== undefined) await tx.idempotency.delete(charge, created.operation, created.key);
  if (down.reached) await tx.bankTasks.put(bankTask("remove", charge.id, charge, at, at));
  return true;
}

/**
 * Registers a `PENDING` charge, waiting at most `bankWaitMs`: answers the charge as it then is
 * (`WAITING_PAYMENT`/`FAILED`, or still `PENDING` when the bank is slow, finished later by the
 * same call or the job). A bank found down within the wait withdraws the charge
 * (`withdrawCharge`) and refuses the create: `503 SERVICE_UNAVAILABLE` with `Retry-After`.
 */
export async function registerWithin(
  deps: Pick<DomainDeps, "store" | "clock" | "logger" | "bank">,
  charge: TransactionRecord,
  created: CreateKey,
): Promise<TransactionRecord> {
  const bank = await bankFor(deps, charge).catch(() => null);
  if (!bank) return charge;
  const asking = askBank(deps, bank, charge);
  const asked = await untilOrNull(asking, bankWaitMs(deps));
  if (asked === null) {
    // Slow (or unknown): answered PENDING now; the answer, when it comes, is applied here.
    void asking.then((late) => (late === null || "down" in late ? null : applyRegistered(deps, charge, late)));
    return charge;
  }
  if (!("down" in asked)) return (await applyRegistered(deps, charge, asked)) ?? charge;
  const at = deps.clock.now().toISOString();
  const withdrawn = await deps.store
    .transaction((tx) => withdrawCharge(tx, charge, created, asked.down, at))
    .catch((error: unknown) => {
      deps.logger.error({ err: error, transactionId: charge.id }, "bank: charge not withdrawn (its task registers it)");
      return false;
    });
  if (withdrawn) throw bankDownRefusal(asked.down.retryAfterSeconds);
  return (await deps.store.read.transactions.get(charge, charge.id)) ?? charge;
}

/**
 * The removal of a cancelled charge at the bank, due now: a registered charge's `remove` task is
 * moved to now. A charge cancelled while `PENDING` is no longer registered (its `register` task
 * goes), and gets a `remove` task now, in case a registration already sent lands (see
 * `applyRegistration`, and the task's patience with a cob the bank does not know yet).
 */
export async function removeAtBankNow(tx: StoreTx, charge: TransactionRecord, at: string): Promise<void> {
  const task = await tx.bankTasks.get(bankTaskId("remove", charge.id));
  if (task) await tx.bankTasks.put({ ...task, dueAt: at });
  else if (await tx.bankTasks.get(bankTaskId("register", charge.id))) {
    await tx.bankTasks.delete(bankTaskId("register", charge.id));
    await tx.bankTasks.put(bankTask("remove", charge.id, charge, at, at));
  }
}

/**
 * How long after a `PENDING` charge's cancellation a cob the bank does not know is still awaited:
 * a registration sent before the cancellation may land late (a call's wait is seconds; this is
 * ample), and the removal tries again meanwhile.
 */
export const cancelledRegistrationGraceSeconds = 120;

/**
 * When a task that could not be done is tried again: `firstSeconds` (PIX_BANK_RETRY_SECONDS, 5 by
 * default), doubling, at most 10 minutes.
 */
export const retryAt = (task: BankTaskRecord, at: string, firstSeconds = 5): string =>
  addSeconds(at, Math.min(600, firstSeconds * 2 ** Math.min(task.attempts, 7)));

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
