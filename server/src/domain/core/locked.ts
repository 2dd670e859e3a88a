import { notFound } from "./errors.js";
import type { Account, Scope } from "./model.js";
import type { StoreTx } from "../ports/store.js";

// What the settlement simulator's moves (operator/settlement.ts, payments/recurrences/settlement.ts)
// do before deciding: the record found, under its scope's lock, or `404`.

/**
 * Finds a record by id (`404` when there is none), checks it with `refuse` (which throws to refuse
 * it), takes its scope's lock, and reads it again under the lock, so what the caller decides on
 * cannot change underneath it.
 */
export async function lockedReload<T extends Scope>(
  tx: StoreTx,
  read: () => Promise<T | null>,
  refuse: (found: T) => void = () => undefined,
): Promise<T> {
  const found = await read();
  if (!found) throw notFound();
  refuse(found);
  await tx.lockScope(found);
  return (await read()) as T;
}

/** The account of a record read in `tx`; `404` when it is gone. */
export async function accountOf(tx: StoreTx, accountId: string): Promise<Account> {
  const account = await tx.accounts.get(accountId);
  if (!account) throw notFound();
  return account;
}
