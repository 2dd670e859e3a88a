import type { StoreTx } from "../../ports/store.js";
import type { PixBank } from "../../ports/pix-bank.js";
import { recurrenceBankOf, type RecurrenceBank } from "../../ports/recurrence-bank.js";
import type { DomainDeps } from "../../deps.js";
import type { Scope } from "../../core/model.js";
import { bankFor, bankTask, bankTaskId, bankWaitMs } from "../bank-charges.js";

// What the recurrences' writes owe the platform's bank (Pix Automático at the bank, at-bank.ts): a
// bank task of kind `recurrence` per recurrence or cycle charge, written in the same transaction.

/** The bank's recurrences for a production scope, or null: the recurrence stays off the bank. */
export async function recurrenceBankFor(
  deps: Pick<DomainDeps, "bank">,
  scope: Scope,
): Promise<{ bank: PixBank; recurrences: RecurrenceBank } | null> {
  const bank = await bankFor(deps, scope);
  const recurrences = recurrenceBankOf(bank);
  return bank && recurrences ? { bank, recurrences } : null;
}

/** Inside a write: the recurrence's or cycle charge's work at the bank is due at `dueAt`. */
export async function owedToBank(tx: StoreTx, subjectId: string, scope: Scope, dueAt: string, at: string) {
  const existing = await tx.bankTasks.get(bankTaskId("recurrence", subjectId));
  if (existing && existing.dueAt <= dueAt) return;
  await tx.bankTasks.put({ ...bankTask("recurrence", subjectId, scope, dueAt, at), attempts: existing?.attempts ?? 0 });
}

/** The due instant of the job's turn after a create's own bounded wait. */
export const afterWait = (deps: Pick<DomainDeps, "bank">, at: string) =>
  new Date(Date.parse(at) + bankWaitMs(deps)).toISOString();
