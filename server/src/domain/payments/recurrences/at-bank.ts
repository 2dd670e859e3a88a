import type { StoreTx } from "../../ports/store.js";
import type { BankTaskRecord } from "../../ports/received-pix-store.js";
import { BankRefusedError, type PixBank } from "../../ports/pix-bank.js";
import {
  recurrenceBankOf,
  type BankPage,
  type BankCycleCharge,
  type BankRecurrence,
  type RecurrenceBank,
} from "../../ports/recurrence-bank.js";
import type { DomainDeps } from "../../deps.js";
import { DomainError } from "../../core/errors.js";
import { recordEvent } from "../../webhooks/index.js";
import type { RecurrenceRecord, Schemas, Scope, TransactionRecord } from "../../core/model.js";
import { effectiveStatus, presentTransaction } from "../presenters.js";
import {
  bankTask,
  bankTaskId,
  bankWaitMs,
  chargeIdOfTxid,
  registerAtBank,
  txidOf,
  untilOrNull,
} from "../bank-charges.js";
import { addSeconds, brasiliaDate } from "../../core/time.js";
import {
  approveRecurrence,
  cancelCycleCharge,
  cancelRecurrence,
  effectiveRecurrenceStatus,
  expireRecurrence,
  rejectRecurrence,
} from "./rules.js";
import { settleAttempt } from "./cycle-charges.js";

export { afterWait, owedToBank, recurrenceBankFor } from "./bank-owed.js";

// Pix Automático at the platform's bank (issue 36 §2; docs/decisions/0053-…). A production
// recurrence, while a bank is connected whose adapter speaks recurrences, is registered there in
// the standard's terms (journey 2: `POST /locrec` then `POST /rec`; journey 3: its immediate
// charge's cob first, then the location and the recurrence naming the cob's txid) and its QR code
// is the bank's (`GET /rec/{idRec}?txid`); each cycle charge is a `PUT /cobr/{txid}`. The payer's
// answers and each attempt's outcome come as the bank's callbacks, hints only: whatever names a
// recurrence or a cycle charge makes the service read it from the bank (`GET /rec`, `GET /cobr`)
// and move its own record to what the bank says, under the scope's lock, each move once (the
// record's status says where it is). The work owed to the bank is one bank task of kind
// `recurrence` per recurrence or cycle charge: due at once while something is owed (a
// registration, a cancellation, a retry), then again every `bankReconcileSeconds` while the
// recurrence or the charge is open at either side: the reconciler of what callbacks missed.

/** How the state at the bank moved ours (or did not). */
type Step = "done" | "follow" | "again";

const followSeconds = (deps: Pick<DomainDeps, "config">) => deps.config.bankReconcileSeconds ?? 300;

/** Why the bank refused, in the record's words (Portuguese, at most 500 characters). */
const refusal = (what: string, error: BankRefusedError) => `O banco recusou ${what}: ${error.detail}`.slice(0, 500);

/** Who cancelled, in the bank's terms, as ours. */
const cancelledBy = {
  USUARIO_PAGADOR: "PAYER",
  PSP_PAGADOR: "PAYER_PSP",
  PSP_RECEBEDOR: "RECEIVER_PSP",
  USUARIO_RECEBEDOR: "MERCHANT",
} as const;

const failureCodes: ReadonlySet<string> = new Set<Schemas["RecurringAttemptFailureCode"]>([
  "AM04",
  "AB10",
  "AC05",
  "AC06",
  "AM02",
  "AM09",
  "DENC",
  "DS27",
  "DTED",
  "DTNT",
  "FBRD",
  "IRNT",
  "MIDI",
  "MSUC",
  "NIEC",
  "NIPA",
  "NITX",
  "QUNT",
  "RC09",
  "UDEI",
]);

