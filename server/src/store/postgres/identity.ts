import type {
  AccountSecurityRecord,
  EmailTokenRecord,
  InvitationRecord,
  SessionRecord,
  StepUpFailuresRecord,
  UserRecord,
  VerificationRequestRecord,
} from "../../domain/identity/model.js";
import type { IdentityReads, IdentityWrites } from "../../domain/ports/identity-store.js";
import type { TableDef } from "./rows.js";
import { execute, type Queryable, query } from "./sql.js";
import { insertRow, pageQuery, selectMany, selectOne, updateRow } from "./statements.js";

// The dashboard's people (issue 25; migrations 1764300000000-1, 1764560000000): users, sessions, e-mail tokens,
// accounts' security rules.

export const usersTable: TableDef<UserRecord> = {
  name: "users",
  columns: [
    ["id", (u) => u.id],
    ["account_id", (u) => u.accountId],
    ["email", (u) => u.email],
    ["name", (u) => u.name],
    ["role", (u) => u.role],
    ["password_hash", (u) => u.passwordHash],
    ["email_confirmed_at", (u) => u.emailConfirmedAt],
    ["totp_secret", (u) => u.totpSecret],
    ["totp_pending_secret", (u) => u.totpPendingSecret],
    ["totp_enabled_at", (u) => u.totpEnabledAt],
    ["totp_last_step", (u) => u.totpLastStep],
    ["recovery_code_digests", (u) => u.recoveryCodeDigests],
    ["created_at", (u) => u.createdAt],
    ["updated_at", (u) => u.updatedAt],
  ],
};

export const sessionsTable: TableDef<SessionRecord> = {
  name: "dashboard_sessions",
  columns: [
    ["id", (s) => s.id],
    ["token_digest", (s) => s.tokenDigest],
    ["user_id", (s) => s.userId],
    ["account_id", (s) => s.accountId],
    ["ip", (s) => s.ip],
    ["user_agent", (s) => s.userAgent],
    ["created_at", (s) => s.createdAt],
    ["last_seen_at", (s) => s.lastSeenAt],
    ["expires_at", (s) => s.expiresAt],
    ["ended_at", (s) => s.endedAt],
    ["stepped_up_at", (s) => s.steppedUpAt],
  ],
};

export const emailTokensTable: TableDef<EmailTokenRecord> = {
  name: "email_tokens",
  columns: [
    ["id", (t) => t.id],
    ["user_id", (t) => t.userId],
    ["purpose", (t) => t.purpose],
    ["expires_at", (t) => t.expiresAt],
    ["used_at", (t) => t.usedAt],
    ["created_at", (t) => t.createdAt],
  ],
};

export const accountSecurityTable: TableDef<AccountSecurityRecord> = {
  name: "account_security",
  columns: [
    ["id", (a) => a.id],
    ["require_two_factor", (a) => a.requireTwoFactor],
    ["updated_at", (a) => a.updatedAt],
  ],
};

export const stepUpFailuresTable: TableDef<StepUpFailuresRecord> = {
  name: "step_up_failures",
  columns: [
    ["id", (f) => f.id],
    ["failures", (f) => f.failures],
    ["window_started_at", (f) => f.windowStartedAt],
    ["locked_until", (f) => f.lockedUntil],
    ["updated_at", (f) => f.updatedAt],
  ],
};

export const invitationsTable: TableDef<InvitationRecord> = {
  name: "invitations",
  columns: [
    ["id", (i) => i.id],
    ["account_id", (i) => i.accountId],
    ["email", (i) => i.email],
    ["role", (i) => i.role],
    ["token_digest", (i) => i.tokenDigest],
    ["invited_by", (i) => i.invitedBy],
    ["created_at", (i) => i.createdAt],
    ["expires_at", (i) => i.expiresAt],
    ["accepted_at", (i) => i.acceptedAt],
    ["revoked_at", (i) => i.revokedAt],
  ],
};

export const verificationRequestsTable: TableDef<VerificationRequestRecord> = {
  name: "verification_requests",
  columns: [
    ["id", (v) => v.id],
    ["version", (v) => v.version],
    ["legal_name", (v) => v.legalName],
    ["document_type", (v) => v.documentType],
    ["document", (v) => v.document],
    ["status", (v) => v.status],
    ["requested_by_user_id", (v) => v.requestedByUserId],
    ["requested_by_email", (v) => v.requestedByEmail],
    ["created_at", (v) => v.createdAt],
    ["decided_at", (v) => v.decidedAt],
    ["rejection_reason", (v) => v.rejectionReason],
    ["updated_at", (v) => v.updatedAt],
  ],
};

