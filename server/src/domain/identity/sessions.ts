import { createHash, createHmac, randomBytes } from "node:crypto";
import type { components } from "../../../../generated/dashboard-api.js";
import { recordAudit } from "../audit/index.js";
import type { DomainDeps } from "../deps.js";
import { addSeconds } from "../core/time.js";
import { DomainError, notFound } from "../core/errors.js";
import type { ClientInfo, DashboardActor, SessionRecord, UserRecord } from "./model.js";
import { newId } from "../core/ids.js";
import { sessionLifetime } from "../core/policy.js";
import type { Account, PageRequest } from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import { passwordMatches, prepareAbsentUserHash } from "./passwords.js";
import { reusedCodeMessage, spendSecondFactor, type SpentSecondFactor, stepUpSeconds } from "./second-factor.js";
import type { StoreTx } from "../ports/store.js";
import type { Keyring } from "../core/secrets.js";
import { presentUser } from "./model.js";

// Sessions of the dashboard (issue 25; OWASP ASVS V3): held by the store, found by the digest of
// the cookie's token, a new one at every log-in, ended by idle and absolute expiry, log-out, the
// user, or a password change. docs/decisions/0020-dashboard-sessions-and-csrf.md.

type Schemas = components["schemas"];

/** How long a session lasts: without a request, and at most (spec/dashboard/models.tsp, `Session`). */
export { sessionLifetime };

/** `lastSeenAt` is written again only when it is older than this: one write a minute, not one a request. */
const touchEverySeconds = 60;

/** A session just started: the cookie's token exists only in this value. */
export interface StartedSession extends DashboardActor {
  token: string;
}

const digest = (token: string) => createHash("sha256").update(token).digest("hex");
/**
 * A session's CSRF token: an HMAC of a fixed label under the cookie's token. The server computes
 * it from the cookie on each request; nothing stores it (ASVS: no secret at rest in clear), and
 * knowing it reveals nothing of the cookie.
 */
const csrfTokenOf = (token: string) => createHmac("sha256", token).update("pix-dashboard-csrf").digest("base64url");
const newToken = () => randomBytes(32).toString("base64url");

/** Lower case, no spaces around: how an e-mail address is kept and looked up. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** The idle expiry of a session: 30 minutes after its last request, never past its absolute expiry. */
function idleExpiry(session: SessionRecord): string {
  const idle = addSeconds(session.lastSeenAt, sessionLifetime.idleSeconds);
  return idle < session.expiresAt ? idle : session.expiresAt;
}

/** Starts a session of `user` inside `tx` (stepped up when the second factor was just shown); its token is returned once. */
export async function openSession(
  tx: StoreTx,
  user: UserRecord,
  account: Account,
  client: ClientInfo,
  now: string,
  steppedUp = false,
): Promise<StartedSession> {
  const token = newToken();
  const session: SessionRecord = {
    id: newId("ses"),
    tokenDigest: digest(token),
    userId: user.id,
    accountId: user.accountId,
    ip: client.ip ?? null,
    userAgent: client.userAgent?.slice(0, 200) ?? null,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: addSeconds(now, sessionLifetime.absoluteSeconds),
    endedAt: null,
    steppedUpAt: steppedUp ? now : null,
  };
  await tx.sessions.insert(session);
  const rules = await tx.accountSecurity.get(account.id);
  return {
    token,
    session,
    csrfToken: csrfTokenOf(token),
    user,
    account,
    requireTwoFactor: rules?.requireTwoFactor ?? false,
    client,
  };
}

/**
 * The second factor of a user who has one, spent inside `tx` (the user's row locked, so one code
 * cannot be taken twice at once): the user as stored afterwards, or why the code was refused.
 */
export async function takeSecondFactor(
  tx: StoreTx,
  userId: string,
  code: string,
  nowMs: number,
  secrets: Keyring,
): Promise<SpentSecondFactor> {
  await tx.lockScope({ accountId: `user:${userId}`, livemode: false });
  const user = await tx.users.get(userId);
  const spent = user ? spendSecondFactor(user, code, nowMs, secrets) : ({ refused: "wrong" } as const);
  if ("user" in spent) await tx.users.update(spent.user);
  return spent;
}

/** Until when the session allows dangerous operations, or null. */
function stepUpExpiry(session: SessionRecord, now: string): string | null {
  const until = session.steppedUpAt === null ? null : addSeconds(session.steppedUpAt, stepUpSeconds);
  return until !== null && until > now ? until : null;
}

/** Refuses a dangerous operation (`403 STEP_UP_REQUIRED`) without a step-up in the last 10 minutes. */
export function requireStepUp(actor: DashboardActor, now: string): void {
  if (actor.user.totpEnabledAt === null) {
    throw new DomainError(
      "STEP_UP_REQUIRED",
      "Esta operação exige a verificação em duas etapas: ative-a (POST /dashboard/v1/me/two-factor) e confirme com o código.",
    );
  }
  if (stepUpExpiry(actor.session, now) === null) {
    throw new DomainError(
      "STEP_UP_REQUIRED",
      "Confirme com o código do autenticador (POST /dashboard/v1/session/step-up) para continuar.",
    );
  }
}