/** Runs `work` on the recurrence, read again under its scope's lock; null when it is gone. */
async function onRecurrence<T>(
  deps: DomainDeps,
  id: string,
  work: (tx: StoreTx, r: RecurrenceRecord, at: string) => Promise<T>,
): Promise<T | null> {
  return deps.store.transaction(async (tx) => {
    const found = await tx.recurrences.getById(id);
    if (!found) return null;
    await tx.lockScope(found);
    const r = await tx.recurrences.get(found, id);
    return r ? work(tx, r, deps.clock.now().toISOString()) : null;
  });
}

/**
 * The bank's recurrence moves ours, each move once: APROVADA approves it, REJEITADA rejects it
 * with the payer's code, CANCELADA cancels it as the bank says who asked, EXPIRADA expires it. The
 * bank's QR code becomes the recurrence's (and, in journey 3, its immediate charge's).
 */
async function applyRecurrence(deps: DomainDeps, id: string, held: BankRecurrence): Promise<RecurrenceRecord | null> {
  return onRecurrence(deps, id, async (tx, r, at) => {
    let current = r;
    if (held.copyPaste && r.brCode !== held.copyPaste) {
      current = { ...r, brCode: held.copyPaste, updatedAt: at };
      await tx.recurrences.update(current);
      if (r.journey === "JOURNEY_3" && r.initialTransactionId) {
        const charge = await tx.transactions.get(r, r.initialTransactionId);
        if (charge && charge.brCode !== held.copyPaste) {
          await tx.transactions.update({ ...charge, brCode: held.copyPaste, updatedAt: at });
        }
      }
    }
    const ours = effectiveRecurrenceStatus(current, at);
    if (held.status === "APROVADA" && ours === "CREATED") return approveRecurrence(tx, deps.config, current, at);
    if (held.status === "REJEITADA" && ours === "CREATED") {
      const rejection = held.rejection ?? { code: "AP13" as const, reason: "Autorização recusada pelo pagador." };
      return rejectRecurrence(tx, deps.config, current, { code: rejection.code, reason: rejection.reason }, at);
    }
    if (held.status === "CANCELADA" && (ours === "CREATED" || ours === "APPROVED")) {
      const by = held.cancellation?.by ?? "PSP_RECEBEDOR";
      return cancelRecurrence(
        tx,
        deps.config,
        current,
        {
          requestedBy: cancelledBy[by],
          code: held.cancellation?.code ?? "ERSL",
          reason: held.cancellation?.reason ?? "Autorização cancelada no banco.",
        },
        at,
      );
    }
    if (held.status === "EXPIRADA" && ours === "CREATED") return expireRecurrence(tx, deps.config, current, at);
    return current;
  });
}

/** The bank would not register it: the recurrence is cancelled by this service (`ERSL`), with the bank's words. */
async function refusedByBank(deps: DomainDeps, id: string, reason: string): Promise<void> {
  await onRecurrence(deps, id, async (tx, r, at) => {
    const status = effectiveRecurrenceStatus(r, at);
    if (status !== "CREATED" && status !== "APPROVED") return r;
    return cancelRecurrence(tx, deps.config, r, { requestedBy: "RECEIVER_PSP", code: "ERSL", reason }, at);
  });
}

/** Keeps the bank's id of the location or the recurrence, unless another process kept one first. */
async function keepIds(
  deps: DomainDeps,
  id: string,
  ids: { bankLocId?: number; bankRecId?: string },
): Promise<RecurrenceRecord | null> {
  return onRecurrence(deps, id, async (tx, r, at) => {
    const next: RecurrenceRecord = {
      ...r,
      ...(ids.bankLocId !== undefined && (r.bankLocId ?? null) === null ? { bankLocId: ids.bankLocId } : {}),
      ...(ids.bankRecId !== undefined && (r.bankRecId ?? null) === null ? { bankRecId: ids.bankRecId } : {}),
      updatedAt: at,
    };
    if (next.bankLocId === r.bankLocId && next.bankRecId === r.bankRecId) return r;
    await tx.recurrences.update(next);
    return next;
  });
}

const openAtBank = (status: BankRecurrence["status"]) => status === "CRIADA" || status === "APROVADA";

/**
 * Registers the recurrence if it is not yet, reads it back, and moves ours to what the bank says;
 * cancels it at the bank when ours ended first (the merchant cancelled it, it expired). Answers
 * whether anything is left to follow. A bank that does not answer throws (the task waits).
 */