export function identityReads(db: Queryable): IdentityReads {
  return {
    users: {
      get: (id) => selectOne(db, usersTable, "id = $1", [id]),
      getByEmail: (email) => selectOne(db, usersTable, "email = $1", [email]),
      listByAccount: (accountId) => selectMany(db, usersTable, "account_id = $1", [accountId], "created_at, id"),
      listWithTotpSecret: (afterId, limit) =>
        selectMany(
          db,
          usersTable,
          '(totp_secret IS NOT NULL OR totp_pending_secret IS NOT NULL) AND ($1::text IS NULL OR id COLLATE "C" > $1)',
          [afterId, limit],
          'id COLLATE "C" LIMIT $2',
        ),
    },
    sessions: {
      get: (id) => selectOne(db, sessionsTable, "id = $1", [id]),
      getByTokenDigest: (digest) => selectOne(db, sessionsTable, "token_digest = $1", [digest]),
      listOpenByUser: (userId) =>
        selectMany(db, sessionsTable, "user_id = $1 AND ended_at IS NULL", [userId], "created_at DESC, id DESC"),
      anyOfUserFromIp: async (userId, ip) =>
        (await query(db, "SELECT 1 FROM dashboard_sessions WHERE user_id = $1 AND ip = $2 LIMIT 1", [userId, ip]))
          .length > 0,
      seenFrom: async (userId, userAgent) => {
        const [row] = await query(
          db,
          `SELECT EXISTS (SELECT 1 FROM dashboard_sessions WHERE user_id = $1) AS "anySession",
                  EXISTS (SELECT 1 FROM dashboard_sessions WHERE user_id = $1 AND user_agent = $2) AS "sameUserAgent"`,
          [userId, userAgent],
        );
        return { anySession: row?.anySession === true, sameUserAgent: row?.sameUserAgent === true };
      },
      pageLastingOfUser: (userId, at, page) =>
        pageQuery(
          db,
          sessionsTable,
          {
            scope: "user_id = $1",
            values: [userId],
            filters: (values) => {
              values.push(at.now, at.idleSince);
              return ` AND ended_at IS NULL AND expires_at > $${values.length - 1} AND last_seen_at > $${values.length}`;
            },
          },
          page,
          { selective: false },
        ),
    },
    emailTokens: {
      get: (digest) => selectOne(db, emailTokensTable, "id = $1", [digest]),
      countSentSince: async (userId, purpose, since) => {
        const [row] = await query<{ count: number }>(
          db,
          `SELECT count(*)::int AS count FROM email_tokens WHERE user_id = $1 AND purpose = $2 AND created_at > $3`,
          [userId, purpose, since],
        );
        return row?.count ?? 0;
      },
    },
    accountSecurity: { get: (accountId) => selectOne(db, accountSecurityTable, "id = $1", [accountId]) },
    stepUpFailures: { get: (userId) => selectOne(db, stepUpFailuresTable, "id = $1", [userId]) },
    invitations: {
      get: (id) => selectOne(db, invitationsTable, "id = $1", [id]),
      getByTokenDigest: (digest) => selectOne(db, invitationsTable, "token_digest = $1", [digest]),
      listPending: (accountId, now) =>
        selectMany(
          db,
          invitationsTable,
          "account_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2",
          [accountId, now],
          'created_at DESC, id COLLATE "C" DESC',
        ),
    },
    verificationRequests: {
      get: (accountId) => selectOne(db, verificationRequestsTable, "id = $1", [accountId]),
      list: (filter, page) =>
        pageQuery(
          db,
          verificationRequestsTable,
          {
            scope: "TRUE",
            values: [],
            filters: (values) => {
              if (filter.status === undefined) return "";
              values.push(filter.status);
              return ` AND status = $${values.length}`;
            },
          },
          page,
        ),
    },
  };
}

export function identityWrites(client: Queryable): IdentityWrites {
  const r = identityReads(client);
  return {
    users: {
      ...r.users,
      insert: (user) => insertRow(client, usersTable, user),
      update: (user) => updateRow(client, usersTable, user),
      remove: async (id) => {
        await execute(client, "DELETE FROM dashboard_sessions WHERE user_id = $1", [id]);
        await execute(client, "DELETE FROM email_tokens WHERE user_id = $1", [id]);
        await execute(client, "DELETE FROM users WHERE id = $1", [id]);
      },
    },
    sessions: {
      ...r.sessions,
      insert: (session) => insertRow(client, sessionsTable, session),
      update: (session) => updateRow(client, sessionsTable, session),
      endAllOfUser: (userId, at, exceptId) =>
        execute(
          client,
          `UPDATE dashboard_sessions SET ended_at = $2
             WHERE user_id = $1 AND ended_at IS NULL AND ($3::text IS NULL OR id <> $3)`,
          [userId, at, exceptId],
        ),
      purgeExpiredBefore: (before) => execute(client, "DELETE FROM dashboard_sessions WHERE expires_at < $1", [before]),
    },
    emailTokens: {
      ...r.emailTokens,
      insert: (token) => insertRow(client, emailTokensTable, token),
      update: (token) => updateRow(client, emailTokensTable, token),
      retireAllOfUser: (userId, purpose, at) =>
        execute(
          client,
          "UPDATE email_tokens SET used_at = $3 WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL",
          [userId, purpose, at],
        ),
      purgeExpiredBefore: (before) => execute(client, "DELETE FROM email_tokens WHERE expires_at < $1", [before]),
    },
    accountSecurity: {
      ...r.accountSecurity,
      insert: (rules) => insertRow(client, accountSecurityTable, rules),
      update: (rules) => updateRow(client, accountSecurityTable, rules),
    },
    stepUpFailures: {
      ...r.stepUpFailures,
      insert: (failures) => insertRow(client, stepUpFailuresTable, failures),
      update: (failures) => updateRow(client, stepUpFailuresTable, failures),
    },
    invitations: {
      ...r.invitations,
      insert: (invitation) => insertRow(client, invitationsTable, invitation),
      update: (invitation) => updateRow(client, invitationsTable, invitation),
    },
    verificationRequests: {
      ...r.verificationRequests,
      insert: (request) => insertRow(client, verificationRequestsTable, request),
      update: (request) => updateRow(client, verificationRequestsTable, request),
    },
  };
}
