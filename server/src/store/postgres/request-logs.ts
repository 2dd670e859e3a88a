import type { PageRequest, PageResult, Scope } from "../../domain/core/model.js";
import { UnknownCursorError } from "../../domain/ports/store.js";
import type { RequestLogStore } from "../../domain/ports/request-log-store.js";
import type { RequestLogFilter, RequestLogRecord, RequestLogSummaryRecord } from "../../domain/request-logs/index.js";
import { execute, type Queryable, query } from "./sql.js";

// The request logs in PostgreSQL (migration 1764650000037; docs/decisions/0058-request-logs.md):
// one partition per UTC day, made ahead and dropped whole. Making and dropping partitions is DDL
// that several server processes may run at once: each run holds one advisory lock for its
// statements (one implicit transaction: one simple query, no parameters; the day names are checked).

/** The advisory lock the partitions' changes are made under (any constant other locks do not use). */
const partitionLock = "7364500037";

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;

const partitionOf = (day: string) => `request_logs_${day.replaceAll("-", "")}`;

function nextDay(day: string): string {
  const at = new Date(`${day}T00:00:00.000Z`);
  at.setUTCDate(at.getUTCDate() + 1);
  return at.toISOString().slice(0, 10);
}

const summaryColumns = `id, account_id AS "accountId", livemode, key_id AS "keyId", key_name AS "keyName",
  key_prefix AS "keyPrefix", method, path, route, status, duration_ms AS "durationMs", request_id AS "requestId",
  CASE WHEN status >= 400 THEN response_body END AS "errorBody", created_at AS "createdAt"`;

const allColumns = `id, account_id AS "accountId", livemode, key_id AS "keyId", key_name AS "keyName",
  key_prefix AS "keyPrefix", method, path, route, query, status, duration_ms AS "durationMs", request_id AS "requestId",
  request_body AS "requestBody", request_body_truncated AS "requestBodyTruncated", response_body AS "responseBody",
  response_body_truncated AS "responseBodyTruncated", created_at AS "createdAt"`;

/** `LIKE`'s wildcards in a text searched for as it is. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The table's columns and each one's value, in the order the insert lists them. */
const columns: [string, (e: RequestLogRecord) => unknown][] = [
  ["id", (e) => e.id],
  ["account_id", (e) => e.accountId],
  ["livemode", (e) => e.livemode],
  ["key_id", (e) => e.keyId],
  ["key_name", (e) => e.keyName],
  ["key_prefix", (e) => e.keyPrefix],
  ["method", (e) => e.method],
  ["path", (e) => e.path],
  ["route", (e) => e.route],
  ["query", (e) => e.query],
  ["status", (e) => e.status],
  ["duration_ms", (e) => e.durationMs],
  ["request_id", (e) => e.requestId],
  ["request_body", (e) => e.requestBody],
  ["request_body_truncated", (e) => e.requestBodyTruncated],
  ["response_body", (e) => e.responseBody],
  ["response_body_truncated", (e) => e.responseBodyTruncated],
  ["created_at", (e) => e.createdAt],
];
/** Casts where a parameter's type is not text. */
const casts = columns.map(([name]) =>
  name === "created_at"
    ? "::timestamptz"
    : name === "status" || name === "duration_ms"
      ? "::integer"
      : name.endsWith("_truncated") || name === "livemode"
        ? "::boolean"
        : "",
);

