import type { DomainDeps } from "../deps.js";
import type { Account, EventRecord, Schemas } from "../core/model.js";
import { addSeconds, brasiliaDate, brasiliaDay } from "../core/time.js";
import type { UserRecord } from "../identity/index.js";
import type { NoticeRecord } from "../ports/notice-store.js";
import {
  type Mail,
  dailySummary,
  disputeOpened,
  newDevice,
  payerReceipt,
  paymentReceived,
  withdrawalEnded,
} from "./messages.js";
import { noticesOf } from "./model.js";
import { noticedEventTypes } from "../webhooks/index.js";

// The notices job (issue 37 §2): the outbox's notices, written in the transaction that caused them
// (an event of the outbox, a log-in from a new device) or by the daily pass (the summary), become
// one e-mail per recipient, each sent through the Mailer port after the request that caused it
// ended. A failed e-mail is tried again a minute later, at most `maxAttempts` times, then dropped;
// each failure is logged without the message's text. docs/decisions/0057-e-mail-notices.md.

/** How often an e-mail is tried before it is dropped. */
const maxNoticeAttempts = 5;
/** How long a claimed notice waits before it is tried again (another process's, or a failed one). */
const retrySeconds = 60;
/** A sent notice is kept this long (a daily summary is owed once), then deleted. */
const keptDays = 7;
/** At most so many payments listed per mode in a daily summary. */
const summaryListed = 100;

