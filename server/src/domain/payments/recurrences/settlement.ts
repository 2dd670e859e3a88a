import { type AuditAction, recordChange } from "../../audit/index.js";
import { type AuditedBy } from "../../audit/model.js";
import type { StoreTx } from "../../ports/store.js";
import type { DomainDeps } from "../../deps.js";
import { DomainError } from "../../core/errors.js";
import { accountOf, lockedReload } from "../../core/locked.js";
import type { RecurrenceRecord, Schemas, Scope } from "../../core/model.js";
import { presentTransaction } from "../presenters.js";
import { approveRecurrence, cancelRecurrence, presentRecurrence, rejectRecurrence } from "./rules.js";
import { payerCancellation, rejectionOf } from "./sandbox.js";
import { attemptOutcome, settleAttempt } from "./cycle-charges.js";

// The settlement simulator's moves of production recurrences (Pix Automático), driven by the
// operator API: what the payer, their bank and this service do, through the same rules as the
// sandbox's. A real PSP answers through the same use cases.

/** A test recurrence (or its cycle charge) moves through the public API's sandbox routes, not these. */
const productionOnly = (found: Scope) => {
  if (!found.livemode) {
    throw new DomainError("REQUEST_ERROR", "Recorrências de teste são movidas pelas rotas de sandbox da API pública.");
  }
};

export function recurrenceSettlementUseCases(deps: DomainDeps) {
  const now = () => deps.clock.now().toISOString();
  /** One move of a recurrence, audited as `action` by the operator (`by`). */
  const onRecurrence = (
    id: string,
    by: AuditedBy,
    action: AuditAction,
    work: (tx: StoreTx, r: RecurrenceRecord, at: string) => Promise<RecurrenceRecord>,
  ) =>
    deps.store.transaction(async (tx) => {
      const r = await lockedReload(tx, () => tx.recurrences.getById(id), productionOnly);
      const at = now();
      const moved = await work(tx, r, at);
      await recordChange(tx, { by, action, target: "recurrence", before: r, after: moved, fields: ["status"], at });
      return presentRecurrence(moved, deps.config, at);
    });

  return {
    approve: (id: string, body: Schemas["SandboxApproveRecurrenceRequest"], by: AuditedBy) =>
      onRecurrence(id, by, "simulator.recurrence_approved", (tx, r, at) => {
        if (r.journey === "JOURNEY_3") {
          throw new DomainError(
            "REQUEST_ERROR",
            `Na jornada 3 a recorrência é aprovada pelo pagamento da cobrança imediata ${r.initialTransactionId}.`,
          );
        }
        return approveRecurrence(tx, deps.config, r, at, body.payerMaximumAmountCents);
      }),

    reject: (id: string, body: Schemas["SandboxRejectRecurrenceRequest"], by: AuditedBy) =>
      onRecurrence(id, by, "simulator.recurrence_rejected", (tx, r, at) =>
        rejectRecurrence(tx, deps.config, r, rejectionOf(body), at),
      ),

    cancel: (
      id: string,
      body: {
        requestedBy?: "PAYER" | "PAYER_PSP" | "RECEIVER_PSP";
        code?: Schemas["RecurrenceCancellationCode"];
        reason?: string;
      },
      by: AuditedBy,
    ) =>
      onRecurrence(id, by, "simulator.recurrence_cancelled", (tx, r, at) =>
        cancelRecurrence(tx, deps.config, r, payerCancellation(body), at),
      ),

    /** The payer's bank plays a production cycle charge's scheduled attempt. */
    async settleAttempt(transactionId: string, body: Schemas["SettleRecurringAttemptRequest"], by: AuditedBy) {
      return deps.store.transaction(async (tx) => {
        const charge = await lockedReload(tx, () => tx.transactions.getById(transactionId), productionOnly);
        const at = now();
        const account = await accountOf(tx, charge.accountId);
        const settled = await settleAttempt(deps, tx, account, charge, attemptOutcome(body), at);
        await recordChange(tx, {
          by,
          action: "simulator.recurring_attempt_settled",
          target: "transaction",
          before: charge,
          after: settled,
          fields: ["status", "cycle"],
          at,
        });
        return presentTransaction(settled, at);
      });
    },
  };
}