export function pgRequestLogs(db: Queryable): RequestLogStore {
  return {
    async appendMany(entries: readonly RequestLogRecord[]) {
      if (entries.length === 0) return 0;
      // One row of parameters per entry (not `unnest` of arrays: pg writes an array's elements
      // escaped, a copy of every body with its quotes doubled; a text parameter goes as it is).
      const rows = entries.map((_e, row) => {
        const at = row * columns.length;
        return `(${columns.map((_c, i) => `$${at + i + 1}${casts[i] ?? ""}`).join(", ")})`;
      });
      return execute(
        db,
        `INSERT INTO request_logs (${columns.map(([name]) => name).join(", ")}) VALUES ${rows.join(", ")}`,
        entries.flatMap((e) => columns.map(([, value]) => value(e))),
        { prepare: false },
      );
    },

    async prepareDays(days: readonly string[]) {
      const valid = days.filter((day) => dayPattern.test(day));
      if (valid.length === 0) return;
      const creates = valid.map(
        (day) =>
          `CREATE UNLOGGED TABLE IF NOT EXISTS ${partitionOf(day)} PARTITION OF request_logs
           FOR VALUES FROM ('${day}T00:00:00Z') TO ('${nextDay(day)}T00:00:00Z')`,
      );
      await execute(db, `SELECT pg_advisory_xact_lock(${partitionLock}); ${creates.join("; ")}`, [], {
        prepare: false,
      });
    },

    async dropDaysBefore(day: string) {
      if (!dayPattern.test(day)) return [];
      const partitions = await query<{ name: string }>(
        db,
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'request_logs'::regclass`,
      );
      const gone = partitions
        .map(({ name }) => /^request_logs_(\d{4})(\d{2})(\d{2})$/.exec(name))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => `${m[1]}-${m[2]}-${m[3]}`)
        .filter((name) => name < day)
        .sort();
      if (gone.length === 0) return [];
      const drops = gone.map((name) => `DROP TABLE IF EXISTS ${partitionOf(name)}`);
      await execute(db, `SELECT pg_advisory_xact_lock(${partitionLock}); ${drops.join("; ")}`, [], { prepare: false });
      return gone;
    },

    async listPage(scope: Scope, page: PageRequest, filter: RequestLogFilter) {
      const values: unknown[] = [scope.accountId, scope.livemode, filter.since];
      const param = (value: unknown) => {
        values.push(value);
        return `$${values.length}`;
      };
      const clauses: string[] = [];
      if (filter.status) {
        clauses.push(`status >= ${param(filter.status.from)} AND status < ${param(filter.status.to)}`);
      }
      if (filter.pathContains !== undefined) {
        clauses.push(`path LIKE ${param(`%${likeLiteral(filter.pathContains)}%`)}`);
      }
      if (filter.keyId !== undefined) clauses.push(`key_id = ${param(filter.keyId)}`);
      let after = "";
      if (page.startingAfter !== undefined) {
        const cursor = await query<{ createdAt: string; id: string }>(
          db,
          `SELECT created_at AS "createdAt", id FROM request_logs
           WHERE account_id = $1 AND livemode = $2 AND created_at >= $3::timestamptz AND id = $4`,
          [scope.accountId, scope.livemode, filter.since, page.startingAfter],
        );
        const at = cursor[0];
        if (!at) throw new UnknownCursorError();
        after = ` AND (created_at, id COLLATE "C") < (${param(at.createdAt)}::timestamptz, ${param(at.id)}::text COLLATE "C")`;
      }
      const where = clauses.length > 0 ? ` AND ${clauses.join(" AND ")}` : "";
      const rows = await query<RequestLogSummaryRecord & Record<string, unknown>>(
        db,
        `SELECT ${summaryColumns} FROM request_logs
         WHERE account_id = $1 AND livemode = $2 AND created_at >= $3::timestamptz${where}${after}
         ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT ${param(page.limit + 1)}`,
        values,
        { prepare: false },
      );
      return {
        items: rows.slice(0, page.limit),
        hasMore: rows.length > page.limit,
      } satisfies PageResult<RequestLogSummaryRecord>;
    },

    async get(scope: Scope, id: string, since: string) {
      const rows = await query<RequestLogRecord & Record<string, unknown>>(
        db,
        `SELECT ${allColumns} FROM request_logs
         WHERE account_id = $1 AND livemode = $2 AND created_at >= $3::timestamptz AND id = $4`,
        [scope.accountId, scope.livemode, since, id],
      );
      return rows[0] ?? null;
    },
  };
}
