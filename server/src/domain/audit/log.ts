import type { components } from "../../../../generated/dashboard-api.js";
import type { AuditAction, AuditChange, AuditedBy, AuditEntryRecord, AuditTargetType } from "./model.js";
import type { DomainDeps } from "../deps.js";
import { newId } from "../core/ids.js";
import type { PageRequest } from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import type { StoreTx } from "../ports/store.js";
import type { DashboardActor } from "../identity/model.js";

// The account's audit log (issue 25): every change made through the dashboard or the operator API,
// recorded by `recordAudit` inside the store transaction that makes the change (both stand or
// neither does), with who, when, from which IP address, the object and what changed. Append-only:
// the store port has no update or delete for it, and PostgreSQL refuses both by a trigger. Never a
// secret: callers name the fields they record, and a field whose name is a secret's is written
// as `[secreto]` whatever its value. docs/decisions/0029-audit-log.md.

type Schemas = components["schemas"];

export type { AuditAction, AuditedBy, AuditTargetType } from "./model.js";

/** The platform's operator (the operator API), from the address of its request. */
export const byOperator = (ip: string | null | undefined): AuditedBy => ({
  actor: { type: "operator" },
  ip: ip ?? null,
});

export interface AuditRecord {
  accountId: string;
  by: AuditedBy;
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  /** The object's mode (keys, endpoints, money); omitted or null for the account's own settings. */
  livemode?: boolean | null | undefined;
  /** The fields changed, before and after; never a secret's value. */
  changes?: Record<string, AuditChange> | undefined;
  /** The instant of the change (the clock's, as the change itself). */
  at: string;
}

/** Field names that hold secrets: their values are never written, whoever passes them. */
const secretField = /secret|password|token|totp|recovery|digest|hash|csrf|cookie/i;

/** The value recorded in place of a secret's. */
export const hiddenSecret = "[secreto]";

/** Appends one entry to the account's audit log, inside `tx`: it stands or falls with the change. */
export async function recordAudit(tx: StoreTx, record: AuditRecord): Promise<AuditEntryRecord> {
  const changes: Record<string, AuditChange> = {};
  for (const [field, change] of Object.entries(record.changes ?? {})) {
    changes[field] = secretField.test(field) ? { from: hiddenSecret, to: hiddenSecret } : jsonCopy(change);
  }
  const entry: AuditEntryRecord = {
    id: newId("aud"),
    accountId: record.accountId,
    actor: record.by.actor,
    ip: record.by.ip,
    action: record.action,
    target: { ...record.target },
    livemode: record.livemode ?? null,
    changes,
    createdAt: record.at,
  };
  await tx.auditLog.append(entry);
  return entry;
}

/** Like `recordAudit`, when `changes` holds something: a request that changed nothing leaves no entry. */
export async function recordAuditIfChanged(tx: StoreTx, record: AuditRecord): Promise<void> {
  if (Object.keys(record.changes ?? {}).length > 0) await recordAudit(tx, record);
}

/** A change as JSON keeps it (`undefined` becomes null). */
const jsonCopy = (change: AuditChange): AuditChange => ({
  from: change.from === undefined ? null : (JSON.parse(JSON.stringify(change.from)) as unknown),
  to: change.to === undefined ? null : (JSON.parse(JSON.stringify(change.to)) as unknown),
});

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The listed fields that differ between `before` and `after`, each with both values. */
export function changedFields<T extends object>(
  before: T | null,
  after: T | null,
  fields: readonly (keyof T & string)[],
): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  for (const field of fields) {
    const from = before === null ? null : before[field];
    const to = after === null ? null : after[field];
    if (!sameJson(from, to)) changes[field] = { from: from ?? null, to: to ?? null };
  }
  return changes;
}

/** An entry as `GET /dashboard/v1/audit-log` shows it. */
const presentAuditEntry = (e: AuditEntryRecord): Schemas["AuditEntry"] => ({
  id: e.id,
  createdAt: e.createdAt,
  actor:
    e.actor.type === "user"
      ? { type: "user", userId: e.actor.userId, email: e.actor.email }
      : { type: "operator", userId: null, email: null },
  ip: e.ip,
  action: e.action,
  target: { ...e.target },
  mode: e.livemode === null ? null : e.livemode ? "production" : "test",
  changes: e.changes,
});

export function auditUseCases(deps: Pick<DomainDeps, "store">) {
  return {
    /** The account's entries, newest first (owners and admins: the operation's `x-roles`). */
    async list(
      actor: DashboardActor,
      query: { action?: AuditAction | undefined; createdFrom?: string | undefined; createdTo?: string | undefined },
      page: PageRequest,
    ): Promise<Schemas["AuditEntryPage"]> {
      const result = await pageOrInvalidCursor(() =>
        deps.store.read.auditLog.listPage(actor.account.id, page, {
          action: query.action,
          createdFrom: query.createdFrom,
          createdTo: query.createdTo,
        }),
      );
      return { data: result.items.map(presentAuditEntry), hasMore: result.hasMore };
    },
  };
}
