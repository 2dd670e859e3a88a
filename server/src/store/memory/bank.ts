import type { BankConnectionChangeRecord, BankConnectionRecord, BankHealthRecord } from "../../domain/bank/model.js";
import type { BankReads, BankWrites } from "../../domain/ports/bank-store.js";
import { Table } from "./table.js";

const emptyHealth: BankHealthRecord = {
  id: "bank",
  lastSuccessAt: null,
  tokenExpiresAt: null,
  webhookRegisteredAt: null,
  lastReconciliationAt: null,
  lastError: null,
};

/** The memory store's bank connection, its health and its change log (the `BankReads`/`BankWrites` port). */
export class BankTables {
  private readonly connection: Table<BankConnectionRecord>;
  private readonly health: Table<BankHealthRecord>;
  private readonly changes: Table<BankConnectionChangeRecord>;

  constructor(private readonly journal: () => Array<() => void> | null) {
    this.connection = new Table<BankConnectionRecord>(journal);
    this.health = new Table<BankHealthRecord>(journal);
    this.changes = new Table<BankConnectionChangeRecord>(journal);
  }

  /** Deletes the row `id` of `table`, undone with the transaction. */
  private delete<T extends { id: string }>(table: Table<T>, id: string): void {
    const row = table.get(id);
    if (!row) return;
    table.rows.delete(id);
    this.journal()?.push(() => table.rows.set(id, row));
  }

  reads(): BankReads {
    return {
      bankConnection: { get: async () => this.connection.get("bank") },
      bankHealth: { get: async () => this.health.get("bank") },
      bankConnectionChanges: {
        listRecent: async (limit) =>
          this.changes
            .all()
            .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
            .slice(0, limit),
      },
    };
  }

  writes(): BankWrites {
    const r = this.reads();
    return {
      bankConnection: {
        ...r.bankConnection,
        insert: async (connection) => this.connection.insert(connection),
        update: async (connection) => this.connection.update(connection),
        remove: async () => {
          this.delete(this.connection, "bank");
          this.delete(this.health, "bank");
        },
      },
      bankHealth: {
        ...r.bankHealth,
        record: async (patch) => {
          const before = this.health.get("bank");
          if (before) this.health.update({ ...before, ...patch });
          else this.health.insert({ ...emptyHealth, ...patch });
        },
      },
      bankConnectionChanges: {
        ...r.bankConnectionChanges,
        append: async (change) => this.changes.insert(change),
      },
    };
  }
}
