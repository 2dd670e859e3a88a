import type { StoreTx } from "../../ports/store.js";
import type { DomainDeps, ScopedCaller } from "../../deps.js";
import { DomainError, notFound } from "../../core/errors.js";
import { once } from "../../core/idempotency.js";
import type { RecurrenceRecord, Schemas } from "../../core/model.js";
import { recurrenceLimits } from "../../core/policy.js";
import { effectiveStatus, presentTransaction } from "../presenters.js";
import { addDays, firstCycleFrom } from "./calendar.js";
import {
  approveRecurrence,
  cancelRecurrence,
  expireRecurrence,
  presentRecurrence,
  recurrenceToday,
  rejectRecurrence,
  requireRecurrenceStatus,
} from "./rules.js";
import { attemptOutcome, insertCycleCharge, settleAttempt } from "./cycle-charges.js";

// Test mode plays, with test keys only, what the payer, their bank and the calendar do to a
// recurrence: approval, rejection, cancellation, expiry, each attempt's outcome, and the months
// between cycles (`advance`). In production the settlement simulator plays the same moves.

const requireTestMode = (actor: ScopedCaller) => {
  if (actor.scope.livemode) throw new DomainError("TEST_MODE_ONLY");
};

/** The payer's refusal, with the sandbox's defaults. */
export const rejectionOf = (body: Schemas["SandboxRejectRecurrenceRequest"]) => ({
  code: body.code ?? "AP13",
  reason: body.reason ?? "Autorização recusada pelo pagador.",
});

/** A cancellation from the payer's side (or this service's), with the defaults of who asked it. */
export function payerCancellation(body: {
  requestedBy?: "PAYER" | "PAYER_PSP" | "RECEIVER_PSP" | undefined;
  code?: Schemas["RecurrenceCancellationCode"] | undefined;
  reason?: string | undefined;
}): NonNullable<RecurrenceRecord["cancellation"]> {
  const requestedBy = body.requestedBy ?? "PAYER";
  const defaults = {
    PAYER: { code: "SLDB", reason: "Autorização cancelada pelo pagador." },
    PAYER_PSP: { code: "SLDB", reason: "Autorização cancelada pela instituição do pagador." },
    RECEIVER_PSP: { code: "FRUD", reason: "Autorização cancelada pelo provedor do recebedor." },
  } as const;
  return {
    requestedBy,
    code: body.code ?? defaults[requestedBy].code,
    reason: body.reason ?? defaults[requestedBy].reason,
  };
}

/**
 * `advance`: the calendar moves to the first day the next cycle's charge may be sent, ten days before
 * it (today, when that day has passed); a recurrence with automatic charges sends it then.
 */
async function advanceRecurrence(deps: DomainDeps, tx: StoreTx, actor: ScopedCaller, r: RecurrenceRecord, at: string) {
  requireRecurrenceStatus(r, at, ["APPROVED"], (s) => `Só recorrências aprovadas avançam de ciclo: status atual ${s}.`);
  const today = recurrenceToday(r, at);
  const charges = await tx.transactions.listByRecurrence(r, r.id);
  for (const charge of charges) {
    const scheduled = charge.cycle?.attempts.find((a) => a.status === "SCHEDULED");
    if (scheduled && effectiveStatus(charge, at) === "WAITING_PAYMENT") {
      throw new DomainError(
        "REQUEST_ERROR",
        `A cobrança ${charge.id} tem uma tentativa agendada para ${scheduled.settlementDate}: liquide-a ` +
          `(POST /api/v1/sandbox/transactions/${charge.id}/settle-attempt) ou cancele-a antes de avançar.`,
      );
    }
  }
  const charged = new Set(charges.flatMap((c) => (c.cycle ? [c.cycle.dueDate] : [])));
  let next = firstCycleFrom(r.firstDate, r.periodicity, addDays(today, recurrenceLimits.minDaysBeforeDue));
  while (charged.has(next.date)) next = firstCycleFrom(r.firstDate, r.periodicity, addDays(next.date, 1));
  if (r.lastDate !== null && next.date > r.lastDate) {
    throw new DomainError("REQUEST_ERROR", `A recorrência não tem mais ciclos até a sua data final (${r.lastDate}).`);
  }
  const windowOpens = addDays(next.date, -recurrenceLimits.maxDaysBeforeDue);
  if (windowOpens <= today && !r.automaticCharges) {
    throw new DomainError(
      "REQUEST_ERROR",
      `A cobrança do ciclo de ${next.date} já pode ser enviada (até ${addDays(next.date, -recurrenceLimits.minDaysBeforeDue)}): ` +
        `crie-a com POST /api/v1/recurrences/${r.id}/charges.`,
    );
  }
  const moved: RecurrenceRecord =
    windowOpens > today ? { ...r, simulatedDate: windowOpens, updatedAt: at } : { ...r, updatedAt: at };
  await tx.recurrences.update(moved);
  if (moved.automaticCharges) await insertCycleCharge(deps, tx, actor.account, moved, { dueDate: next.date }, at);
  return moved;
}

