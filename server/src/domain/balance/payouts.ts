import type { DomainDeps } from "../deps.js";
import type { WithdrawalPayoutRecord, WithdrawalRecord, WithdrawalTransferRecord } from "../core/model.js";
import { BankRefusedError, BankUnavailableError } from "../ports/pix-bank.js";
import type { PayoutTransfer, PixPayouts } from "../ports/pix-payouts.js";
import {
  bankTransferIdOf,
  sendClaimFrom,
  sendClaimMarginMs,
  sendClaimMsOf,
  transferIdFromBank,
  type WithdrawalPayouts,
} from "./transfers.js";
import { finishWithdrawalTransfers } from "./withdrawals.js";

// Production withdrawals paid out by the platform's bank (issue 36 §1; docs/decisions/
// 0056-withdrawals-paid-out-by-the-bank.md). The withdrawal's money left the merchant's balance at
// creation (withdrawals.ts); here its transfers go to the bank through the `PixPayouts` port of the
// connection's dialect, each with an id derived from ours (`bankTransferIdOf`), so a repeat never
// pays twice. A pass over one withdrawal:
//
//  1. learns what the bank knows of each pending transfer it may have been sent (read by id; Inter,
//     which reads only by its own code, is sent again with the same idempotency key instead);
//  2. checks the platform's balance at the bank covers what is left to send, or waits (`payout.
//     waitingForBalanceSince`, a log line, the operator's bank view) for a later pass;
//  3. sends the rest, each only while it holds the transfer's send claim (`sendClaim`, in the
//     store): the create's pass holds it from the create's commit; any other pass (the job, the
//     operator's, another process's) claims it in a transaction first, and only if no claim holds
//     and none came or went since it read the record. So a transfer the create's pass is about to
//     send is not sent by the job of another process too (it reads 404 meanwhile). A timeout or 5xx
//     is read back (or, for Inter, sent again with the same id) before anything is retried; a
//     refusal (4xx) fails that transfer (nothing left the account);
//  4. writes what it learnt, and releases its claim, in one transaction; when every transfer has ended ends the
//     withdrawal (`finishWithdrawalTransfers`: PAID, PARTIALLY_PAID or FAILED, the failed part back
//     in the balance in that same transaction).
//
// The create starts a pass after its commit; the payout job (jobs/withdrawal-payouts.ts) passes over
// every pending one: it finishes what the bank settled later and recovers a process killed between
// the bank's answer and our write. The job reads an old transfer less and less often
// (`payoutReadPauseMs`); the operator's reconciliation (`followPending({ force: true })`) reads
// every one now.

/** The longest a pending transfer goes unread by the payout job: 15 minutes. */
const maxReadPauseMs = 15 * 60_000;

/**
 * How long the payout job leaves a transfer the bank took `ageMs` ago unread after reading it: a
 * quarter of its age, at most 15 minutes. A young transfer is read at every pass (5 s); an older
 * one at gaps growing by a quarter each time (exponentially: 60 s old, every 15 s; 10 minutes old,
 * every 2.5 minutes), so transfers the bank settles slowly do not multiply the reads.
 */
export function payoutReadPauseMs(ageMs: number): number {
  return Math.min(maxReadPauseMs, Math.max(0, Math.floor(ageMs / 4)));
}

/** How many times one pass sends a transfer whose outcome stays unknown before leaving it to the job. */
const sendAttempts = 3;

/** How many transfers a run's writes ended. */
interface Tally {
  settled: number;
}

/** The claim a pass holds to send some transfers (`WithdrawalTransferRecord.sendClaim`). */
interface SendClaim {
  id: string;
  until: string;
  /** The transfers it holds. */
  transferIds: Set<string>;
}

/** What one pass learnt of a transfer, to be written. */
type Learnt = Partial<Pick<WithdrawalTransferRecord, "status" | "endToEndId" | "completedAt" | "failureReason">> &
  Pick<WithdrawalTransferRecord, "bankReference" | "sentAt">;

