import { operatesIn } from "../../accounts/index.js";
import type { DomainDeps } from "../../deps.js";
import type { Account, Schemas } from "../../core/model.js";
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
