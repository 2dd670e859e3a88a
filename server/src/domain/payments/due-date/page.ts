import { operatesIn } from "../../accounts/index.js";
import type { DomainDeps } from "../../deps.js";
import { DomainError, notFound } from "../../core/errors.js";
import type { Account, Schemas, Scope } from "../../core/model.js";
import { creditPaidCharge } from "../charges.js";
import { presentTransaction } from "../presenters.js";

/** A charge with a due date as its hosted page shows it (issue 38): the charge as the API shows it now, and who charges. */
export interface DueDateChargePage {
  /** The charge now: today's amount, its breakdown and Pix code while waiting; what was paid once paid. */
  transaction: Schemas["Transaction"] & { dueDateCharge: Schemas["DueDateCharge"] };
  account: Account;
  /** False for a production charge of an account not verified: the page then shows no code. */
  payable: boolean;
}

/** The hosted page of a charge with a due date, by its id alone; null when there is none (or it has no due date). */
export async function findDueDateChargePage(deps: DomainDeps, id: string): Promise<DueDateChargePage | null> {
  const record = await deps.store.read.transactions.getById(id);
  if (!record?.dueDateCharge) return null;
  const account = await deps.store.read.accounts.get(record.accountId);
  if (!account) return null;
  const view = presentTransaction(record, deps.clock.now().toISOString());
  if (!view.dueDateCharge) return null;
  return {
    transaction: { ...view, dueDateCharge: view.dueDateCharge },
    account,
    payable: operatesIn(account, record.livemode),
  };
}

/**
 * Test mode only, from the hosted page: the payer pays a charge with a due date on `paymentDate`
 * (the amount due that day), as `POST /api/v1/sandbox/transactions/{id}/pay` does. Refusals are
 * the API's: `403 TEST_MODE_ONLY`, `400 REQUEST_ERROR` when it is not waiting, `400
 * VALIDATION_ERROR` on `paymentDate`.
 */
export async function simulateDueDatePayment(deps: DomainDeps, id: string, paymentDate: string | undefined) {
  const record = await deps.store.read.transactions.getById(id);
  if (!record?.dueDateCharge) throw notFound();
  if (record.livemode) {
    throw new DomainError("TEST_MODE_ONLY", "A simulação de pagamento só está disponível em cobranças de teste.");
  }
  const scope: Scope = { accountId: record.accountId, livemode: false };
  return deps.store.transaction(async (tx) => {
    await tx.lockScope(scope);
    const account = await tx.accounts.get(scope.accountId);
    const charge = await tx.transactions.get(scope, id);
    if (!account || !charge) throw notFound();
    const at = deps.clock.now().toISOString();
    return creditPaidCharge(tx, account, charge, at, { config: deps.config, paymentDate });
  });
}
