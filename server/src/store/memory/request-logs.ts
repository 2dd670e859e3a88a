import type { PageRequest, PageResult, Scope } from "../../domain/core/model.js";
import type { RequestLogStore } from "../../domain/ports/request-log-store.js";
import {
  type RequestLogFilter,
  type RequestLogRecord,
  type RequestLogSummaryRecord,
  summaryOf,
} from "../../domain/request-logs/index.js";
import { pageOf } from "./page.js";

/**
 * The characters of bodies one day keeps at most (the memory store is for development and tests,
 * in one process's heap): past it, that day's later requests are not kept (counted as dropped).
 */
const dayBudget = 16 * 1024 * 1024;

const sizeOf = (e: RequestLogRecord) => (e.requestBody?.length ?? 0) + (e.responseBody?.length ?? 0) + 256;

/** The memory store's request logs: a map of UTC days to their entries, each day dropped whole. */
export class MemoryRequestLogs implements RequestLogStore {
  private readonly days = new Map<string, { entries: RequestLogRecord[]; size: number }>();

  async appendMany(entries: readonly RequestLogRecord[]): Promise<number> {
    let kept = 0;
    for (const entry of entries) {
      const name = entry.createdAt.slice(0, 10);
      let day = this.days.get(name);
      if (!day) {
        day = { entries: [], size: 0 };
        this.days.set(name, day);
      }
      const size = sizeOf(entry);
      if (day.size + size > dayBudget) continue;
      day.entries.push(entry);
      day.size += size;
      kept++;
    }
    return kept;
  }

  async prepareDays(): Promise<void> {}

  async dropDaysBefore(day: string): Promise<string[]> {
    const gone = [...this.days.keys()].filter((name) => name < day).sort();
    for (const name of gone) this.days.delete(name);
    return gone;
  }

  private inScope(scope: Scope, since: string): RequestLogRecord[] {
    const out: RequestLogRecord[] = [];
    for (const [name, day] of this.days) {
      if (name < since.slice(0, 10)) continue;
      for (const e of day.entries) {
        if (e.accountId === scope.accountId && e.livemode === scope.livemode && e.createdAt >= since) out.push(e);
      }
    }
    return out;
  }

  async listPage(
    scope: Scope,
    page: PageRequest,
    filter: RequestLogFilter,
  ): Promise<PageResult<RequestLogSummaryRecord>> {
    const result = pageOf(
      this.inScope(scope, filter.since),
      page,
      (e) =>
        (filter.status === undefined || (e.status >= filter.status.from && e.status < filter.status.to)) &&
        (filter.pathContains === undefined || e.path.includes(filter.pathContains)) &&
        (filter.keyId === undefined || e.keyId === filter.keyId),
    );
    return { items: result.items.map(summaryOf), hasMore: result.hasMore };
  }

  async get(scope: Scope, id: string, since: string): Promise<RequestLogRecord | null> {
    return this.inScope(scope, since).find((e) => e.id === id) ?? null;
  }
}
