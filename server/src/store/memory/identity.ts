import type {
  AccountSecurityRecord,
  EmailTokenRecord,
  InvitationRecord,
  SessionRecord,
  StepUpFailuresRecord,
  UserRecord,
  VerificationRequestRecord,
} from "../../domain/identity/model.js";
import { byId, pageOf } from "./page.js";
import type { IdentityReads, IdentityWrites } from "../../domain/ports/identity-store.js";
import { Table } from "./table.js";

const newestFirst = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;

/** The memory store's tables of the dashboard's people (the `IdentityReads`/`IdentityWrites` port). */
export class IdentityTables {
  private readonly users: Table<UserRecord>;
  private readonly sessions: Table<SessionRecord>;
  private readonly emailTokens: Table<EmailTokenRecord>;
  private readonly accountSecurity: Table<AccountSecurityRecord>;
  private readonly stepUpFailures: Table<StepUpFailuresRecord>;
  private readonly invitations: Table<InvitationRecord>;
  private readonly verificationRequests: Table<VerificationRequestRecord>;

  constructor(private readonly journal: () => Array<() => void> | null) {
    this.users = new Table<UserRecord>(journal);
    this.sessions = new Table<SessionRecord>(journal);
    this.emailTokens = new Table<EmailTokenRecord>(journal);
    this.accountSecurity = new Table<AccountSecurityRecord>(journal);
    this.stepUpFailures = new Table<StepUpFailuresRecord>(journal);
    this.invitations = new Table<InvitationRecord>(journal);
    this.verificationRequests = new Table<VerificationRequestRecord>(journal);
  }

  /** Deletes the rows of `table` that `doomed` picks, undone with the transaction; answers how many. */
  private deleteWhere<T extends { id: string }>(table: Table<T>, doomed: (row: T) => boolean): number {
    const rows = table.all().filter(doomed);
    for (const row of rows) {
      table.rows.delete(row.id);
      this.journal()?.push(() => table.rows.set(row.id, row));
    }
    return rows.length;
  }

  reads(): IdentityReads {
    return {
      users: {
        get: async (id) => this.users.get(id),
        getByEmail: async (email) => this.users.all().find((u) => u.email === email) ?? null,
        listByAccount: async (accountId) =>
          this.users
            .all()
            .filter((u) => u.accountId === accountId)
            .sort((a, b) => newestFirst(b, a)),
        listWithTotpSecret: async (afterId, limit) =>
          this.users
            .all()
            .filter(
              (u) => (u.totpSecret !== null || u.totpPendingSecret !== null) && (afterId === null || u.id > afterId),
            )
            .sort(byId)
            .slice(0, limit),
      },
      sessions: {
        get: async (id) => this.sessions.get(id),
        getByTokenDigest: async (digest) => this.sessions.all().find((s) => s.tokenDigest === digest) ?? null,
        listOpenByUser: async (userId) =>
          this.sessions
            .all()
            .filter((s) => s.userId === userId && s.endedAt === null)
            .sort(newestFirst),
        anyOfUserFromIp: async (userId, ip) => this.sessions.all().some((s) => s.userId === userId && s.ip === ip),
        seenFrom: async (userId, userAgent) => {
          const ofUser = this.sessions.all().filter((s) => s.userId === userId);
          return { anySession: ofUser.length > 0, sameUserAgent: ofUser.some((s) => s.userAgent === userAgent) };
        },
        pageLastingOfUser: async (userId, at, page) =>
          pageOf(
            this.sessions.all().filter((s) => s.userId === userId),
            page,
            (s) => s.endedAt === null && s.expiresAt > at.now && s.lastSeenAt > at.idleSince,
          ),
      },
      emailTokens: {
        get: async (digest) => this.emailTokens.get(digest),
        countSentSince: async (userId, purpose, since) =>
          this.emailTokens.all().filter((t) => t.userId === userId && t.purpose === purpose && t.createdAt > since)
            .length,
      },
      accountSecurity: { get: async (accountId) => this.accountSecurity.get(accountId) },
      stepUpFailures: { get: async (userId) => this.stepUpFailures.get(userId) },
      invitations: {
        get: async (id) => this.invitations.get(id),
        getByTokenDigest: async (digest) => this.invitations.all().find((i) => i.tokenDigest === digest) ?? null,
        listPending: async (accountId, now) =>
          this.invitations
            .all()
            .filter(
              (i) => i.accountId === accountId && i.acceptedAt === null && i.revokedAt === null && i.expiresAt > now,
            )
            .sort(newestFirst),
      },
      verificationRequests: {
        get: async (accountId) => this.verificationRequests.get(accountId),
        list: async (filter, page) =>
          pageOf(
            this.verificationRequests.all(),
            page,
            (r) => filter.status === undefined || r.status === filter.status,
          ),
      },
    };
  }

  writes(): IdentityWrites {
    const r = this.reads();
    return {
      users: {
        ...r.users,
        insert: async (user) => {
          if (await r.users.getByEmail(user.email)) throw new Error("duplicate user e-mail");
          this.users.insert(user);
        },
        update: async (user) => this.users.update(user),
        remove: async (id) => {
          this.deleteWhere(this.sessions, (s) => s.userId === id);
          this.deleteWhere(this.emailTokens, (t) => t.userId === id);
          this.deleteWhere(this.stepUpFailures, (f) => f.id === id);
          this.deleteWhere(this.users, (u) => u.id === id);
        },
      },
      sessions: {
        ...r.sessions,
        insert: async (session) => this.sessions.insert(session),
        update: async (session) => this.sessions.update(session),
        endAllOfUser: async (userId, at, exceptId) => {
          const open = (await r.sessions.listOpenByUser(userId)).filter((s) => s.id !== exceptId);
          for (const session of open) this.sessions.update({ ...session, endedAt: at });
          return open.length;
        },
        purgeExpiredBefore: async (before) => this.deleteWhere(this.sessions, (s) => s.expiresAt < before),
      },
      emailTokens: {
        ...r.emailTokens,
        insert: async (token) => this.emailTokens.insert(token),
        update: async (token) => this.emailTokens.update(token),
        retireAllOfUser: async (userId, purpose, at) => {
          const unused = this.emailTokens
            .all()
            .filter((t) => t.userId === userId && t.purpose === purpose && t.usedAt === null);
          for (const token of unused) this.emailTokens.update({ ...token, usedAt: at });
          return unused.length;
        },
        purgeExpiredBefore: async (before) => this.deleteWhere(this.emailTokens, (t) => t.expiresAt < before),
      },
      accountSecurity: {
        ...r.accountSecurity,
        insert: async (rules) => this.accountSecurity.insert(rules),
        update: async (rules) => this.accountSecurity.update(rules),
      },
      stepUpFailures: {
        ...r.stepUpFailures,
        insert: async (failures) => this.stepUpFailures.insert(failures),
        update: async (failures) => this.stepUpFailures.update(failures),
      },
      invitations: {
        ...r.invitations,
        insert: async (invitation) => this.invitations.insert(invitation),
        update: async (invitation) => this.invitations.update(invitation),
      },
      verificationRequests: {
        ...r.verificationRequests,
        insert: async (request) => this.verificationRequests.insert(request),
        update: async (request) => this.verificationRequests.update(request),
      },
    };
  }
}