async function syncRecurrence(
  deps: DomainDeps,
  bank: PixBank,
  recs: RecurrenceBank,
  id: string,
  listed?: BankRecurrence,
): Promise<Step> {
  let r = await deps.store.read.recurrences.getById(id);
  if (!r || !r.livemode) return "done";
  const at = deps.clock.now().toISOString();
  const open = () => ["CREATED", "APPROVED"].includes(effectiveRecurrenceStatus(r as RecurrenceRecord, at));
  const initialTxid = r.journey === "JOURNEY_3" && r.initialTransactionId ? txidOf(r.initialTransactionId) : null;

  if (!r.bankRecId) {
    // A location made earlier may carry a recurrence whose answer was lost: read it before creating again.
    const location = r.bankLocId ? await recs.readLocation(r.bankLocId) : null;
    if (location?.recId) r = (await keepIds(deps, id, { bankRecId: location.recId })) ?? r;
    else if (!open()) return "done"; // Ended before it reached the bank: nothing there to follow.
  }
  if (!r.bankRecId) {
    if (initialTxid !== null && r.initialTransactionId) {
      // Journey 3: the immediate charge is a cob at the bank first, the recurrence names its txid.
      let charge = await deps.store.read.transactions.get(r, r.initialTransactionId);
      if (charge?.status === "PENDING") charge = (await registerAtBank(deps, bank, charge)) ?? charge;
      if (!charge || charge.status === "PENDING") return "again";
      if (charge.status === "FAILED") {
        await refusedByBank(deps, id, charge.failureReason ?? "O banco recusou a cobrança imediata da recorrência.");
        return "done";
      }
    }
    let locationId = r.bankLocId ?? null;
    if (locationId === null) {
      const made = await recs.createLocation();
      r = (await keepIds(deps, id, { bankLocId: made.id })) ?? r;
      locationId = r.bankLocId ?? made.id;
    }
    try {
      const created = await recs.createRecurrence({
        locationId,
        initialTxid,
        contract: r.contractReference,
        description: r.description,
        payer: { name: r.payer.name, documentType: r.payer.documentType, document: r.payer.document },
        periodicity: r.periodicity,
        firstDate: r.firstDate,
        lastDate: r.lastDate,
        amountCents: r.amountCents,
        minimumAmountCents: r.minimumAmountCents,
        retries: r.retryPolicy === "RETRY_3_IN_7_DAYS",
      });
      r = (await keepIds(deps, id, { bankRecId: created.recId })) ?? r;
    } catch (error) {
      if (!(error instanceof BankRefusedError)) throw error;
      // Another process may have registered it on this location meanwhile: then it is that one.
      const location = await recs.readLocation(locationId);
      if (location?.recId) r = (await keepIds(deps, id, { bankRecId: location.recId })) ?? r;
      else {
        await refusedByBank(deps, id, refusal("a recorrência", error));
        return "done";
      }
    }
  }
  const recId = r.bankRecId as string;
  // A listing's item is the bank's word already; the QR code, which listings leave out, is read until kept.
  const held =
    listed?.recId === recId && r.brCode !== "" ? listed : await recs.readRecurrence(recId, initialTxid ?? undefined);
  if (!held) {
    deps.logger.warn({ recurrence: id, recId }, "bank: the bank does not know a recurrence registered there");
    return "follow";
  }
  const moved = (await applyRecurrence(deps, id, held)) ?? r;
  const oursOpen = ["CREATED", "APPROVED"].includes(effectiveRecurrenceStatus(moved, deps.clock.now().toISOString()));
  if (!oursOpen && openAtBank(held.status)) {
    // Ours ended first (the merchant cancelled it, or it expired unapproved): the bank's too.
    await recs.cancelRecurrence(recId);
    return "done";
  }
  return oursOpen || openAtBank(held.status) ? "follow" : "done";
}

