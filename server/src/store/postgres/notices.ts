import type {
  NoticePreferencesRecord,
  NoticeReads,
  NoticeRecord,
  NoticeWrites,
} from "../../domain/ports/notice-store.js";
import { selectList, type TableDef, toRecord } from "./rows.js";
import { execute, json, type Queryable, query } from "./sql.js";
import { selectMany, selectOne } from "./statements.js";

// E-mail notices (issue 37 §2; migration 1764640000057): the members' choices and the outbox.

export const noticePreferencesTable: TableDef<NoticePreferencesRecord> = {
  name: "notice_preferences",
  columns: [
    ["user_id", (p) => p.userId],
    ["account_id", (p) => p.accountId],
    ["payments", (p) => p.payments],
    ["withdrawals", (p) => p.withdrawals],
    ["disputes", (p) => p.disputes],
    ["new_device", (p) => p.newDevice],
    ["updated_at", (p) => p.updatedAt],
  ],
};

export const noticesTable: TableDef<NoticeRecord> = {
  name: "notices",
  columns: [
    ["id", (n) => n.id],
    ["kind", (n) => n.kind],
    ["account_id", (n) => n.accountId],
    ["subject_id", (n) => n.subjectId],
    ["detail", (n) => json(n.detail)],
    ["due_at", (n) => n.dueAt],
    ["attempts", (n) => n.attempts],
    ["sent_at", (n) => n.sentAt],
    ["created_at", (n) => n.createdAt],
  ],
};

export function noticeReads(db: Queryable): NoticeReads {
  return {
    noticePreferences: {
      get: (userId) => selectOne(db, noticePreferencesTable, "user_id = $1", [userId]),
      listByAccount: (accountId) =>
        selectMany(db, noticePreferencesTable, "account_id = $1", [accountId], 'user_id COLLATE "C"'),
      listDaily: async (afterUserId, limit) =>
        (
          await query(
            db,
            `SELECT ${selectList(noticePreferencesTable)} FROM notice_preferences
              WHERE payments = 'daily' AND ($1::text IS NULL OR user_id COLLATE "C" > $1::text COLLATE "C")
              ORDER BY user_id COLLATE "C" LIMIT $2`,
            [afterUserId, limit],
          )
        ).map((row) => toRecord(noticePreferencesTable, row)),
    },
    notices: {
      get: (id) => selectOne(db, noticesTable, "id = $1", [id]),
    },
  };
}

export function noticeWrites(client: Queryable): NoticeWrites {
  const reads = noticeReads(client);
  return {
    noticePreferences: {
      ...reads.noticePreferences,
      put: async (p) => {
        await execute(
          client,
          `INSERT INTO notice_preferences (user_id, account_id, payments, withdrawals, disputes, new_device, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (user_id) DO UPDATE SET payments = $3, withdrawals = $4, disputes = $5, new_device = $6, updated_at = $7`,
          [p.userId, p.accountId, p.payments, p.withdrawals, p.disputes, p.newDevice, p.updatedAt],
        );
      },
    },
    notices: {
      ...reads.notices,
      insertIfAbsent: async (notice) => {
        const columns = noticesTable.columns.map(([column]) => column);
        return (
          (await execute(
            client,
            `INSERT INTO notices (${columns.join(", ")}) VALUES (${columns.map((_c, i) => `$${i + 1}`).join(", ")})
             ON CONFLICT (id) DO NOTHING`,
            noticesTable.columns.map(([, value]) => value(notice)),
          )) === 1
        );
      },
      insertManyIfAbsent: async (notices) => {
        if (notices.length === 0) return;
        const columns = noticesTable.columns.map(([column]) => column);
        const rows = notices.map(
          (_n, row) => `(${columns.map((_c, i) => `$${row * columns.length + i + 1}`).join(", ")})`,
        );
        await execute(
          client,
          `INSERT INTO notices (${columns.join(", ")}) VALUES ${rows.join(", ")} ON CONFLICT (id) DO NOTHING`,
          notices.flatMap((notice) => noticesTable.columns.map(([, value]) => value(notice))),
        );
      },
      claimDue: async (now, retryAt, limit) => {
        const rows = await query(
          client,
          `UPDATE notices AS n SET due_at = $2::timestamptz, attempts = n.attempts + 1
           FROM (SELECT id FROM notices WHERE sent_at IS NULL AND due_at <= $1::timestamptz
                 ORDER BY due_at, id COLLATE "C" LIMIT $3 FOR UPDATE SKIP LOCKED) AS due
           WHERE n.id = due.id
           RETURNING ${selectList(noticesTable, "n.")}`,
          [now, retryAt, limit],
        );
        return rows.map((row) => toRecord(noticesTable, row)).sort((a, b) => (a.dueAt < b.dueAt ? -1 : 1));
      },
      markSent: async (ids, at) => {
        if (ids.length === 0) return;
        await execute(client, "UPDATE notices SET sent_at = $2 WHERE id = ANY($1::text[])", [ids, at]);
      },
      remove: async (id) => {
        await execute(client, "DELETE FROM notices WHERE id = $1", [id]);
      },
      purgeSentBefore: async (before) =>
        execute(client, "DELETE FROM notices WHERE sent_at IS NOT NULL AND sent_at < $1", [before]),
    },
  };
}
