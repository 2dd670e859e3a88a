import { createHash, randomBytes } from "node:crypto";
import { createAccount } from "../accounts/index.js";
import { recordAudit } from "../audit/index.js";
import { byUser } from "../audit/model.js";
import type { DomainDeps } from "../deps.js";
import { addSeconds } from "../core/time.js";
import { emailLinkSeconds } from "../core/policy.js";
import { DomainError, fieldError } from "../core/errors.js";
import type { EmailTokenPurpose, UserRecord } from "./model.js";
import { checkCurrentPassword, checkNewPassword, hashPassword } from "./passwords.js";
import type { StoreTx } from "../ports/store.js";
import { normaliseEmail, openSession, type StartedSession } from "./sessions.js";
import { type ClientInfo, type DashboardActor, newUserRecord } from "./model.js";

// The dashboard's people (issue 25): sign-up, the e-mail address's confirmation, password change
// and reset. E-mails go through the Mailer port; their links carry a one-time token of which only
// the digest is stored.

/** How long an e-mail link works (the spec's `x-valid-seconds` on each token). */
const tokenLifetimeSeconds: Record<EmailTokenPurpose, number> = {
  confirm_email: emailLinkSeconds.confirmEmail,
  reset_password: emailLinkSeconds.resetPassword,
};

/** Reset e-mails one user is sent in an hour at most; more requests answer alike and send nothing. */
const resetMailsPerHour = 3;

/** Days a session is kept after its absolute expiry (for `user.logged_in_from_new_ip`), then deleted. */
const endedSessionDays = 30;

/** A user's fields of two-factor authentication, all off. */
const withoutSecondFactor = {
  totpSecret: null,
  totpPendingSecret: null,
  totpEnabledAt: null,
  totpLastStep: null,
  recoveryCodeDigests: [],
} satisfies Partial<UserRecord>;

const digest = (token: string) => createHash("sha256").update(token).digest("hex");
const invalidLink = () => new DomainError("REQUEST_ERROR", "Link inválido, já usado ou expirado.");

export interface SignUp {
  name: string;
  email: string;
  password: string;
  businessName: string;
}

