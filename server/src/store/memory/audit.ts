import type { AuditEntryRecord } from "../../domain/audit/model.js";
import type { AuditReads, AuditWrites } from "../../domain/ports/audit-store.js";
import { Table } from "./table.js";
import { pageOf } from "./page.js";

/** The memory store's audit log (the `AuditReads`/`AuditWrites` port): rows are appended, never replaced. */
export class AuditTable {
  private readonly entries: Table<AuditEntryRecord>;

  constructor(journal: () => Array<() => void> | null) {
    this.entries = new Table<AuditEntryRecord>(journal);
  }

  reads(): AuditReads {
    return {
      auditLog: {
        listPage: async (accountId, page, filter = {}) =>
          pageOf(
            this.entries.all().filter((e) => e.accountId === accountId),
            page,
            (e) =>
              (filter.action === undefined || e.action === filter.action) &&
              (filter.createdFrom === undefined || e.createdAt >= filter.createdFrom) &&
              (filter.createdTo === undefined || e.createdAt < filter.createdTo),
          ),
      },
    };
  }

  writes(): AuditWrites {
    return { auditLog: { ...this.reads().auditLog, append: async (entry) => this.entries.insert(entry) } };
  }
}
