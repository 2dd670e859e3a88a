import type { components } from "../../../../generated/dashboard-api.js";
import { changedFields, recordAudit } from "../audit/index.js";
import { byUser } from "../audit/model.js";
import type { DomainDeps } from "../deps.js";
import { addSeconds } from "../core/time.js";
import { DomainError, fieldError } from "../core/errors.js";
import type { StepUpFailuresRecord, UserRecord } from "./model.js";
import { checkCurrentPassword } from "./passwords.js";
import { failedStepUps } from "../core/policy.js";
import { newRecoveryCodes, newTotpSecret, openTotp, sealTotp, totpStep } from "./second-factor.js";
import { openSession, requireStepUp, type StartedSession, takeSecondFactor } from "./sessions.js";
import { type ClientInfo, type DashboardActor } from "./model.js";
import type { StoreTx } from "../ports/store.js";
import { requireConfirmedEmail } from "./model.js";

// Two-factor authentication of the dashboard's users (issue 25): turning it on (the password, a
// secret, then a code of it), recovery codes, step-up and its failure budget, turning it off, and
// the owner's rule that every member use it. docs/decisions/0040-enrolment-asks-the-password-and-step-up-failures-lock.md.

type Schemas = components["schemas"];

const wrongCode = () => fieldError("code", "código incorreto ou expirado");
const reusedFieldMessage = "este código já foi usado; aguarde o próximo";

const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));

/** `429 RATE_LIMITED` while step-up is locked, `Retry-After` the seconds it has left. */
function stepUpLocked(lockedUntil: string, at: Date): DomainError {
  const seconds = Math.max(1, Math.ceil((Date.parse(lockedUntil) - at.getTime()) / 1000));
  return new DomainError(
    "RATE_LIMITED",
    `Muitos códigos incorretos: a confirmação por código está bloqueada. Tente novamente em ${minutes(seconds)} minutos.`,
    { retryAfterSeconds: seconds },
  );
}

/** What a wrong step-up code leaves: the count of the window it falls in, and a lock at the budget's last. */
function afterWrongCode(before: StepUpFailuresRecord | null, userId: string, at: string): StepUpFailuresRecord {
  const windowOpen = before !== null && addSeconds(before.windowStartedAt, failedStepUps.windowSeconds) > at;
  const failures = windowOpen ? before.failures + 1 : 1;
  return {
    id: userId,
    failures,
    windowStartedAt: windowOpen ? before.windowStartedAt : at,
    lockedUntil: failures >= failedStepUps.perUser ? addSeconds(at, failedStepUps.lockSeconds) : null,
    updatedAt: at,
  };
}

