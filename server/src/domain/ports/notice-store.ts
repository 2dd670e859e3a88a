// The part of the Store port that keeps the e-mail notices (issue 37 §2): each member's choice of
// notices, and the notices owed (an outbox written in the transaction that caused them, sent by the
// notices job after it commits). Both adapters implement it (`store/memory/notices.ts`,
// `store/postgres/notices.ts`). docs/decisions/0057-e-mail-notices.md.

/** How a member hears of payments received. */
export type PaymentNoticeChoice = "each" | "daily" | "off";

/** A member's (a user's) own choice of notices; a member without one has its role's defaults. */
export interface NoticePreferencesRecord {
  userId: string;
  accountId: string;
  payments: PaymentNoticeChoice;
  withdrawals: boolean;
  disputes: boolean;
  newDevice: boolean;
  updatedAt: string;
}

/**
 * A notice owed: `event` (an event of the outbox, `subjectId` its `evt_…`), `login` (a log-in from
 * a new device, `subjectId` the user, `detail` the session's device and address), `daily` (the
 * daily summary of payments, `subjectId` the user, `detail.date` the Brasília date it covers),
 * `mail` (one e-mail the others became, `detail` its `to`, `subject` and `text`, sent and retried
 * alone). Kept after it is sent (`sentAt`) for a week, so a daily summary is owed once.
 */
export interface NoticeRecord {
  id: string;
  kind: "event" | "login" | "daily" | "mail";
  accountId: string;
  subjectId: string;
  detail: Record<string, string | null>;
  /** When it is next tried: at once when queued, later after a failed attempt (or while claimed). */
  dueAt: string;
  attempts: number;
  sentAt: string | null;
  createdAt: string;
}

export interface NoticeReads {
  noticePreferences: {
    get(userId: string): Promise<NoticePreferencesRecord | null>;
    /** The choices made by members of the account. */
    listByAccount(accountId: string): Promise<NoticePreferencesRecord[]>;
    /** Members who chose the daily summary, by user id after `afterUserId`, at most `limit`. */
    listDaily(afterUserId: string | null, limit: number): Promise<NoticePreferencesRecord[]>;
  };
  notices: {
    get(id: string): Promise<NoticeRecord | null>;
  };
}

export interface NoticeWrites {
  noticePreferences: NoticeReads["noticePreferences"] & {
    /** Inserts or replaces the member's choice. */
    put(record: NoticePreferencesRecord): Promise<void>;
  };
  notices: NoticeReads["notices"] & {
    /** Queues a notice unless one with its id exists (sent or not): whether it was queued. */
    insertIfAbsent(notice: NoticeRecord): Promise<boolean>;
    /** Queues each notice whose id is not kept yet, in one statement (a page of received Pix). */
    insertManyIfAbsent(notices: readonly NoticeRecord[]): Promise<void>;
    /**
     * Claims up to `limit` notices not sent and due at `now`: each is due again at `retryAt` (so
     * another process does not take it meanwhile, and a failed one is retried then) with one more
     * attempt counted.
     */
    claimDue(now: string, retryAt: string, limit: number): Promise<NoticeRecord[]>;
    /** Marks these notices sent at `at` (a round's, in one statement). */
    markSent(ids: readonly string[], at: string): Promise<void>;
    /** Drops a notice (given up after its attempts). */
    remove(id: string): Promise<void>;
    /** Deletes the notices sent before `before`: how many. */
    purgeSentBefore(before: string): Promise<number>;
  };
}