export function noticeUseCases(deps: DomainDeps) {
  const { store, clock, logger } = deps;
  const baseUrl = deps.config.publicBaseUrl.replace(/\/+$/, "");

  /** The account's members with a confirmed address, each with the notices it receives. */
  async function membersOf(accountId: string) {
    const [users, chosen] = await Promise.all([
      store.read.users.listByAccount(accountId),
      store.read.noticePreferences.listByAccount(accountId),
    ]);
    const byUser = new Map(chosen.map((p) => [p.userId, p]));
    return users
      .filter((u) => u.emailConfirmedAt !== null)
      .map((user) => ({ user, notices: noticesOf(user, byUser.get(user.id)) }));
  }

  /**
   * What one pass reads of an account for its events' notices (the account, its members), read
   * once per account and pass: a pass claims up to 50 notices, most of them about a few accounts
   * (100 withdrawals of ten accounts ending read each account and its members 100 times, three
   * statements a notice on PostgreSQL). A pass takes milliseconds; the next one reads anew.
   */
  type PassReads = Map<string, Promise<{ account: Account | null; members: Awaited<ReturnType<typeof membersOf>> }>>;
  const accountOf = (reads: PassReads, accountId: string) => {
    let read = reads.get(accountId);
    if (!read) {
      read = (async () => {
        const account = await store.read.accounts.get(accountId);
        return { account, members: account ? await membersOf(account.id) : [] };
      })();
      reads.set(accountId, read);
      // A failed read is this notice's failure, not the pass's: the next notice reads again.
      read.catch(() => reads.delete(accountId));
    }
    return read;
  };

  /**
   * The events a round's notices are about, read in one statement (one a notice was two statements
   * a withdrawal on PostgreSQL, with its sent mark): each notice's event, or null when it is gone.
   */
  type RoundEvents = Map<string, EventRecord | null>;
  async function eventsOf(notices: readonly NoticeRecord[]): Promise<RoundEvents> {
    const ids = notices.filter((n) => n.kind === "event").map((n) => n.subjectId);
    const found = ids.length === 0 ? [] : await store.read.events.getMany(ids);
    const byId: RoundEvents = new Map(ids.map((id) => [id, null]));
    for (const event of found) byId.set(event.id, event);
    return byId;
  }

  /** The e-mails an event's notice owes (its event from the round's reads, or read now). */
  async function mailsOfEvent(notice: NoticeRecord, reads: PassReads, events: RoundEvents): Promise<Mail[]> {
    const event = events.has(notice.subjectId)
      ? (events.get(notice.subjectId) ?? null)
      : await store.read.events.get(notice.subjectId);
    if (!event || !noticedEventTypes.has(event.type)) return [];
    const { account, members } = await accountOf(reads, event.accountId);
    if (!account) return [];
    const object = (event.payload as { data: { object: unknown } }).data.object;
    const to = (u: UserRecord) => u.email;
    if (event.type === "transaction.paid") {
      const t = object as Schemas["Transaction"];
      const mails: Mail[] = members
        .filter((m) => m.notices.payments === "each")
        .map((m) => ({ to: to(m.user), ...paymentReceived(baseUrl, account, t, m.user.name) }));
      if (t.paymentLinkId && t.customer.email) {
        const received = await store.read.receivedPix.getCreditedTo(t.id);
        mails.push({ to: t.customer.email, ...payerReceipt(account, t, received?.id ?? null) });
      }
      return mails;
    }
    if (event.type === "dispute.opened") {
      const t = object as Schemas["Transaction"];
      return members
        .filter((m) => m.notices.disputes)
        .map((m) => ({ to: to(m.user), ...disputeOpened(baseUrl, account, t, m.user.name) }));
    }
    const w = object as Schemas["Withdrawal"];
    return members
      .filter((m) => m.notices.withdrawals)
      .map((m) => ({ to: to(m.user), ...withdrawalEnded(baseUrl, account, event.type, w, m.user.name) }));
  }

  async function mailsOfLogin(notice: NoticeRecord): Promise<Mail[]> {
    const user = await store.read.users.get(notice.subjectId);
    if (!user || user.emailConfirmedAt === null) return [];
    const [account, chosen] = await Promise.all([
      store.read.accounts.get(user.accountId),
      store.read.noticePreferences.get(user.id),
    ]);
    if (!account || !noticesOf(user, chosen).newDevice) return [];
    const detail = {
      at: notice.detail.at ?? notice.createdAt,
      ip: notice.detail.ip ?? null,
      userAgent: notice.detail.userAgent ?? null,
    };
    return [{ to: user.email, ...newDevice(baseUrl, account, user.name, detail) }];
  }

  async function mailsOfDay(notice: NoticeRecord): Promise<Mail[]> {
    const user = await store.read.users.get(notice.subjectId);
    const date = notice.detail.date;
    if (!user || user.emailConfirmedAt === null || !date) return [];
    const [account, chosen] = await Promise.all([
      store.read.accounts.get(user.accountId),
      store.read.noticePreferences.get(user.id),
    ]);
    if (!account || noticesOf(user, chosen).payments !== "daily") return [];
    const day = brasiliaDay(new Date(`${date}T12:00:00.000-03:00`));
    const modes = [];
    for (const livemode of [true, false]) {
      const page = await store.read.events.listPage(
        { accountId: account.id, livemode },
        { limit: summaryListed },
        { type: "transaction.paid", createdFrom: day.start.toISOString(), createdTo: day.end.toISOString() },
      );
      const payments = page.items
        .map((e) => (e.payload as { data: { object: Schemas["Transaction"] } }).data.object)
        .reverse();
      modes.push({ livemode, payments, more: page.hasMore });
    }
    if (modes.every((m) => m.payments.length === 0)) return [];
    return [{ to: user.email, ...dailySummary(baseUrl, account, user.name, date, modes) }];
  }

  /** The e-mails a notice owes (an event's, a log-in's, a day's). */
  async function mailsOf(notice: NoticeRecord, reads: PassReads, events: RoundEvents): Promise<Mail[]> {
    return notice.kind === "event"
      ? mailsOfEvent(notice, reads, events)
      : notice.kind === "login"
        ? mailsOfLogin(notice)
        : mailsOfDay(notice);
  }

  /**
   * Writes what notices became: each one's e-mails, each an outbox notice of its own (sent and
   * retried alone), and the notices marked sent; all of a round's in one transaction of two
   * statements (one each was two statements a notice more on PostgreSQL, BEGIN and COMMIT, and then
   * one an e-mail and one a notice).
   */
  async function writeExpanded(expanded: { notice: NoticeRecord; mails: Mail[] }[], at: string): Promise<void> {
    const mails = expanded.flatMap(({ notice, mails }) =>
      mails.map((mail, i) => ({
        id: `${notice.id}_${i}`,
        kind: "mail" as const,
        accountId: notice.accountId,
        subjectId: notice.id,
        detail: { to: mail.to, subject: mail.subject, text: mail.text },
        dueAt: at,
        attempts: 0,
        sentAt: null,
        createdAt: at,
      })),
    );
    await store.transaction(async (tx) => {
      await tx.notices.insertManyIfAbsent(mails);
      await tx.notices.markSent(
        expanded.map(({ notice }) => notice.id),
        at,
      );
    });
  }

  async function deliver(notice: NoticeRecord, at: string): Promise<void> {
    const { to, subject, text } = notice.detail;
    if (!to || !subject || !text) return store.transaction((tx) => tx.notices.remove(notice.id));
    await deps.mailer.send({ to, subject, text });
    await store.transaction((tx) => tx.notices.markSent([notice.id], at));
  }

  return {
    /**
     * One pass: claims the notices due, turns each into its e-mails and sends them, until none is
     * due (at most `rounds` claims of `limit`). A failure is logged and left for its retry, or
     * dropped after `maxNoticeAttempts`: it never reaches the request that caused the notice.
     */
    async sendDue(options: { limit?: number; rounds?: number } = {}): Promise<{ sent: number; failed: number }> {
      const limit = options.limit ?? 50;
      let sent = 0;
      let failed = 0;
      const reads: PassReads = new Map();
      for (let round = 0; round < (options.rounds ?? 10); round++) {
        const at = clock.now().toISOString();
        const claimed = await store.transaction((tx) => tx.notices.claimDue(at, addSeconds(at, retrySeconds), limit));
        const notSent = async (notice: NoticeRecord, error: unknown) => {
          failed += 1;
          const dropped = notice.attempts >= maxNoticeAttempts;
          logger.warn(
            { noticeId: notice.id, kind: notice.kind, attempts: notice.attempts, error: (error as Error).message },
            dropped ? "e-mail notice dropped after its attempts" : "e-mail notice not sent; tried again later",
          );
          if (dropped) await store.transaction((tx) => tx.notices.remove(notice.id)).catch(() => undefined);
        };
        /** The round's notices turned into e-mails, written together after the round. */
        const expanded: { notice: NoticeRecord; mails: Mail[] }[] = [];
        // A failed read of the round's events is each notice's failure: each reads its own then.
        const events = await eventsOf(claimed).catch((): RoundEvents => new Map());
        for (const notice of claimed) {
          try {
            if (notice.kind === "mail") {
              await deliver(notice, at);
              sent += 1;
            } else {
              expanded.push({ notice, mails: await mailsOf(notice, reads, events) });
            }
          } catch (error) {
            await notSent(notice, error);
          }
        }
        if (expanded.length > 0) {
          try {
            await writeExpanded(expanded, at);
          } catch {
            // One notice the store refuses must not hold back the others: each is written alone.
            for (const one of expanded) {
              try {
                await writeExpanded([one], at);
              } catch (error) {
                await notSent(one.notice, error);
              }
            }
          }
        }
        // Another round while the claim was full or made e-mails of notices (due at once).
        if (claimed.length < limit && claimed.every((n) => n.kind === "mail")) break;
      }
      return { sent, failed };
    },

    /**
     * Queues the summary of the Brasília day before today for every member who chose it (once per
     * member and day, whichever process or tick queues it), and forgets the notices sent over a
     * week ago. How many summaries were queued.
     */
    async queueDailySummaries(): Promise<number> {
      const now = clock.now();
      const yesterday = brasiliaDate(new Date(brasiliaDay(now).start.getTime() - 1));
      const at = now.toISOString();
      let queued = 0;
      let after: string | null = null;
      for (;;) {
        const page = await store.read.noticePreferences.listDaily(after, 200);
        if (page.length === 0) break;
        await store.transaction(async (tx) => {
          for (const p of page) {
            const added = await tx.notices.insertIfAbsent({
              id: `ntc_day_${p.userId}_${yesterday}`,
              kind: "daily",
              accountId: p.accountId,
              subjectId: p.userId,
              detail: { date: yesterday },
              dueAt: at,
              attempts: 0,
              sentAt: null,
              createdAt: at,
            });
            if (added) queued += 1;
          }
        });
        after = page.at(-1)!.userId;
      }
      await store.transaction((tx) => tx.notices.purgeSentBefore(addSeconds(at, -keptDays * 86_400)));
      return queued;
    },
  };
}