export function withdrawalPayoutUseCases(deps: DomainDeps): WithdrawalPayouts {
  const now = () => deps.clock.now().toISOString();
  const payoutsNow = async (): Promise<PixPayouts | null> => (await deps.bank?.payouts?.()) ?? null;
  /** How long a send claim lasts, and what must be left of it for a send to start. */
  const claimMs = sendClaimMsOf(deps);
  const claimMarginMs = sendClaimMarginMs(claimMs);
  /** Passes in progress in this process: one per withdrawal at a time. */
  const inFlight = new Map<string, Promise<WithdrawalRecord | null>>();
  /** What this process's passes are sending now: the balance check counts it as spent. */
  let sendingCents = 0;
  /**
   * The platform's balance read in flight, shared by every pass that needs it meanwhile (100
   * withdrawals at once ask the bank once, not 100 times). Shared only while pending: each sharer
   * decides as it resumes, before any of their sends can end, and `sendingCents` counts each
   * one's as it decides; a pass after it reads anew.
   */
  let balanceRead: Promise<{ availableCents: number }> | null = null;
  function bankBalance(payouts: PixPayouts): Promise<{ availableCents: number }> {
    balanceRead ??= payouts.balance().finally(() => {
      balanceRead = null;
    });
    return balanceRead;
  }
  /** When this process last asked the bank about each pending transfer (ms), for `payoutReadPauseMs`. */
  const lastAsked = new Map<string, number>();

  /**
   * Whether this pass asks the bank about `t`: always for the operator's run (`force`), for a
   * transfer the bank has not taken yet (its send's outcome unknown, or waiting for the balance),
   * and for one this process has not asked about; otherwise once its pause (`payoutReadPauseMs`
   * of its age since the bank took it) has passed since the last ask.
   */
  function dueForRead(t: WithdrawalTransferRecord, force: boolean): boolean {
    const last = lastAsked.get(t.id);
    if (force || !t.sentAt || last === undefined) return true;
    const nowMs = deps.clock.now().getTime();
    return nowMs - last >= payoutReadPauseMs(nowMs - Date.parse(t.sentAt));
  }

  /** What the bank says of one transfer, or null when it does not know it (never sent). Unknown: throws. */
  async function readBack(payouts: PixPayouts, t: WithdrawalTransferRecord): Promise<PayoutTransfer | null> {
    return payouts.read({ transferId: bankTransferIdOf(t.id), bankReference: t.bankReference ?? null });
  }

  /** The transfer as the bank's answer leaves it. */
  function learntFrom(answer: PayoutTransfer, t: WithdrawalTransferRecord, at: string): Learnt {
    const sent = { bankReference: answer.bankReference ?? t.bankReference ?? null, sentAt: t.sentAt ?? at };
    if (answer.status === "PAID") {
      return { ...sent, status: "PAID", endToEndId: answer.endToEndId, completedAt: at };
    }
    if (answer.status === "FAILED") {
      return {
        ...sent,
        status: "FAILED",
        completedAt: at,
        failureReason: (answer.reason ?? "O banco não realizou a transferência.").slice(0, 1000),
      };
    }
    return sent;
  }

  /**
   * Sends one transfer, retrying an unknown outcome with the same id after reading it back (or,
   * when the bank reads only by its own code, by sending again: its idempotency key). Answers what
   * was learnt, or null when the outcome is still unknown (the job reads it back later).
   */
  async function send(
    payouts: PixPayouts,
    w: WithdrawalRecord,
    t: WithdrawalTransferRecord,
    at: string,
    claim: SendClaim,
  ) {
    const request = {
      transferId: bankTransferIdOf(t.id),
      amountCents: t.amountCents,
      destination: { key: w.pixKey },
      description: `Saque ${w.id}`,
    };
    for (let attempt = 1; attempt <= sendAttempts; attempt++) {
      // No send starts unless the claim outlasts it (each call is bounded well within the margin).
      if (Date.parse(claim.until) - deps.clock.now().getTime() < claimMarginMs) {
        deps.logger.warn(
          { withdrawalId: w.id, transferId: t.id },
          "bank: transfer's send claim ran short; left to the job",
        );
        return null;
      }
      try {
        return learntFrom(await payouts.send(request), t, at);
      } catch (error) {
        if (error instanceof BankRefusedError) {
          // Refused: nothing was sent. The transfer fails; its amount returns with the withdrawal's end.
          deps.logger.warn({ withdrawalId: w.id, transferId: t.id, status: error.status }, "bank: transfer refused");
          return {
            bankReference: t.bankReference ?? null,
            sentAt: t.sentAt ?? null,
            status: "FAILED" as const,
            completedAt: at,
            failureReason: `O banco recusou a transferência: ${error.detail}`.slice(0, 1000),
          };
        }
        if (!(error instanceof BankUnavailableError)) throw error;
        deps.logger.warn({ withdrawalId: w.id, transferId: t.id, attempt }, "bank: transfer's outcome unknown");
      }
      // Unknown: read it back before anything is sent again.
      if (payouts.readsByTransferId) {
        try {
          const known = await readBack(payouts, t);
          if (known) return learntFrom(known, t, at);
        } catch (error) {
          if (!(error instanceof BankUnavailableError)) throw error;
          return null;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
    return null;
  }

  /**
   * Writes what a pass learnt, releases its send claim (`claimId`: its transfers' claim lapses now,
   * its id kept) and ends the withdrawal when every transfer has ended; adds to `tally.settled` the
   * transfers this write ended (not those another pass had ended first).
   */
  async function write(
    w0: WithdrawalRecord,
    learnt: Map<string, Learnt>,
    /** Short of balance (what the bank had), not short (null), or as it was (`keep`). */
    waiting: { availableCents: number } | null | "keep",
    tally: Tally,
    claimId: string | null = null,
  ): Promise<WithdrawalRecord | null> {
    return deps.store
      .transaction(async (tx) => {
        // A withdrawal's account and mode never change: its scope is locked without reading it first.
        await tx.lockScope({ accountId: w0.accountId, livemode: w0.livemode });
        const w = await tx.withdrawals.getById(w0.id);
        if (!w || w.status !== "PENDING" || !w.payout) return w;
        const at = now();
        let settled = 0;
        let released = false;
        const transfers = w.transfers.map((t0) => {
          const own = claimId !== null && t0.sendClaim?.id === claimId && t0.sendClaim.until > at;
          if (own) released = true;
          const t = own ? { ...t0, sendClaim: { id: claimId, until: at } } : t0;
          const news = learnt.get(t.id);
          // A transfer another pass ended stays as it ended.
          if (!news || t.status !== "PENDING") return t;
          if (news.status && news.status !== "PENDING") settled++;
          return { ...t, ...news };
        });
        // Counted once the transaction commits (a retried transaction counts again from zero).
        const count = () => {
          tally.settled += settled;
        };
        const payout: WithdrawalPayoutRecord =
          waiting === "keep"
            ? w.payout
            : waiting
              ? {
                  waitingForBalanceSince: w.payout.waitingForBalanceSince ?? at,
                  bankAvailableCents: waiting.availableCents,
                }
              : { waitingForBalanceSince: null, bankAvailableCents: null };
        const next: WithdrawalRecord = { ...w, payout, updatedAt: at };
        const ended = await finishWithdrawalTransfers(tx, next, transfers, at);
        if (ended) return { record: ended, count };
        const unchanged =
          learnt.size === 0 &&
          !released &&
          w.payout.waitingForBalanceSince === payout.waitingForBalanceSince &&
          w.payout.bankAvailableCents === payout.bankAvailableCents;
        if (unchanged) return { record: w, count };
        const updated = { ...next, transfers };
        await tx.withdrawals.update(updated);
        return { record: updated, count };
      })
      .then((written) => {
        if (written && "count" in written) {
          written.count();
          return written.record;
        }
        return written;
      });
  }

  /**
   * Claims for this pass the transfers of `toSend` no pass holds, in a transaction: each one still
   * pending whose claim lapsed (or never was) and is still the very claim `w0` showed (id and
   * `until`): a claim taken or released since this pass read the record (another pass sent
   * meanwhile, or is sending) is not taken on that stale read; a later pass reads the transfer
   * anew. So the job of one process does not send what the create's pass of another sent after
   * the job read its page. Null when it holds none.
   */
  async function claimSends(w0: WithdrawalRecord, toSend: WithdrawalTransferRecord[]): Promise<SendClaim | null> {
    const claimOf = (t: WithdrawalTransferRecord) => (t.sendClaim ? `${t.sendClaim.id} ${t.sendClaim.until}` : null);
    const seen = new Map(w0.transfers.map((t) => [t.id, claimOf(t)]));
    const wanted = new Set(toSend.map((t) => t.id));
    return deps.store.transaction(async (tx) => {
      await tx.lockScope({ accountId: w0.accountId, livemode: w0.livemode });
      const w = await tx.withdrawals.getById(w0.id);
      if (!w || w.status !== "PENDING" || !w.payout) return null;
      const { id, until } = sendClaimFrom(deps.clock.now(), claimMs);
      const at = now();
      const transferIds = new Set<string>();
      const transfers = w.transfers.map((t) => {
        const free = !t.sendClaim || t.sendClaim.until <= at;
        if (!wanted.has(t.id) || t.status !== "PENDING" || !free || claimOf(t) !== seen.get(t.id)) return t;
        transferIds.add(t.id);
        return { ...t, sendClaim: { id, until } };
      });
      if (transferIds.size === 0) return null;
      await tx.withdrawals.update({ ...w, transfers });
      return { id, until, transferIds };
    });
  }

  /** The claim the create's commit gave its pass over `w`'s transfers (null: none left to it). */
  function createdClaim(w: WithdrawalRecord, toSend: WithdrawalTransferRecord[]): SendClaim | null {
    const held = toSend[0]?.sendClaim;
    if (!held) return null;
    const transferIds = new Set(toSend.filter((t) => t.sendClaim?.id === held.id).map((t) => t.id));
    return { id: held.id, until: held.until, transferIds };
  }

  /**
   * One pass (see the top of this file); `fresh`: just created, nothing sent yet. `known`: the
   * withdrawal as its caller just read or wrote it (the create's, a page of the job's), not read
   * again; whatever it says, the write reads it anew under the scope's lock.
   */
  async function passOnce(
    id: string,
    fresh: boolean,
    force: boolean,
    tally: Tally,
    known?: WithdrawalRecord,
  ): Promise<WithdrawalRecord | null> {
    const payouts = await payoutsNow();
    const w = known ?? (await deps.store.read.withdrawals.getById(id));
    if (!payouts || !w || w.status !== "PENDING" || !w.payout) return w;
    const at = now();
    const learnt = new Map<string, Learnt>();
    const toSend: WithdrawalTransferRecord[] = [];
    for (const t of w.transfers) {
      if (t.status !== "PENDING") continue;
      const sentBefore = !fresh || Boolean(t.sentAt);
      if (!sentBefore) {
        toSend.push(t);
        continue;
      }
      if (!dueForRead(t, force)) continue;
      lastAsked.set(t.id, deps.clock.now().getTime());
      if (!payouts.readsByTransferId && !t.bankReference) {
        // Inter reads a transfer only by its own code: sending again with the same key answers it.
        toSend.push(t);
        continue;
      }
      try {
        const known = await readBack(payouts, t);
        if (known) learnt.set(t.id, learntFrom(known, t, at));
        else toSend.push(t);
      } catch (error) {
        // Unknown (the bank does not answer): nothing is sent for it now; the next pass reads again.
        if (!(error instanceof BankUnavailableError)) throw error;
        deps.logger.warn({ withdrawalId: w.id, transferId: t.id }, "bank: transfer not read back");
      }
    }
    // The create's pass holds its transfers' claim from the commit; it releases it whatever it does.
    const created = fresh ? createdClaim(w, toSend) : null;
    const createdId = created?.id ?? null;
    // Nothing learnt and nothing to send (its transfers' pauses): no transaction.
    if (toSend.length === 0) return learnt.size === 0 ? w : write(w, learnt, "keep", tally);

    const neededCents = toSend.reduce((sum, t) => sum + t.amountCents, 0);
    let availableCents: number;
    try {
      availableCents = (await bankBalance(payouts)).availableCents - sendingCents;
    } catch (error) {
      if (!(error instanceof BankUnavailableError)) throw error;
      deps.logger.warn({ withdrawalId: w.id }, "bank: platform balance not read; the withdrawal is sent later");
      return write(w, learnt, "keep", tally, createdId);
    }
    if (availableCents < neededCents) {
      if (!w.payout.waitingForBalanceSince) {
        deps.logger.warn(
          { withdrawalId: w.id, neededCents, bankAvailableCents: availableCents },
          "bank: the platform's balance at the bank does not cover a withdrawal; it waits",
        );
      }
      return write(w, learnt, { availableCents: Math.max(0, availableCents) }, tally, createdId);
    }
    sendingCents += neededCents;
    let claim: SendClaim | null = null;
    try {
      // (A withdrawal created before claims were kept has none: claimed as any other pass would.)
      claim = created ?? (await claimSends(w, toSend));
      for (const t of toSend) {
        if (!claim?.transferIds.has(t.id)) {
          // Another pass holds it (the create's, most likely): it sends it; this one only read it.
          deps.logger.debug({ withdrawalId: w.id, transferId: t.id }, "bank: transfer left to the pass sending it");
          continue;
        }
        const result = await send(payouts, w, t, at, claim);
        if (result) learnt.set(t.id, result);
      }
    } finally {
      sendingCents -= neededCents;
    }
    // The create's pass, when the bank only took each of its transfers (Efí's EM_PROCESSAMENTO) and
    // reads them by our id: nothing to write that the bank's notice or the job's read will not learn
    // (it writes what it read then, `sentAt` included), so it writes nothing, four statements a
    // transfer fewer on PostgreSQL; its send claim lapses by itself (`PIX_BANK_PAYOUT_CLAIM_SECONDS`),
    // and any other pass reads these transfers back before it could send them. An unknown outcome, a
    // refusal, an end already known, or a bank that reads only by its own code (Inter, whose code
    // must be kept): written as always.
    const onlyTaken =
      fresh &&
      payouts.readsByTransferId &&
      w.payout.waitingForBalanceSince === null &&
      claim !== null &&
      toSend.every((t) => claim?.transferIds.has(t.id) && learnt.has(t.id) && learnt.get(t.id)?.status === undefined);
    if (onlyTaken) return w;
    return write(w, learnt, null, tally, claim?.id ?? null);
  }

  function pass(
    id: string,
    fresh = false,
    force = false,
    tally: Tally = { settled: 0 },
    known?: WithdrawalRecord,
  ): Promise<WithdrawalRecord | null> {
    const running = inFlight.get(id);
    // The operator's run waits for a pass of the job (which may have left old transfers unread), then reads all.
    if (running) return force ? running.catch(() => null).then(() => pass(id, fresh, force, tally)) : running;
    const started = passOnce(id, fresh, force, tally, known).finally(() => {
      inFlight.delete(id);
    });
    inFlight.set(id, started);
    return started;
  }

  /** Forgets what this process asked about transfers no longer pending. */
  function forget(w: WithdrawalRecord | null): void {
    for (const t of w?.transfers ?? []) if (t.status !== "PENDING" || w?.status !== "PENDING") lastAsked.delete(t.id);
  }

  return {
    async available() {
      const payouts = await payoutsNow();
      return payouts === null ? null : { transferLimitCents: payouts.transferLimitCents };
    },

    follow(id, created) {
      void pass(id, true, false, { settled: 0 }, created).catch((error: unknown) =>
        deps.logger.warn({ err: error, withdrawalId: id }, "bank: withdrawal not sent now (the payout job will)"),
      );
    },

    pass: (id) => pass(id),

    async confirmSettled(bankTransferIds) {
      const ids = [...new Set(bankTransferIds.map(transferIdFromBank))].filter((id): id is string => id !== null);
      if (ids.length === 0 || !(await payoutsNow())) return { withdrawals: 0, ended: 0 };
      const named = await deps.store.read.withdrawals.listPendingAtBankByTransfers(ids.slice(0, 500));
      let ended = 0;
      // Each read back now, whatever its pause (`force`), from the record just listed (its write
      // reads it again under the lock); a pass in flight (the create's, which may not have written
      // its send yet) is waited for first, and the next pass reads the record anew.
      for (const w of named) {
        const after = await pass(w.id, false, true, { settled: 0 }, w).catch((error: unknown) => {
          deps.logger.warn({ err: error, withdrawalId: w.id }, "bank: withdrawal not confirmed (the payout job will)");
          return null;
        });
        forget(after);
        if (after && after.status !== "PENDING") ended++;
      }
      return { withdrawals: named.length, ended };
    },

    async followPending(options = {}) {
      const force = options.force ?? false;
      const counts = { followed: 0, ended: 0, waitingForBalance: 0, transfersSettled: 0 };
      if (!(await payoutsNow())) return counts;
      /** The transfers this run's own writes ended (a pass of another process or of the job not counted). */
      const tally: Tally = { settled: 0 };
      let afterId: string | undefined;
      const seen = new Set<string>();
      for (;;) {
        const page = await deps.store.read.withdrawals.listPendingAtBank(50, afterId);
        for (const w of page) {
          counts.followed++;
          for (const t of w.transfers) seen.add(t.id);
          const after = await pass(w.id, false, force, tally, w).catch((error: unknown) => {
            deps.logger.warn({ err: error, withdrawalId: w.id }, "bank: withdrawal not followed");
            return null;
          });
          forget(after);
          if (after && after.status !== "PENDING") counts.ended++;
          else if (after?.payout?.waitingForBalanceSince) counts.waitingForBalance++;
        }
        if (page.length < 50) break;
        afterId = page[page.length - 1]?.id;
      }
      // Transfers this process asked about that are no longer pending (ended by another process).
      for (const id of lastAsked.keys()) if (!seen.has(id)) lastAsked.delete(id);
      return { ...counts, transfersSettled: tally.settled };
    },
  };
}
