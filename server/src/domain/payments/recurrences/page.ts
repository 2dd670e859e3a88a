import { operatesIn } from "../../accounts/index.js";
import type { DomainDeps } from "../../deps.js";
import type { Account, RecurrenceRecord, RecurrenceStatus } from "../../core/model.js";
import { effectiveStatus } from "../presenters.js";
import { effectiveRecurrenceStatus } from "./rules.js";

/** A recurrence as its hosted page shows it: the terms, who is charging, the state and the immediate payment. */
export interface RecurrencePage {
  recurrence: RecurrenceRecord;
  account: Account;
  /** As a client sees it now: a CREATED one past `expiresAt` is EXPIRED. */
  status: RecurrenceStatus;
  /**
   * Whether the payer may approve or pay it: false for a production recurrence of an account that
   * is not verified (never, or no longer), whose page then shows no code.
   */
  payable: boolean;
  /** Journey 3: the immediate charge's amount, and whether it still waits for payment. */
  initialPayment: { amountCents: number; waiting: boolean } | null;
}

/** The hosted page of a recurrence, by its id alone (as a link's checkout); null when there is none. */
export async function findRecurrencePage(deps: DomainDeps, id: string): Promise<RecurrencePage | null> {
  const recurrence = await deps.store.read.recurrences.getById(id);
  if (!recurrence) return null;
  const account = await deps.store.read.accounts.get(recurrence.accountId);
  if (!account) return null;
  const now = deps.clock.now().toISOString();
  const charge = recurrence.initialTransactionId
    ? await deps.store.read.transactions.get(recurrence, recurrence.initialTransactionId)
    : null;
  return {
    recurrence,
    account,
    status: effectiveRecurrenceStatus(recurrence, now),
    payable: operatesIn(account, recurrence.livemode),
    initialPayment: charge
      ? { amountCents: charge.amountCents, waiting: effectiveStatus(charge, now) === "WAITING_PAYMENT" }
      : null,
  };
}
