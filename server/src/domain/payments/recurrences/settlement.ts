import { type AuditAction, changedFields, recordAudit } from "../../audit/index.js";
import { type AuditedBy } from "../../audit/model.js";
import type { StoreTx } from "../../ports/store.js";
import type { DomainDeps } from "../../deps.js";
import { DomainError, notFound } from "../../core/errors.js";
import type { Account, RecurrenceRecord, Schemas, Scope } from "../../core/model.js";
import { presentTransaction } from "../presenters.js";
import { approveRecurrence, cancelRecurrence, presentRecurrence, rejectRecurrence } from "./rules.js";
import { payerCancellation, rejectionOf } from "./sandbox.js";
import { attemptOutcome, settleAttempt } from "./cycle-charges.js";

// The settlement simulator's moves of production recurrences (Pix Automático), driven by the
// operator API: what the payer, their bank and this service do, through the same rules as the
// sandbox's. A real PSP answers through the same use cases.

const testRecurrence = () =>
  new DomainError("REQUEST_ERROR", "Recorrências de teste são movidas pelas rotas de sandbox da API pública.");

/** Finds a record by id, takes its scope's lock and reads it again under it (as settlement.ts does). */
async function lockedReload<T extends Scope>(tx: StoreTx, read: () => Promise<T | null>): Promise<T> {
  const found = await read();
  if (!found) throw notFound();
  if (!found.livemode) throw testRecurrence();
  await tx.lockScope(found);
  return (await read()) as T;
}

async function accountOf(tx: StoreTx, accountId: string): Promise<Account> {
  const account = await tx.accounts.get(accountId);
  if (!account) throw notFound();
  return account;
}

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
      const r = await lockedReload(tx, () => tx.recurrences.getById(id));
      const at = now();
      const moved = await work(tx, r, at);
      await recordAudit(tx, {
        accountId: r.accountId,
        by,
        action,
        target: { type: "recurrence", id: r.id },
        livemode: r.livemode,
        changes: changedFields(r, moved, ["status"]),
        at,
      });
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
        const charge = await lockedReload(tx, () => tx.transactions.getById(transactionId));
        const at = now();
        const account = await accountOf(tx, charge.accountId);
        const settled = await settleAttempt(deps, tx, account, charge, attemptOutcome(body), at);
        await recordAudit(tx, {
          accountId: charge.accountId,
          by,
          action: "simulator.recurring_attempt_settled",
          target: { type: "transaction", id: charge.id },
          livemode: charge.livemode,
          changes: changedFields(charge, settled, ["status", "cycle"]),
          at,
        });
        return presentTransaction(settled, at);
      });
    },
  };
}
