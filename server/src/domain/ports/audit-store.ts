import type { AuditAction, AuditEntryRecord } from "../audit/model.js";
import type { PageRequest, PageResult } from "../core/model.js";

// The part of the Store port that keeps the audit log (issue 25): append-only. There is no update
// and no delete here, on purpose; PostgreSQL also refuses them by a trigger (migration
// 1764500000000). Both adapters implement it (`store/memory-audit.ts`, `store/postgres/audit.ts`).

export interface AuditLogFilter {
  action?: AuditAction | undefined;
  /** Made at or after. */
  createdFrom?: string | undefined;
  /** Made before. */
  createdTo?: string | undefined;
}

export interface AuditReads {
  auditLog: {
    /** One page of an account's entries, newest first on (createdAt, id); the cursor is any entry of the account. */
    listPage(accountId: string, page: PageRequest, filter?: AuditLogFilter): Promise<PageResult<AuditEntryRecord>>;
  };
}

export interface AuditWrites {
  auditLog: AuditReads["auditLog"] & {
    append(entry: AuditEntryRecord): Promise<void>;
  };
}
