import type { AuditEntryRecord } from "../../domain/audit/model.js";
import type { AuditLogFilter, AuditReads, AuditWrites } from "../../domain/ports/audit-store.js";
import type { TableDef } from "./rows.js";
import { json, type Queryable, type Row } from "./sql.js";
import { insertRow, pageQuery } from "./statements.js";

// The accounts' audit log (issue 25; migration 1764500000000): appended, never changed (a trigger
// refuses UPDATE, DELETE and TRUNCATE).

export const auditTable: TableDef<AuditEntryRecord> = {
  name: "audit_log",
  columns: [
    ["id", (e) => e.id],
    ["account_id", (e) => e.accountId],
    ["actor_type", (e) => e.actor.type],
    ["actor_user_id", (e) => (e.actor.type === "user" ? e.actor.userId : null)],
    ["actor_email", (e) => (e.actor.type === "user" ? e.actor.email : null)],
    ["ip", (e) => e.ip],
    ["action", (e) => e.action],
    ["target_type", (e) => e.target.type],
    ["target_id", (e) => e.target.id],
    ["livemode", (e) => e.livemode],
    ["changes", (e) => json(e.changes)],
    ["created_at", (e) => e.createdAt],
  ],
  toRecord: (row: Row) => ({
    id: row.id as string,
    accountId: row.accountId as string,
    actor:
      row.actorType === "user"
        ? { type: "user", userId: row.actorUserId as string, email: row.actorEmail as string }
        : { type: "operator" },
    ip: row.ip as string | null,
    action: row.action as AuditEntryRecord["action"],
    target: { type: row.targetType as AuditEntryRecord["target"]["type"], id: row.targetId as string },
    livemode: row.livemode as boolean | null,
    changes: row.changes as AuditEntryRecord["changes"],
    createdAt: row.createdAt as string,
  }),
};

function auditFilterSql(filter: AuditLogFilter, values: unknown[]): string {
  const clauses: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.action !== undefined) clauses.push(`action = ${param(filter.action)}`);
  if (filter.createdFrom !== undefined) clauses.push(`created_at >= ${param(filter.createdFrom)}::timestamptz`);
  if (filter.createdTo !== undefined) clauses.push(`created_at < ${param(filter.createdTo)}::timestamptz`);
  return clauses.length ? ` AND ${clauses.join(" AND ")}` : "";
}

export function auditReads(db: Queryable): AuditReads {
  return {
    auditLog: {
      listPage: (accountId, page, filter = {}) =>
        pageQuery(
          db,
          auditTable,
          { scope: "account_id = $1", values: [accountId], filters: (values) => auditFilterSql(filter, values) },
          page,
        ),
    },
  };
}

export function auditWrites(client: Queryable): AuditWrites {
  return { auditLog: { ...auditReads(client).auditLog, append: (entry) => insertRow(client, auditTable, entry) } };
}