export function recurrenceSandboxUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();

  /** Runs `work` on a test recurrence of the actor's scope, under the scope's lock, at most once per key. */
  const onTestRecurrence = (
    actor: ScopedCaller,
    operation: string,
    id: string,
    body: unknown,
    idempotencyKey: string | undefined,
    work: (tx: StoreTx, r: RecurrenceRecord, at: string) => Promise<RecurrenceRecord>,
  ) => {
    requireTestMode(actor);
    const at = now();
    return deps.store.transaction(async (tx) => {
      await tx.lockScope(actor.scope);
      return once(tx, actor.scope, operation, idempotencyKey, { id, body }, at, async () => {
        const r = await tx.recurrences.get(actor.scope, id);
        if (!r) throw notFound();
        return { status: 200, body: presentRecurrence(await work(tx, r, at), deps.config, at) };
      });
    });
  };

  return {
    approve: (actor: ScopedCaller, id: string, body: Schemas["SandboxApproveRecurrenceRequest"], key?: string) =>
      onTestRecurrence(actor, "simulateRecurrenceApproval", id, body, key, (tx, r, at) => {
        if (r.journey === "JOURNEY_3") {
          throw new DomainError(
            "REQUEST_ERROR",
            `Na jornada 3 a recorrência é aprovada pelo pagamento da cobrança imediata: pague ${r.initialTransactionId} ` +
              `(POST /api/v1/sandbox/transactions/${r.initialTransactionId}/pay).`,
          );
        }
        return approveRecurrence(tx, deps.config, r, at, body.payerMaximumAmountCents);
      }),

    reject: (actor: ScopedCaller, id: string, body: Schemas["SandboxRejectRecurrenceRequest"], key?: string) =>
      onTestRecurrence(actor, "simulateRecurrenceRejection", id, body, key, (tx, r, at) =>
        rejectRecurrence(tx, deps.config, r, rejectionOf(body), at),
      ),

    cancelByPayer: (
      actor: ScopedCaller,
      id: string,
      body: Schemas["SandboxPayerCancelRecurrenceRequest"],
      key?: string,
    ) =>
      onTestRecurrence(actor, "simulateRecurrenceCancellationByPayer", id, body, key, (tx, r, at) =>
        cancelRecurrence(tx, deps.config, r, payerCancellation(body), at),
      ),

    expire: (actor: ScopedCaller, id: string, key?: string) =>
      onTestRecurrence(actor, "simulateRecurrenceExpiry", id, null, key, (tx, r, at) =>
        expireRecurrence(tx, deps.config, r, at),
      ),

    advance: (actor: ScopedCaller, id: string, key?: string) =>
      onTestRecurrence(actor, "simulateRecurrenceAdvance", id, null, key, (tx, r, at) =>
        advanceRecurrence(deps, tx, actor, r, at),
      ),

    /** The payer's bank plays a test cycle charge's scheduled attempt. */
    async settleAttempt(
      actor: ScopedCaller,
      transactionId: string,
      body: Schemas["SettleRecurringAttemptRequest"],
      key?: string,
    ) {
      requireTestMode(actor);
      const at = now();
      return deps.store.transaction(async (tx) => {
        await tx.lockScope(actor.scope);
        return once(tx, actor.scope, "simulateRecurringAttempt", key, { id: transactionId, body }, at, async () => {
          const charge = await tx.transactions.get(actor.scope, transactionId);
          if (!charge) throw notFound();
          const settled = await settleAttempt(deps, tx, actor.account, charge, attemptOutcome(body), at);
          return { status: 200, body: presentTransaction(settled, at) };
        });
      });
    },
  };
}
