import type {
  AccountSecurityRecord,
  EmailTokenPurpose,
  EmailTokenRecord,
  InvitationRecord,
  SessionRecord,
  StepUpFailuresRecord,
  UserRecord,
  VerificationRequestRecord,
  VerificationStatus,
} from "../identity/model.js";
import type { PageRequest, PageResult } from "../core/model.js";

// The part of the Store port that keeps the dashboard's people (issue 25): both adapters implement
// it (`store/memory-identity.ts`, `store/postgres/identity.ts`).

export interface IdentityReads {
  users: {
    get(id: string): Promise<UserRecord | null>;
    /** By the lower-case e-mail address. */
    getByEmail(email: string): Promise<UserRecord | null>;
    /** The users of an account, oldest first. */
    listByAccount(accountId: string): Promise<UserRecord[]>;
    /**
     * Up to `limit` users of any account holding a TOTP secret (set or pending), by id after
     * `afterId` (null: from the first): sealing and re-wrapping them (core/secrets.ts).
     */
    listWithTotpSecret(afterId: string | null, limit: number): Promise<UserRecord[]>;
  };
  sessions: {
    get(id: string): Promise<SessionRecord | null>;
    getByTokenDigest(digest: string): Promise<SessionRecord | null>;
    /** The user's sessions not ended (expired ones included), newest first. */
    listOpenByUser(userId: string): Promise<SessionRecord[]>;
    /**
     * A page of the user's sessions that still last at `now`: not ended, not past `expiresAt`, and
     * seen after `idleSince`; newest first on (createdAt, id). The cursor is any session of the user.
     */
    pageLastingOfUser(
      userId: string,
      at: { now: string; idleSince: string },
      page: PageRequest,
    ): Promise<PageResult<SessionRecord>>;
    /** Whether any session of the user, ended or not, was opened from `ip`. */
    anyOfUserFromIp(userId: string, ip: string): Promise<boolean>;
    /**
     * Whether the user has any session (ended ones included), and any from this browser (its user
     * agent as kept): a log-in from a new device (issue 37 §2's notice).
     */
    seenFrom(userId: string, userAgent: string): Promise<{ anySession: boolean; sameUserAgent: boolean }>;
  };
  emailTokens: {
    get(digest: string): Promise<EmailTokenRecord | null>;
    /** How many tokens of `purpose` the user was sent after `since` (used ones included). */
    countSentSince(userId: string, purpose: EmailTokenPurpose, since: string): Promise<number>;
  };
  accountSecurity: {
    /** By the account's id; null: the defaults. */
    get(accountId: string): Promise<AccountSecurityRecord | null>;
  };
  stepUpFailures: {
    /** By the user's id; null: none. */
    get(userId: string): Promise<StepUpFailuresRecord | null>;
  };
  invitations: {
    get(id: string): Promise<InvitationRecord | null>;
    getByTokenDigest(digest: string): Promise<InvitationRecord | null>;
    /** The account's invitations neither accepted nor revoked, expiring after `now`, newest first. */
    listPending(accountId: string, now: string): Promise<InvitationRecord[]>;
  };
  verificationRequests: {
    /** By the account's id. */
    get(accountId: string): Promise<VerificationRequestRecord | null>;
    /** Every account's latest request, newest first on (createdAt, id); the cursor is any request. */
    list(
      filter: { status?: VerificationStatus | undefined },
      page: PageRequest,
    ): Promise<PageResult<VerificationRequestRecord>>;
  };
}

export interface IdentityWrites {
  users: IdentityReads["users"] & {
    insert(user: UserRecord): Promise<void>;
    update(user: UserRecord): Promise<void>;
    /**
     * Deletes the user with its sessions (which end at once: nothing finds them) and its e-mail
     * tokens. Nothing else refers to a user by key: records name it by id and e-mail as text.
     */
    remove(id: string): Promise<void>;
  };
  sessions: IdentityReads["sessions"] & {
    insert(session: SessionRecord): Promise<void>;
    update(session: SessionRecord): Promise<void>;
    /** Ends every open session of the user at `at`, but `exceptId`'s; answers how many. */
    endAllOfUser(userId: string, at: string, exceptId: string | null): Promise<number>;
    /** Deletes the sessions whose absolute expiry is before `before` (every session has ended by then); answers how many. */
    purgeExpiredBefore(before: string): Promise<number>;
  };
  emailTokens: IdentityReads["emailTokens"] & {
    insert(token: EmailTokenRecord): Promise<void>;
    update(token: EmailTokenRecord): Promise<void>;
    /** Marks every unused token of `purpose` of the user as used at `at`: no link of it works again; answers how many. */
    retireAllOfUser(userId: string, purpose: EmailTokenPurpose, at: string): Promise<number>;
    /** Deletes the tokens that expired before `before`, used or not; answers how many. */
    purgeExpiredBefore(before: string): Promise<number>;
  };
  accountSecurity: IdentityReads["accountSecurity"] & {
    insert(rules: AccountSecurityRecord): Promise<void>;
    update(rules: AccountSecurityRecord): Promise<void>;
  };
  stepUpFailures: IdentityReads["stepUpFailures"] & {
    insert(failures: StepUpFailuresRecord): Promise<void>;
    update(failures: StepUpFailuresRecord): Promise<void>;
  };
  invitations: IdentityReads["invitations"] & {
    insert(invitation: InvitationRecord): Promise<void>;
    update(invitation: InvitationRecord): Promise<void>;
  };
  verificationRequests: IdentityReads["verificationRequests"] & {
    insert(request: VerificationRequestRecord): Promise<void>;
    update(request: VerificationRequestRecord): Promise<void>;
  };
}
