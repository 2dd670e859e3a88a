import type { PageRequest, PageResult, Scope } from "../core/model.js";
import type { RequestLogFilter, RequestLogRecord, RequestLogSummaryRecord } from "../request-logs/model.js";

// The part of the Store port that keeps the request logs (issue 37 §2): written in batches outside
// any transaction, kept by UTC day and dropped a whole day at a time (PostgreSQL: a partition per
// day, `DROP TABLE`; memory: a map of days). Both adapters implement it
// (`store/memory/request-logs.ts`, `store/postgres/request-logs.ts`).
// docs/decisions/0058-request-logs.md.

export interface RequestLogStore {
  /**
   * Keeps the entries, in one statement where the store has statements. Their days must be ready
   * (`prepareDays`). The memory store may refuse a day's entries past its budget: how many it kept.
   */
  appendMany(entries: readonly RequestLogRecord[]): Promise<number>;
  /** Makes the days (UTC, `YYYY-MM-DD`) ready to take entries: PostgreSQL's partitions; idempotent. */
  prepareDays(days: readonly string[]): Promise<void>;
  /** Drops every day before `day` whole: the days dropped. */
  dropDaysBefore(day: string): Promise<string[]>;
  /** One page of the scope's entries, newest first on (createdAt, id); the cursor is any entry of the scope. */
  listPage(scope: Scope, page: PageRequest, filter: RequestLogFilter): Promise<PageResult<RequestLogSummaryRecord>>;
  /** One entry of the scope made at or after `since`, or null. */
  get(scope: Scope, id: string, since: string): Promise<RequestLogRecord | null>;
}