export function userUseCases(deps: DomainDeps) {
  const { store, clock, mailer, logger } = deps;
  const now = () => clock.now().toISOString();
  const base = deps.config.publicBaseUrl.replace(/\/$/, "");

  /** A new one-time token for `user`; the token itself exists only in the e-mail. */
  async function issueToken(tx: StoreTx, user: UserRecord, purpose: EmailTokenPurpose, at: string) {
    const token = randomBytes(32).toString("base64url");
    await tx.emailTokens.insert({
      id: digest(token),
      userId: user.id,
      purpose,
      expiresAt: addSeconds(at, tokenLifetimeSeconds[purpose]),
      usedAt: null,
      createdAt: at,
    });
    return token;
  }

  /** Sends after the commit; a failure is logged (without the message) and does not undo the change. */
  function send(message: { to: string; subject: string; text: string }) {
    mailer.send(message).catch((err: unknown) => logger.error({ err, subject: message.subject }, "e-mail not sent"));
  }

  const confirmationMail = (user: UserRecord, token: string) => ({
    to: user.email,
    subject: "Confirme seu e-mail",
    text: [
      `Olá, ${user.name}.`,
      "",
      "Para confirmar este endereço de e-mail no painel do Pix Charging Service, abra o link abaixo (válido por 24 horas):",
      `${base}/painel/confirmar-email?token=${token}`,
      "",
      "Se não foi você quem se cadastrou, ignore esta mensagem.",
    ].join("\n"),
  });

  /** The token a link carried, if it is of `purpose`, unused and unexpired; else `400 REQUEST_ERROR`. */
  async function redeem(tx: StoreTx, token: string, purpose: EmailTokenPurpose, at: string): Promise<UserRecord> {
    const record = await tx.emailTokens.get(digest(token));
    if (!record || record.purpose !== purpose || record.usedAt !== null || record.expiresAt <= at) throw invalidLink();
    const user = await tx.users.get(record.userId);
    if (!user) throw invalidLink();
    await tx.emailTokens.update({ ...record, usedAt: at });
    return user;
  }

  return {
    /**
     * A merchant of its own: an account (unverified: test mode only) and its owner, logged in. The
     * address gets a confirmation link. An address with a user already answers `409 EMAIL_TAKEN`.
     */
    async signUp(input: SignUp, client: ClientInfo): Promise<StartedSession> {
      const email = normaliseEmail(input.email);
      checkNewPassword(input.password, "password", { email, name: input.name });
      const passwordHash = await hashPassword(input.password, deps.config.passwordHashCost);
      const { started, token } = await store
        .transaction(async (tx) => {
          // Two sign-ups with one address wait for each other here: the second finds the first's user.
          await tx.lockScope({ accountId: `user-email:${email}`, livemode: false });
          if (await tx.users.getByEmail(email)) {
            throw new DomainError("EMAIL_TAKEN", "Já existe um usuário com este e-mail. Entre, ou redefina a senha.");
          }
          const at = now();
          const account = await createAccount(tx, { name: input.businessName, ownerEmail: email, verified: false }, at);
          const user = newUserRecord({
            accountId: account.id,
            email,
            name: input.name,
            role: "owner",
            passwordHash,
            emailConfirmedAt: null,
            at,
          });
          await tx.users.insert(user);
          const token = await issueToken(tx, user, "confirm_email", at);
          return { started: await openSession(tx, user, account, client, at), token };
        })
        .catch((error: unknown) => {
          // The merchant's name is the account's `name`: say so in the sign-up's own terms.
          if (error instanceof DomainError && error.errors?.[0]?.path === "name") {
            throw fieldError("businessName", error.errors[0].message);
          }
          throw error;
        });
      send(confirmationMail(started.user, token));
      return started;
    },

    /** Confirms the address of the user a confirmation link was sent to. */
    async confirmEmail(token: string): Promise<void> {
      await store.transaction(async (tx) => {
        const at = now();
        const user = await redeem(tx, token, "confirm_email", at);
        if (user.emailConfirmedAt === null) await tx.users.update({ ...user, emailConfirmedAt: at, updatedAt: at });
      });
    },

    /**
     * Sends a reset link when the address has a user and was sent fewer than
     * `resetMailsPerHour` of them in the last hour; says nothing either way.
     */
    async requestPasswordReset(emailInput: string): Promise<void> {
      const email = normaliseEmail(emailInput);
      const sent = await store.transaction(async (tx) => {
        const found = await tx.users.getByEmail(email);
        if (!found) return null;
        // Two requests for one user wait for each other here: the count below is exact.
        await tx.lockScope({ accountId: `user:${found.id}`, livemode: false });
        const at = now();
        const hourAgo = addSeconds(at, -3600);
        if ((await tx.emailTokens.countSentSince(found.id, "reset_password", hourAgo)) >= resetMailsPerHour)
          return null;
        return { user: found, token: await issueToken(tx, found, "reset_password", at) };
      });
      if (!sent) return;
      send({
        to: sent.user.email,
        subject: "Redefinição de senha",
        text: [
          `Olá, ${sent.user.name}.`,
          "",
          "Para escolher uma nova senha do painel do Pix Charging Service, abra o link abaixo (válido por 1 hora):",
          `${base}/painel/redefinir-senha?token=${sent.token}`,
          "",
          "Se não foi você quem pediu, ignore esta mensagem: sua senha continua a mesma.",
        ].join("\n"),
      });
    },

    /**
     * A new password through a reset link: the address is confirmed (the link reached it), every
     * session and every other reset link of the user ends. On an address not confirmed before,
     * two-factor authentication is turned off: whoever turned it on had not shown the mailbox was
     * theirs, and the mailbox's owner must be able to enter
     * (docs/decisions/0041-e-mail-links-ownership-and-identity-housekeeping.md).
     */
    async completePasswordReset(input: { token: string; password: string }, client: ClientInfo): Promise<void> {
      const passwordHash = await hashPassword(input.password, deps.config.passwordHashCost);
      await store.transaction(async (tx) => {
        const at = now();
        const user = await redeem(tx, input.token, "reset_password", at);
        checkNewPassword(input.password, "password", user);
        const squatted =
          user.emailConfirmedAt === null && (user.totpEnabledAt !== null || user.totpPendingSecret !== null);
        await tx.users.update({
          ...user,
          ...(squatted ? withoutSecondFactor : {}),
          passwordHash,
          emailConfirmedAt: user.emailConfirmedAt ?? at,
          updatedAt: at,
        });
        await tx.sessions.endAllOfUser(user.id, at, null);
        await tx.emailTokens.retireAllOfUser(user.id, "reset_password", at);
        await recordAudit(tx, {
          accountId: user.accountId,
          by: { actor: { type: "user", userId: user.id, email: user.email }, ip: client.ip ?? null },
          action: "user.password_reset",
          target: { type: "user", id: user.id },
          ...(user.emailConfirmedAt === null
            ? {
                changes: {
                  emailConfirmed: { from: false, to: true },
                  ...(user.totpEnabledAt !== null ? { twoFactorEnabled: { from: true, to: false } } : {}),
                },
              }
            : {}),
          at,
        });
      });
    },

    /**
     * Deletes what can no longer be used: e-mail tokens past their expiry, and sessions
     * `endedSessionDays` after their absolute expiry (kept that long so a log-in from an address
     * none of them came from is still told apart). Answers how many rows went.
     */
    async purgeExpired(): Promise<number> {
      const at = now();
      return store.transaction(async (tx) => {
        const tokens = await tx.emailTokens.purgeExpiredBefore(at);
        const sessions = await tx.sessions.purgeExpiredBefore(addSeconds(at, -endedSessionDays * 24 * 3600));
        return tokens + sessions;
      });
    },

    /** A new password, the current one checked; the user's other sessions end. */
    async changePassword(actor: DashboardActor, input: { currentPassword: string; newPassword: string }) {
      const { user } = actor;
      await checkCurrentPassword(user, input.currentPassword);
      checkNewPassword(input.newPassword, "newPassword", user);
      const passwordHash = await hashPassword(input.newPassword, deps.config.passwordHashCost);
      await store.transaction(async (tx) => {
        const at = now();
        const current = await tx.users.get(user.id);
        if (!current) throw new DomainError("UNAUTHORIZED");
        await tx.users.update({ ...current, passwordHash, updatedAt: at });
        await tx.sessions.endAllOfUser(user.id, at, actor.session.id);
        await tx.emailTokens.retireAllOfUser(user.id, "reset_password", at);
        await recordAudit(tx, {
          accountId: user.accountId,
          by: byUser(actor),
          action: "user.password_changed",
          target: { type: "user", id: user.id },
          at,
        });
      });
    },
  };
}
