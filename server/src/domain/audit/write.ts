import type { AuditAction, AuditedBy, AuditTargetType } from "./model.js";
import { changedFields, recordAudit, recordAuditIfChanged } from "./log.js";
import type { StoreTx } from "../ports/store.js";

// A change to one record of an account and its audit entry, in one call: the entry's target, account
// and mode are the record's, its changes the listed fields that differ between before and after
// (compared on the record's view, when `present` gives one). Each feature keeps only its field list.

/** A record as the audit log names it: its id, its account, and its mode when it has one. */
export interface AuditSubject {
  id: string;
  accountId: string;
  livemode?: boolean;
}

/** Which fields the entry compares: the record's own, or those of its view (`present`). */
type Compared<R, V> =
  | { present?: undefined; fields: readonly (keyof R & string)[] }
  | { present: (record: R) => V; fields: readonly (keyof V & string)[] };

/** One record's change, as the audit log records it. */
export type RecordChange<R extends AuditSubject, V = R> = Compared<R, V> & {
  by: AuditedBy;
  action: AuditAction;
  /** What kind of object the record is; the entry's target is the record. */
  target: AuditTargetType;
  /** The record before the change (null: the change created it). */
  before: R | null;
  /** The record after the change (null: the change removed it). */
  after: R | null;
  /** No entry when none of `fields` changed (an update that changed nothing leaves none). */
  onlyIfChanged?: boolean;
  at: string;
};

/** Records `change` in the account's audit log, inside `tx` (the change itself made by the caller). */
export async function recordChange<R extends AuditSubject, V = R>(tx: StoreTx, change: RecordChange<R, V>) {
  const subject = change.after ?? change.before;
  if (subject === null) throw new Error(`audit ${change.action}: no record before or after`);
  const view = (record: R | null) =>
    (record === null || !change.present ? record : change.present(record)) as Record<string, unknown> | null;
  const record = change.onlyIfChanged ? recordAuditIfChanged : recordAudit;
  await record(tx, {
    accountId: subject.accountId,
    by: change.by,
    action: change.action,
    target: { type: change.target, id: subject.id },
    livemode: subject.livemode,
    changes: changedFields(view(change.before), view(change.after), change.fields as readonly string[]),
    at: change.at,
  });
}

/** A table of the store: the record is inserted when it is new, updated otherwise. */
interface Table<R> {
  insert(record: R): Promise<void>;
  update(record: R): Promise<void>;
}

/** Writes `change.after` to `table` (a new record when `before` is null) and records the change, both in `tx`. */
export async function writeAudited<R extends AuditSubject, V = R>(
  tx: StoreTx,
  table: Table<R>,
  change: RecordChange<R, V> & { after: R },
): Promise<R> {
  await (change.before === null ? table.insert(change.after) : table.update(change.after));
  await recordChange(tx, change);
  return change.after;
}