/** A cycle charge the bank would not register: FAILED with the bank's reason (`recurring_charge.failed`). */
async function failCycleCharge(deps: DomainDeps, chargeId: string, reason: string): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const found = await tx.transactions.getById(chargeId);
    if (!found?.cycle) return;
    await tx.lockScope(found);
    const charge = await tx.transactions.get(found, chargeId);
    const at = deps.clock.now().toISOString();
    if (!charge?.cycle || effectiveStatus(charge, at) !== "WAITING_PAYMENT") return;
    const failed: TransactionRecord = {
      ...charge,
      status: "FAILED",
      failureReason: reason,
      cycle: {
        ...charge.cycle,
        attempts: charge.cycle.attempts.map((a) =>
          a.status === "SCHEDULED" ? { ...a, status: "FAILED", reason, updatedAt: at } : a,
        ),
      },
      updatedAt: at,
    };
    await tx.transactions.update(failed);
    await recordEvent(tx, failed, "recurring_charge.failed", presentTransaction(failed, at), at);
  });
}

/**
 * The bank's attempts move the cycle charge's, by their order (the bank's first attempt is our
 * SCHEDULED one, each retry the next): PAGA pays it with the bank's end-to-end id, REJEITADA fails
 * it with the code (a retry follows as the recurrence's policy allows); a cobr the bank cancelled
 * cancels it. Each once: only the charge's SCHEDULED attempt moves.
 */
async function applyCycleCharge(deps: DomainDeps, chargeId: string, held: BankCycleCharge) {
  return deps.store.transaction(async (tx) => {
    const found = await tx.transactions.getById(chargeId);
    if (!found?.cycle) return null;
    await tx.lockScope(found);
    const charge = await tx.transactions.get(found, chargeId);
    const at = deps.clock.now().toISOString();
    if (!charge?.cycle || effectiveStatus(charge, at) !== "WAITING_PAYMENT") return charge;
    const index = charge.cycle.attempts.findIndex((a) => a.status === "SCHEDULED");
    const attempt = index < 0 ? undefined : held.attempts[index];
    const account = await tx.accounts.get(charge.accountId);
    if (!account) throw new Error(`charge ${charge.id} without its account`);
    if (attempt?.status === "PAGA") {
      return settleAttempt(deps, tx, account, charge, { outcome: "PAID", endToEndId: attempt.endToEndId }, at);
    }
    if (attempt?.status === "REJEITADA") {
      const code = attempt.rejection?.code ?? "";
      const reasonCode = (failureCodes.has(code) ? code : "AB10") as Schemas["RecurringAttemptFailureCode"];
      return settleAttempt(deps, tx, account, charge, { outcome: "FAILED", reasonCode }, at);
    }
    if (held.status === "CANCELADA") return cancelCycleCharge(tx, charge, at);
    return charge;
  });
}

const openCobr = (status: BankCycleCharge["status"]) => status === "CRIADA" || status === "ATIVA";

/**
 * Registers the cycle charge if the bank does not hold it yet, reads it, moves ours, asks for the
 * retry our policy scheduled, and cancels it at the bank when ours was cancelled first.
 */