export function sessionUseCases(deps: DomainDeps) {
  const { store, clock } = deps;
  const now = () => clock.now().toISOString();
  const { passwordHashCost } = deps.config;
  void prepareAbsentUserHash(passwordHashCost);
  const unauthorized = () => new DomainError("UNAUTHORIZED", "Sessão ausente, expirada ou encerrada. Entre novamente.");

  return {
    /**
     * Log-in: a new session for the user whose e-mail and password these are. An unknown address
     * and a wrong password answer alike (`INVALID_CREDENTIALS`), after the same argon2id work.
     */
    async logIn(
      input: { email: string; password: string; code?: string | undefined },
      client: ClientInfo,
    ): Promise<StartedSession> {
      const user = await store.read.users.getByEmail(normaliseEmail(input.email));
      const matches = await passwordMatches(user?.passwordHash ?? null, input.password, passwordHashCost);
      if (!user || !matches) throw new DomainError("INVALID_CREDENTIALS", "E-mail ou senha incorretos.");
      const secondFactor = user.totpEnabledAt !== null;
      if (secondFactor && input.code === undefined) {
        throw new DomainError(
          "TWO_FACTOR_REQUIRED",
          "Informe o código do autenticador (ou um código de recuperação) em code.",
        );
      }
      return store.transaction(async (tx) => {
        const at = clock.now();
        const spent = secondFactor
          ? await takeSecondFactor(tx, user.id, input.code ?? "", at.getTime(), deps.secrets)
          : { user };
        if ("refused" in spent) {
          const reused = spent.refused === "reused";
          throw new DomainError("INVALID_CREDENTIALS", reused ? reusedCodeMessage : "Código de verificação incorreto.");
        }
        const current = spent.user;
        const account = await tx.accounts.get(user.accountId);
        if (!account) throw new DomainError("INVALID_CREDENTIALS", "E-mail ou senha incorretos.");
        // A log-in from an address none of the user's sessions (ended ones included) came from.
        if (client.ip !== undefined && !(await tx.sessions.anyOfUserFromIp(user.id, client.ip))) {
          await recordAudit(tx, {
            accountId: account.id,
            by: { actor: { type: "user", userId: user.id, email: user.email }, ip: client.ip },
            action: "user.logged_in_from_new_ip",
            target: { type: "user", id: user.id },
            at: at.toISOString(),
          });
        }
        // A log-in from a browser none of the user's sessions used, once it used one: its e-mail
        // notice is queued (sent by the notices job after this commits; issue 37 §2).
        const userAgent = client.userAgent?.slice(0, 200) ?? null;
        if (userAgent !== null) {
          const seen = await tx.sessions.seenFrom(user.id, userAgent);
          if (seen.anySession && !seen.sameUserAgent) {
            await tx.notices.insertIfAbsent({
              id: newId("ntc"),
              kind: "login",
              accountId: account.id,
              subjectId: user.id,
              detail: { at: at.toISOString(), ip: client.ip ?? null, userAgent },
              dueAt: at.toISOString(),
              attempts: 0,
              sentAt: null,
              createdAt: at.toISOString(),
            });
          }
        }
        return openSession(tx, current, account, client, at.toISOString(), secondFactor);
      });
    },

    /**
     * The session a cookie's token names, with its user and account, or `401 UNAUTHORIZED` when it
     * is unknown, ended or expired. Read on every request, so an ended session fails on its very
     * next one, in every process.
     */
    async authenticate(token: string | null, client: ClientInfo): Promise<DashboardActor> {
      if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) throw unauthorized();
      const at = now();
      let session = await store.read.sessions.getByTokenDigest(digest(token));
      if (!session || session.endedAt !== null || idleExpiry(session) <= at) throw unauthorized();
      const [user, account, rules] = await Promise.all([
        store.read.users.get(session.userId),
        store.read.accounts.get(session.accountId),
        store.read.accountSecurity.get(session.accountId),
      ]);
      if (!user || !account) throw unauthorized();
      const requireTwoFactor = rules?.requireTwoFactor ?? false;
      if (addSeconds(session.lastSeenAt, touchEverySeconds) <= at) {
        const touched: SessionRecord = { ...session, lastSeenAt: at };
        await store.transaction((tx) => tx.sessions.update(touched));
        session = touched;
      }
      return { user, account, session, csrfToken: csrfTokenOf(token), requireTwoFactor, client };
    },

    /** The session as `GET /dashboard/v1/session` shows it. */
    view(actor: DashboardActor): Schemas["Session"] {
      const { user, account, session, csrfToken } = actor;
      return {
        user: presentUser(user),
        account: { id: account.id, name: account.name, verified: account.verified },
        csrfToken,
        expiresAt: session.expiresAt,
        idleExpiresAt: idleExpiry(session),
        stepUpExpiresAt: stepUpExpiry(session, now()),
        twoFactorSetupRequired: actor.requireTwoFactor && user.totpEnabledAt === null,
      };
    },

    /** A page of the user's sessions that still last, newest first. */
    async list(actor: DashboardActor, page: PageRequest): Promise<Schemas["SessionEntryPage"]> {
      const at = now();
      const idleSince = addSeconds(at, -sessionLifetime.idleSeconds);
      const lasting = await pageOrInvalidCursor(() =>
        store.read.sessions.pageLastingOfUser(actor.user.id, { now: at, idleSince }, page),
      );
      return {
        hasMore: lasting.hasMore,
        data: lasting.items.map((s) => ({
          id: s.id,
          current: s.id === actor.session.id,
          ip: s.ip,
          userAgent: s.userAgent,
          createdAt: s.createdAt,
          lastSeenAt: s.lastSeenAt,
          expiresAt: s.expiresAt,
        })),
      };
    },

    /** Ends one of the user's own sessions; another user's, or one already ended, is not found. */
    async end(actor: DashboardActor, id: string): Promise<void> {
      await store.transaction(async (tx) => {
        const session = await tx.sessions.get(id);
        if (!session || session.userId !== actor.user.id || session.endedAt !== null) throw notFound();
        await tx.sessions.update({ ...session, endedAt: now() });
      });
    },
  };
}
