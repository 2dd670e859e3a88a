import type { StoreTx } from "./ports/store.js";
import type { DomainDeps } from "./deps.js";
import { DomainError, notFound } from "./errors.js";
import type { Account, RecurrenceRecord, Schemas, Scope } from "./model.js";
import { presentTransaction } from "./presenters.js";
import { approveRecurrence, cancelRecurrence, presentRecurrence, rejectRecurrence } from "./recurrence-rules.js";
import { payerCancellation, rejectionOf } from "./recurrence-sandbox.js";
import { attemptOutcome, settleAttempt } from "./recurring-charges.js";

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
  const onRecurrence = (
    id: string,
    work: (tx: StoreTx, r: RecurrenceRecord, at: string) => Promise<RecurrenceRecord>,
  ) =>
    deps.store.transaction(async (tx) => {
      const r = await lockedReload(tx, () => tx.recurrences.getById(id));
      const at = now();
      return presentRecurrence(await work(tx, r, at), deps.config, at);
    });

  return {
    approve: (id: string, body: Schemas["SandboxApproveRecurrenceRequest"]) =>
      onRecurrence(id, (tx, r, at) => {
        if (r.journey === "JOURNEY_3") {
          throw new DomainError(
            "REQUEST_ERROR",
            `Na jornada 3 a recorrência é aprovada pelo pagamento da cobrança imediata ${r.initialTransactionId}.`,
          );
        }
        return approveRecurrence(tx, deps.config, r, at, body.payerMaximumAmountCents);
      }),

    reject: (id: string, body: Schemas["SandboxRejectRecurrenceRequest"]) =>
      onRecurrence(id, (tx, r, at) => rejectRecurrence(tx, deps.config, r, rejectionOf(body), at)),

    cancel: (
      id: string,
      body: {
        requestedBy?: "PAYER" | "PAYER_PSP" | "RECEIVER_PSP";
        code?: Schemas["RecurrenceCancellationCode"];
        reason?: string;
      },
    ) => onRecurrence(id, (tx, r, at) => cancelRecurrence(tx, deps.config, r, payerCancellation(body), at)),

    /** The payer's bank plays a production cycle charge's scheduled attempt. */
    async settleAttempt(transactionId: string, body: Schemas["SettleRecurringAttemptRequest"]) {
      return deps.store.transaction(async (tx) => {
        const charge = await lockedReload(tx, () => tx.transactions.getById(transactionId));
        const at = now();
        const account = await accountOf(tx, charge.accountId);
        const settled = await settleAttempt(deps, tx, account, charge, attemptOutcome(body), at);
        return presentTransaction(settled, at);
      });
    },
  };
}