async function syncCycleCharge(
  deps: DomainDeps,
  recs: RecurrenceBank,
  chargeId: string,
  listed?: BankCycleCharge,
): Promise<Step> {
  const charge = await deps.store.read.transactions.getById(chargeId);
  if (!charge?.cycle || !charge.livemode || !charge.recurrenceId) return "done";
  const r = await deps.store.read.recurrences.get(charge, charge.recurrenceId);
  if (!r?.bankRecId) return "done";
  const txid = txidOf(charge.id);
  let held = listed?.txid === txid ? listed : await recs.readCycleCharge(txid);
  if (!held) {
    if (effectiveStatus(charge, deps.clock.now().toISOString()) !== "WAITING_PAYMENT") return "done";
    const first = charge.cycle.attempts[0];
    try {
      held = await recs.registerCycleCharge({
        txid,
        recId: r.bankRecId,
        dueDate: charge.cycle.dueDate,
        amountCents: charge.amountCents,
        adjustToBusinessDay: first ? first.settlementDate !== charge.cycle.dueDate : true,
        description: charge.description,
      });
    } catch (error) {
      if (!(error instanceof BankRefusedError)) throw error;
      await failCycleCharge(deps, charge.id, refusal("a cobrança do ciclo", error));
      return "done";
    }
  }
  let moved = (await applyCycleCharge(deps, charge.id, held)) ?? charge;
  const at = deps.clock.now().toISOString();
  const status = effectiveStatus(moved, at);
  const scheduled = moved.cycle?.attempts.findIndex((a) => a.status === "SCHEDULED") ?? -1;
  if (status === "WAITING_PAYMENT" && scheduled >= held.attempts.length && openCobr(held.status)) {
    // Our policy scheduled a retry the bank has not been asked for yet.
    const date = moved.cycle?.attempts[scheduled]?.settlementDate as string;
    try {
      held = await recs.retryCycleCharge(txid, date);
    } catch (error) {
      if (!(error instanceof BankRefusedError)) throw error;
      deps.logger.warn({ err: error, transactionId: charge.id, date }, "bank: retry of a cycle charge refused");
      held = (await recs.readCycleCharge(txid)) ?? held;
    }
    moved = (await applyCycleCharge(deps, charge.id, held)) ?? moved;
  }
  const ended = effectiveStatus(moved, deps.clock.now().toISOString()) !== "WAITING_PAYMENT";
  if (moved.status === "CANCELLED" && openCobr(held.status)) {
    try {
      await recs.cancelCycleCharge(txid);
    } catch (error) {
      // Past its first attempt's day the bank keeps it: the payer's bank decides that attempt.
      if (!(error instanceof BankRefusedError)) throw error;
      deps.logger.warn({ err: error, transactionId: charge.id }, "bank: cancellation of a cycle charge refused");
    }
    return "done";
  }
  return ended ? "done" : "follow";
}

/** One sync of a recurrence (`rec_…`) or a cycle charge (`txn_…`) with the bank. */
async function sync(deps: DomainDeps, bank: PixBank, recs: RecurrenceBank, subjectId: string): Promise<Step> {
  return subjectId.startsWith("rec_")
    ? syncRecurrence(deps, bank, recs, subjectId)
    : syncCycleCharge(deps, recs, subjectId);
}

/**
 * How long after its creation a subject is in the reconciler's listings (`GET /rec`, `GET /cobr`
 * over the windows below, every `bankReconcileSeconds`): a recurrence is answered by its payer
 * within days; a cycle charge is made 2 to 10 days before its due date and retried up to 7 days
 * after it.
 */
export const listedForSeconds = { recurrence: 7 * 86_400, cycleCharge: 21 * 86_400 } as const;

/** The longest pause between two reads of one subject older than its listing's window. */
const longestFollowSeconds = 86_400;

/**
 * When a subject still open is read again by its own task: while the listings cover it, when it
 * leaves them (they read it every run meanwhile); after that, one by one, backing off as it ages:
 * a quarter of the time since it left them, between the reconciler's interval and a day.
 */
export function nextFollowAt(subject: { id: string; createdAt: string }, at: string, reconcileSeconds: number): string {
  const window = subject.id.startsWith("rec_") ? listedForSeconds.recurrence : listedForSeconds.cycleCharge;
  const leaves = addSeconds(subject.createdAt, window);
  const soonest = addSeconds(at, reconcileSeconds);
  if (leaves > at) return leaves > soonest ? leaves : soonest;
  const outSeconds = (Date.parse(at) - Date.parse(leaves)) / 1000;
  return addSeconds(at, Math.min(longestFollowSeconds, Math.max(reconcileSeconds, Math.floor(outSeconds / 4))));
}

