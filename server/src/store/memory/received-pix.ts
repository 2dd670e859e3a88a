import type {
  BankTaskRecord,
  ReceivedPixReads,
  ReceivedPixRecord,
  ReceivedPixWrites,
} from "../../domain/ports/received-pix-store.js";
import { Table } from "./table.js";
import { pageOf } from "./page.js";

/** The memory store's received Pix and bank tasks (the `ReceivedPixReads`/`ReceivedPixWrites` port). */
export class ReceivedPixTables {
  private readonly received: Table<ReceivedPixRecord>;
  private readonly tasks: Table<BankTaskRecord>;

  constructor(private readonly journal: () => Array<() => void> | null) {
    this.received = new Table<ReceivedPixRecord>(journal);
    this.tasks = new Table<BankTaskRecord>(journal);
  }

  reads(): ReceivedPixReads {
    return {
      receivedPix: {
        get: async (id) => this.received.get(id),
        getMany: async (ids) => ids.flatMap((id) => this.received.get(id) ?? []),
        getCreditedTo: async (transactionId) =>
          this.received.all().find((r) => r.outcome === "CREDITED" && r.transactionId === transactionId) ?? null,
        listUnmatched: async (page) =>
          pageOf(
            this.received.all().filter((r) => r.outcome === "UNMATCHED"),
            page,
          ),
      },
      bankTasks: { get: async (id) => this.tasks.get(id) },
    };
  }

  writes(): ReceivedPixWrites {
    const r = this.reads();
    return {
      receivedPix: {
        ...r.receivedPix,
        insertIfAbsent: async (record) => {
          if (this.received.get(record.id)) return false;
          this.received.insert(record);
          return true;
        },
        insertManyIfAbsent: async (records) => {
          const inserted = new Set<string>();
          for (const record of records) {
            if (this.received.get(record.id)) continue;
            this.received.insert(record);
            inserted.add(record.id);
          }
          return inserted;
        },
        updateReturn: async (record, expected) => {
          const kept = this.received.get(record.id);
          if (!kept || kept.outcome !== "UNMATCHED") return false;
          if (kept.returnAttempts !== expected.returnAttempts || kept.returnStatus !== expected.returnStatus)
            return false;
          this.received.update({
            ...kept,
            returnStatus: record.returnStatus,
            returnId: record.returnId,
            returnAttempts: record.returnAttempts,
            returnedAt: record.returnedAt,
            returnFailureReason: record.returnFailureReason,
          });
          return true;
        },
      },
      bankTasks: {
        ...r.bankTasks,
        put: async (task) => {
          if (this.tasks.get(task.id)) this.tasks.update(task);
          else this.tasks.insert(task);
        },
        delete: async (id) => {
          const task = this.tasks.get(id);
          if (!task) return;
          this.tasks.rows.delete(id);
          this.journal()?.push(() => this.tasks.rows.set(id, task));
        },
        claimDue: async (now, lockUntil, limit) => {
          const due = this.tasks
            .all()
            .filter((t) => t.dueAt <= now)
            .sort((a, b) => (a.dueAt === b.dueAt ? (a.id < b.id ? -1 : 1) : a.dueAt < b.dueAt ? -1 : 1))
            .slice(0, limit);
          for (const t of due) this.tasks.update({ ...t, dueAt: lockUntil });
          return due.map((t) => ({ ...t, dueAt: lockUntil }));
        },
      },
    };
  }
}
