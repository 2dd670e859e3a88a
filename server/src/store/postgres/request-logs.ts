import { finished } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { PageRequest, PageResult, Scope } from "../../domain/core/model.js";
import { UnknownCursorError } from "../../domain/ports/store.js";
import type { RequestLogStore } from "../../domain/ports/request-log-store.js";
import type { RequestLogFilter, RequestLogRecord, RequestLogSummaryRecord } from "../../domain/request-logs/index.js";
import { toStoreError } from "./connection/errors.js";
import { execute, type Queryable, query } from "./sql.js";

// The request logs in PostgreSQL (migration 1764650000037; docs/decisions/0058-request-logs.md):
// one partition per UTC day, made ahead and dropped whole. Making and dropping partitions is DDL
// that several server processes may run at once: each run holds one advisory lock for its
// statements (one implicit transaction: one simple query, no parameters; the day names are checked).
// A batch is written by `COPY … FROM STDIN` in the text format: measured against the multi-row
// INSERT it replaced, `json_to_recordset` and `unnest` of arrays, it costs half as much CPU per row,
// ours and PostgreSQL's together (record 0058, "Measured").

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

/**
 * A text value as COPY's text format reads it: NULL is `\N`; a backslash, tab, newline and carriage
 * return are escaped, every other character stands for itself. As with a parameter, the text goes
 * as UTF-8 (a lone surrogate becomes U+FFFD) and a NUL, which no text column holds, makes
 * PostgreSQL refuse the batch (lost and logged, as before; JSON bodies carry it escaped).
 */
function copyText(value: string | null): string {
  if (value === null) return "\\N";
  return copySpecial.test(value) ? value.replace(copySpecials, copyEscape) : value;
}
const copySpecial = /[\\\t\n\r]/;
const copySpecials = /[\\\t\n\r]/g;
const copyEscape = (c: string) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r");
const copyBoolean = (value: boolean) => (value ? "t" : "f");

/** The table's columns and each one's value as COPY's text format writes it, in the order the copy lists them. */
const columns: [string, (e: RequestLogRecord) => string][] = [
  ["id", (e) => copyText(e.id)],
  ["account_id", (e) => copyText(e.accountId)],
  ["livemode", (e) => copyBoolean(e.livemode)],
  ["key_id", (e) => copyText(e.keyId)],
  ["key_name", (e) => copyText(e.keyName)],
  ["key_prefix", (e) => copyText(e.keyPrefix)],
  ["method", (e) => copyText(e.method)],
  ["path", (e) => copyText(e.path)],
  ["route", (e) => copyText(e.route)],
  ["query", (e) => copyText(e.query)],
  ["status", (e) => String(e.status)],
  ["duration_ms", (e) => String(e.durationMs)],
  ["request_id", (e) => copyText(e.requestId)],
  ["request_body", (e) => copyText(e.requestBody)],
  ["request_body_truncated", (e) => copyBoolean(e.requestBodyTruncated)],
  ["response_body", (e) => copyText(e.responseBody)],
  ["response_body_truncated", (e) => copyBoolean(e.responseBodyTruncated)],
  ["created_at", (e) => copyText(e.createdAt)],
];
const copyStatement = `COPY request_logs (${columns.map(([name]) => name).join(", ")}) FROM STDIN`;

/** The entries as the lines of COPY's text format: one a line, tab between values. */
function copyLines(entries: readonly RequestLogRecord[]): string {
  let text = "";
  for (const entry of entries) {
    for (let i = 0; i < columns.length; i++) {
      text += (i === 0 ? "" : "\t") + (columns[i] as (typeof columns)[number])[1](entry);
    }
    text += "\n";
  }
  return text;
}

export function pgRequestLogs(pool: pg.Pool): RequestLogStore {
  const db: Queryable = pool;
  return {
    async appendMany(entries: readonly RequestLogRecord[]) {
      if (entries.length === 0) return 0;
      // One `COPY … FROM STDIN` on a connection of its own: no statement to parse and plan, no
      // parameters to bind (the multi-row INSERT had one per value, 3,600 for 200 entries), and the
      // bodies go as they are (JSON text rarely holds a backslash, never a raw tab or newline).
      const lines = copyLines(entries);
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw toStoreError(error);
      }
      // While checked out, a client has no listener of the pool's: a connection the server drops
      // meanwhile would be an unhandled 'error' event, which ends the process.
      let lost: Error | undefined;
      const onError = (error: Error) => {
        lost = error;
      };
      client.on("error", onError);
      let failed: Error | undefined;
      try {
        const copy = client.query(copyFrom(copyStatement));
        copy.end(lines);
        await finished(copy);
        return copy.rowCount;
      } catch (error) {
        // A copy that failed may leave its connection in any state: the pool drops it.
        failed = error instanceof Error ? error : new Error(String(error));
        throw toStoreError(error);
      } finally {
        client.removeListener("error", onError);
        client.release(failed ?? lost);
      }
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