export function twoFactorUseCases(deps: DomainDeps) {
  const { store, clock, mailer, logger } = deps;
  const now = () => clock.now().toISOString();
  const base = deps.config.publicBaseUrl.replace(/\/$/, "");

  /** Sends after the commit; a failure is logged (without the message) and does not undo the change. */
  function send(message: { to: string; subject: string; text: string }) {
    mailer.send(message).catch((err: unknown) => logger.error({ err, subject: message.subject }, "e-mail not sent"));
  }

  /** Writes a user's step-up failures as they now stand. */
  async function saveFailures(tx: StoreTx, before: StepUpFailuresRecord | null, after: StepUpFailuresRecord) {
    if (before) await tx.stepUpFailures.update(after);
    else await tx.stepUpFailures.insert(after);
  }

  /** The user's row, locked for the rest of `tx` (two requests of one user do not interleave). */
  async function lockedUser(tx: StoreTx, actor: DashboardActor): Promise<UserRecord> {
    await tx.lockScope({ accountId: `user:${actor.user.id}`, livemode: false });
    const user = await tx.users.get(actor.user.id);
    if (!user) throw new DomainError("UNAUTHORIZED");
    return user;
  }

  return {
    /**
     * A new secret to set up, once the user's password is shown again (a session alone does not
     * turn it on); nothing changes for log-in until a code of it is confirmed.
     */
    async start(actor: DashboardActor, currentPassword: string): Promise<Schemas["TwoFactorEnrollment"]> {
      requireConfirmedEmail(actor); // issue 33 §10: only the address's owner may lock it with a second factor
      await checkCurrentPassword(actor.user, currentPassword);
      return store.transaction(async (tx) => {
        const user = await lockedUser(tx, actor);
        if (user.totpEnabledAt !== null) {
          throw new DomainError("REQUEST_ERROR", "A verificação em duas etapas já está ativa.");
        }
        const enrollment = newTotpSecret(user.email);
        await tx.users.update({
          ...user,
          totpPendingSecret: sealTotp(deps.secrets, enrollment.secret),
          updatedAt: now(),
        });
        return enrollment;
      });
    },

    /**
     * Turns it on with a code of the new secret, and tells the user by e-mail. Not a step-up: the
     * session stays as it was, and a dangerous operation asks for a code of the new secret.
     */
    async confirm(actor: DashboardActor, code: string): Promise<Schemas["RecoveryCodes"]> {
      const { user, codes } = await store.transaction(async (tx) => {
        const at = clock.now();
        const user = await lockedUser(tx, actor);
        if (user.totpEnabledAt !== null || user.totpPendingSecret === null) {
          throw new DomainError(
            "REQUEST_ERROR",
            "Nada a confirmar: inicie a ativação com POST /dashboard/v1/me/two-factor.",
          );
        }
        const pending = openTotp(deps.secrets, user.totpPendingSecret);
        const step = totpStep(pending, code, at.getTime());
        if (step === null) throw wrongCode();
        const recovery = newRecoveryCodes();
        await tx.users.update({
          ...user,
          totpSecret: sealTotp(deps.secrets, pending),
          totpPendingSecret: null,
          totpEnabledAt: at.toISOString(),
          totpLastStep: step,
          recoveryCodeDigests: recovery.digests,
          updatedAt: at.toISOString(),
        });
        await recordAudit(tx, {
          accountId: user.accountId,
          by: byUser(actor),
          action: "user.two_factor_enabled",
          target: { type: "user", id: user.id },
          changes: { twoFactorEnabled: { from: false, to: true } },
          at: at.toISOString(),
        });
        return { user, codes: recovery.codes };
      });
      send({
        to: user.email,
        subject: "Verificação em duas etapas ativada",
        text: [
          `Olá, ${user.name}.`,
          "",
          "A verificação em duas etapas acaba de ser ativada no seu acesso ao painel do Pix Charging Service" +
            (actor.client.ip ? ` (a partir do endereço IP ${actor.client.ip}).` : "."),
          "A partir de agora, o painel pede o código do aplicativo autenticador ao entrar e antes de operações sensíveis.",
          "",
          "Se não foi você, alguém conhece a sua senha e usou uma sessão sua: redefina a senha agora em",
          `${base}/painel/recuperar-senha e avise o proprietário da conta.`,
        ].join("\n"),
      });
      return { recoveryCodes: codes };
    },

    /** Turns it off (after a step-up), unless the account requires it. */
    async disable(actor: DashboardActor): Promise<void> {
      requireStepUp(actor, now());
      if (actor.requireTwoFactor) {
        throw new DomainError("REQUEST_ERROR", "Esta conta exige a verificação em duas etapas de todos os membros.");
      }
      await store.transaction(async (tx) => {
        const user = await lockedUser(tx, actor);
        const at = now();
        await tx.users.update({
          ...user,
          totpSecret: null,
          totpPendingSecret: null,
          totpEnabledAt: null,
          totpLastStep: null,
          recoveryCodeDigests: [],
          updatedAt: at,
        });
        if (user.totpEnabledAt !== null) {
          await recordAudit(tx, {
            accountId: user.accountId,
            by: byUser(actor),
            action: "user.two_factor_disabled",
            target: { type: "user", id: user.id },
            changes: { twoFactorEnabled: { from: true, to: false } },
            at,
          });
        }
      });
    },

    /** Ten new recovery codes (after a step-up); the old ones stop working. */
    async regenerateRecoveryCodes(actor: DashboardActor): Promise<Schemas["RecoveryCodes"]> {
      requireStepUp(actor, now());
      return store.transaction(async (tx) => {
        const user = await lockedUser(tx, actor);
        const recovery = newRecoveryCodes();
        const at = now();
        await tx.users.update({ ...user, recoveryCodeDigests: recovery.digests, updatedAt: at });
        await recordAudit(tx, {
          accountId: user.accountId,
          by: byUser(actor),
          action: "user.recovery_codes_regenerated",
          target: { type: "user", id: user.id },
          at,
        });
        return { recoveryCodes: recovery.codes };
      });
    },

    /**
     * Step-up: the second factor again; the session is renewed (a new id and cookie) and stepped
     * up. Wrong codes are counted per user (`failedStepUps`), each written to the audit log; the
     * budget's last ends every session of the user and locks step-up, which is then refused
     * without looking at the code. The count and the lock are committed before the refusal.
     */
    async stepUp(actor: DashboardActor, code: string, client: ClientInfo): Promise<StartedSession> {
      if (actor.user.totpEnabledAt === null) {
        throw new DomainError(
          "REQUEST_ERROR",
          "Ative a verificação em duas etapas (POST /dashboard/v1/me/two-factor) antes de confirmar com um código.",
        );
      }
      const outcome = await store.transaction(async (tx) => {
        const at = clock.now();
        const iso = at.toISOString();
        await tx.lockScope({ accountId: `user:${actor.user.id}`, livemode: false });
        const before = await tx.stepUpFailures.get(actor.user.id);
        if (before?.lockedUntil && before.lockedUntil > iso)
          return { kind: "refused" as const, error: stepUpLocked(before.lockedUntil, at) };
        const spent = await takeSecondFactor(tx, actor.user.id, code, at.getTime(), deps.secrets);
        if ("user" in spent) {
          const { user } = spent;
          if (before && before.failures > 0) {
            await tx.stepUpFailures.update({ ...before, failures: 0, lockedUntil: null, updatedAt: iso });
          }
          await tx.sessions.update({ ...actor.session, endedAt: iso });
          return { kind: "started" as const, session: await openSession(tx, user, actor.account, client, iso, true) };
        }
        const after = afterWrongCode(before, actor.user.id, iso);
        await saveFailures(tx, before, after);
        const target = { type: "user", id: actor.user.id } as const;
        await recordAudit(tx, {
          accountId: actor.account.id,
          by: byUser(actor),
          action: "user.step_up_failed",
          target,
          changes: { stepUpFailures: { from: after.failures - 1, to: after.failures } },
          at: iso,
        });
        if (after.lockedUntil === null) {
          // A code already used still counts as a wrong one; only its message differs.
          const error = spent.refused === "reused" ? fieldError("code", reusedFieldMessage) : wrongCode();
          return { kind: "refused" as const, error };
        }
        const ended = await tx.sessions.endAllOfUser(actor.user.id, iso, null);
        await recordAudit(tx, {
          accountId: actor.account.id,
          by: byUser(actor),
          action: "user.step_up_locked",
          target,
          changes: {
            stepUpLockedUntil: { from: null, to: after.lockedUntil },
            openSessions: { from: ended, to: 0 },
          },
          at: iso,
        });
        return { kind: "locked" as const };
      });
      if (outcome.kind === "started") return outcome.session;
      if (outcome.kind === "refused") throw outcome.error;
      send({
        to: actor.user.email,
        subject: "Sessões encerradas: códigos incorretos",
        text: [
          `Olá, ${actor.user.name}.`,
          "",
          `Foram digitados ${failedStepUps.perUser} códigos de verificação incorretos numa sessão sua do painel do Pix Charging Service` +
            (client.ip ? ` (a partir do endereço IP ${client.ip}).` : "."),
          `Por segurança, todas as suas sessões foram encerradas e a confirmação por código fica bloqueada por ${minutes(failedStepUps.lockSeconds)} minutos.`,
          "",
          "Se não foi você, alguém usou uma sessão sua: entre novamente, troque a senha e confira as sessões abertas.",
        ].join("\n"),
      });
      throw new DomainError(
        "RATE_LIMITED",
        `Muitos códigos incorretos: a confirmação por código está bloqueada por ${minutes(failedStepUps.lockSeconds)} minutos e todas as suas sessões foram encerradas. Entre novamente.`,
        { retryAfterSeconds: failedStepUps.lockSeconds },
      );
    },

    /** The account's security rules. */
    async security(actor: DashboardActor): Promise<Schemas["AccountSecurity"]> {
      return { requireTwoFactor: actor.requireTwoFactor };
    },

    /** Sets the account's security rules (the owner, after a step-up). */
    async setSecurity(actor: DashboardActor, input: { requireTwoFactor: boolean }) {
      requireStepUp(actor, now());
      await store.transaction(async (tx) => {
        const rules = { id: actor.account.id, requireTwoFactor: input.requireTwoFactor, updatedAt: now() };
        const before = await tx.accountSecurity.get(actor.account.id);
        if (before) await tx.accountSecurity.update(rules);
        else await tx.accountSecurity.insert(rules);
        const changes = changedFields(before ?? { requireTwoFactor: false }, rules, ["requireTwoFactor"]);
        if (Object.keys(changes).length > 0) {
          await recordAudit(tx, {
            accountId: actor.account.id,
            by: byUser(actor),
            action: "account.security_updated",
            target: { type: "account", id: actor.account.id },
            changes,
            at: rules.updatedAt,
          });
        }
      });
      return { requireTwoFactor: input.requireTwoFactor };
    },
  };
}