/** After a sync: the task is deleted (done), or due again when `nextFollowAt` says. */
async function reschedule(deps: DomainDeps, subject: { id: string; scope: Scope }, step: Step): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const id = bankTaskId("recurrence", subject.id);
    const at = deps.clock.now().toISOString();
    if (step === "done") await tx.bankTasks.delete(id);
    else if (step === "follow") {
      const existing = await tx.bankTasks.get(id);
      const made = subject.id.startsWith("rec_")
        ? await tx.recurrences.getById(subject.id)
        : await tx.transactions.getById(subject.id);
      const createdAt = made?.createdAt ?? at;
      await tx.bankTasks.put({
        ...(existing ?? bankTask("recurrence", subject.id, subject.scope, at, at)),
        dueAt: nextFollowAt({ id: subject.id, createdAt }, at, followSeconds(deps)),
        attempts: 0,
        lastError: null,
      });
    }
  });
}

/**
 * The bank task of kind `recurrence` (bank-work job): one sync. Answers true when nothing is left
 * (the task is deleted); false otherwise (due again after the follow interval, or, when the bank
 * did not answer, put off by the job).
 */
export async function runRecurrenceTask(deps: DomainDeps, bank: PixBank, task: BankTaskRecord): Promise<boolean> {
  const recs = recurrenceBankOf(bank);
  if (!recs) return false; // A connection without recurrences: kept until one has them.
  const step = await sync(deps, bank, recs, task.subjectId);
  if (step === "again") return false;
  if (step === "follow") await reschedule(deps, { id: task.subjectId, scope: task }, step);
  return step === "done";
}

/**
 * A callback named these recurrences or cycle charges (a hint): each is read from the bank and
 * followed as the task would. Subjects not ours are ignored; a bank that does not answer leaves
 * it to the task (the reconciler).
 */
export async function followAtBank(deps: DomainDeps, subjects: readonly { id: string; scope: Scope }[]) {
  const bank = await deps.bank?.current();
  const recs = recurrenceBankOf(bank);
  if (!bank || !recs) return;
  for (const subject of subjects) {
    try {
      const step = await sync(deps, bank, recs, subject.id);
      if (step !== "again") await reschedule(deps, subject, step);
    } catch (error) {
      if (error instanceof DomainError) {
        deps.logger.warn({ err: error, subject: subject.id }, "bank: recurrence move refused");
        continue;
      }
      deps.logger.warn({ err: error, subject: subject.id }, "bank: recurrence not followed (the reconciler will)");
    }
  }
}

/** What one reading of a listing saw: its items, those of ours whose state moved at either side, and those not ours. */
export interface ListingCounts {
  pages: number;
  listed: number;
  changed: number;
  foreign: number;
}

/**
 * Whether the bank's recurrence and ours disagree in a way `syncRecurrence` acts on: the bank moved
 * and ours has not followed (applyRecurrence's table), ours ended and the bank's is open (to be
 * cancelled there), or the bank's QR code is not kept yet.
 */
function recurrenceDiffers(r: RecurrenceRecord, held: BankRecurrence, at: string): boolean {
  const ours = effectiveRecurrenceStatus(r, at);
  const oursOpen = ours === "CREATED" || ours === "APPROVED";
  if (openAtBank(held.status))
    return !oursOpen || r.brCode === "" || (held.status === "APROVADA" && ours === "CREATED");
  return ours === "CREATED" || (held.status === "CANCELADA" && ours === "APPROVED");
}

/**
 * Whether the bank's cobr and our cycle charge disagree in a way `syncCycleCharge` acts on: the
 * attempt ours waits on is decided at the bank, the bank cancelled it, a retry our policy
 * scheduled is not asked of the bank yet, or ours was cancelled while the bank may still cancel
 * its own (before its first attempt's day).
 */
function cycleChargeDiffers(charge: TransactionRecord, held: BankCycleCharge, at: string): boolean {
  const status = effectiveStatus(charge, at);
  if (status === "WAITING_PAYMENT") {
    const index = charge.cycle?.attempts.findIndex((a) => a.status === "SCHEDULED") ?? -1;
    const attempt = index < 0 ? undefined : held.attempts[index];
    if (attempt?.status === "PAGA" || attempt?.status === "REJEITADA" || held.status === "CANCELADA") return true;
    return index >= held.attempts.length && openCobr(held.status);
  }
  const first = held.attempts[0]?.date;
  return status === "CANCELLED" && openCobr(held.status) && first !== undefined && brasiliaDate(at) < first;
}

