import type {
  NoticePreferencesRecord,
  NoticeReads,
  NoticeRecord,
  NoticeWrites,
} from "../../domain/ports/notice-store.js";
import { Table } from "./table.js";

type PreferencesRow = NoticePreferencesRecord & { id: string };

/** The memory store's e-mail notices (the `NoticeReads`/`NoticeWrites` port). */
export class NoticeTables {
  private readonly preferences: Table<PreferencesRow>;
  private readonly outbox: Table<NoticeRecord>;

  constructor(journal: () => Array<() => void> | null) {
    this.preferences = new Table<PreferencesRow>(journal);
    this.outbox = new Table<NoticeRecord>(journal);
  }

  reads(): NoticeReads {
    const strip = ({ id: _id, ...record }: PreferencesRow): NoticePreferencesRecord => record;
    return {
      noticePreferences: {
        get: async (userId) => {
          const row = this.preferences.get(userId);
          return row ? strip(row) : null;
        },
        listByAccount: async (accountId) =>
          this.preferences
            .all()
            .filter((p) => p.accountId === accountId)
            .map(strip),
        listDaily: async (afterUserId, limit) =>
          this.preferences
            .all()
            .filter((p) => p.payments === "daily" && (afterUserId === null || p.userId > afterUserId))
            .sort((a, b) => (a.userId < b.userId ? -1 : 1))
            .slice(0, limit)
            .map(strip),
      },
      notices: { get: async (id) => this.outbox.get(id) },
    };
  }

  writes(): NoticeWrites {
    const r = this.reads();
    return {
      noticePreferences: {
        ...r.noticePreferences,
        put: async (record) => {
          const row = { ...record, id: record.userId };
          if (this.preferences.get(row.id)) this.preferences.update(row);
          else this.preferences.insert(row);
        },
      },
      notices: {
        ...r.notices,
        insertIfAbsent: async (notice) => {
          if (this.outbox.get(notice.id)) return false;
          this.outbox.insert(notice);
          return true;
        },
        insertManyIfAbsent: async (notices) => {
          for (const notice of notices) if (!this.outbox.get(notice.id)) this.outbox.insert(notice);
        },
        claimDue: async (now, retryAt, limit) => {
          const due = this.outbox
            .all()
            .filter((n) => n.sentAt === null && n.dueAt <= now)
            .sort((a, b) => (a.dueAt === b.dueAt ? (a.id < b.id ? -1 : 1) : a.dueAt < b.dueAt ? -1 : 1))
            .slice(0, limit)
            .map((n) => ({ ...n, dueAt: retryAt, attempts: n.attempts + 1 }));
          for (const n of due) this.outbox.update(n);
          return due;
        },
        markSent: async (ids, at) => {
          for (const id of ids) {
            const n = this.outbox.get(id);
            if (n) this.outbox.update({ ...n, sentAt: at });
          }
        },
        remove: async (id) => this.outbox.delete(id),
        purgeSentBefore: async (before) => {
          const old = this.outbox.all().filter((n) => n.sentAt !== null && n.sentAt < before);
          for (const n of old) this.outbox.delete(n.id);
          return old.length;
        },
      },
    };
  }
}