/**
 * Reads every page of one listing and syncs what `changed` says moved, with the listed item (no
 * read one by one). The listing failing ends the run (thrown); a subject's own sync failing is
 * logged and left to the next run.
 */
async function readListing<T>(
  deps: DomainDeps,
  list: (page: number) => Promise<BankPage<T>>,
  changed: (item: T, at: string) => Promise<((item: T) => Promise<Step>) | "same" | "foreign">,
  name: (item: T) => string,
): Promise<ListingCounts> {
  const counts: ListingCounts = { pages: 1, listed: 0, changed: 0, foreign: 0 };
  for (let page = 0; page < counts.pages; page++) {
    const answer = await list(page);
    counts.pages = Math.max(1, answer.pages);
    for (const item of answer.items) {
      counts.listed++;
      const verdict = await changed(item, deps.clock.now().toISOString());
      if (verdict === "foreign") counts.foreign++;
      if (typeof verdict !== "function") continue;
      counts.changed++;
      try {
        await verdict(item);
      } catch (error) {
        deps.logger.warn(
          { err: error, subject: name(item) },
          "bank: a listed subject not followed (the next run will)",
        );
      }
    }
  }
  return counts;
}

/**
 * The reconciler of Pix Automático (every `bankReconcileSeconds`, and the operator's run): reads the
 * bank's listings (`GET /rec`, `GET /cobr`, paged) of what it created over `listedForSeconds`, and
 * acts only on what moved at either side, with the listed item as the bank's word (a callback, a
 * hint anyone may forge, is still confirmed by a read of its subject). Older subjects are read one
 * by one by their task, less often as they age (`nextFollowAt`). Null without a bank that speaks
 * recurrences.
 */
export async function reconcileRecurrencesAtBank(
  deps: DomainDeps,
  bank: PixBank,
): Promise<{ recurrences: ListingCounts; cycleCharges: ListingCounts } | null> {
  const recs = recurrenceBankOf(bank);
  if (!recs) return null;
  const now = deps.clock.now();
  const windowOf = (seconds: number) => ({
    from: new Date(now.getTime() - seconds * 1000).toISOString(),
    to: now.toISOString(),
  });
  const after = async (subject: { id: string; scope: Scope }, step: Step) => {
    if (step !== "again") await reschedule(deps, subject, step);
    return step;
  };
  const recurrences = await readListing(
    deps,
    (page) => recs.listRecurrences(windowOf(listedForSeconds.recurrence), page),
    async (held, at) => {
      const r = await deps.store.read.recurrences.getByBankRecId(held.recId);
      if (!r?.livemode) return "foreign";
      if (!recurrenceDiffers(r, held, at)) return "same";
      return async (item) => after({ id: r.id, scope: r }, await syncRecurrence(deps, bank, recs, r.id, item));
    },
    (held) => held.recId,
  );
  const cycleCharges = await readListing(
    deps,
    (page) => recs.listCycleCharges(windowOf(listedForSeconds.cycleCharge), page),
    async (held, at) => {
      const id = chargeIdOfTxid(held.txid);
      const charge = id === null ? null : await deps.store.read.transactions.getById(id);
      if (!charge?.livemode || !charge.cycle) return "foreign";
      if (!cycleChargeDiffers(charge, held, at)) return "same";
      return async (item) =>
        after({ id: charge.id, scope: charge }, await syncCycleCharge(deps, recs, charge.id, item));
    },
    (held) => held.txid,
  );
  return { recurrences, cycleCharges };
}

/**
 * After a create or a cancellation committed: the work at the bank now, for at most the create's
 * bounded wait (the job finishes what it did not). Never throws.
 */
export async function syncWithin(deps: DomainDeps, subject: { id: string; scope: Scope }): Promise<void> {
  const run = followAtBank(deps, [subject]).then(
    () => true,
    () => null,
  );
  await untilOrNull(run, bankWaitMs(deps));
}
