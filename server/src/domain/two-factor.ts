import type { components } from "../../../generated/dashboard-api.js";
import { byUser, changedFields, recordAudit } from "./audit.js";
import type { DomainDeps } from "./deps.js";
import { DomainError, fieldError } from "./errors.js";
import type { UserRecord } from "./identity-model.js";
import { newRecoveryCodes, newTotpSecret, totpStep } from "./second-factor.js";
import {
  type ClientInfo,
  type DashboardActor,
  openSession,
  requireStepUp,
  type StartedSession,
  takeSecondFactor,
} from "./sessions.js";
import type { StoreTx } from "./ports/store.js";

// Two-factor authentication of the dashboard's users (issue 25): turning it on (a secret, then a
// code of it), recovery codes, step-up, turning it off, and the owner's rule that every member use it.

type Schemas = components["schemas"];

const wrongCode = () => fieldError("code", "código incorreto ou expirado");

export function twoFactorUseCases(deps: DomainDeps) {
  const { store, clock } = deps;
  const now = () => clock.now().toISOString();

  /** The user's row, locked for the rest of `tx` (two requests of one user do not interleave). */
  async function lockedUser(tx: StoreTx, actor: DashboardActor): Promise<UserRecord> {
    await tx.lockScope({ accountId: `user:${actor.user.id}`, livemode: false });
    const user = await tx.users.get(actor.user.id);
    if (!user) throw new DomainError("UNAUTHORIZED");
    return user;
  }

  return {
    /** A new secret to set up; nothing changes for log-in until a code of it is confirmed. */
    async start(actor: DashboardActor): Promise<Schemas["TwoFactorEnrollment"]> {
      return store.transaction(async (tx) => {
        const user = await lockedUser(tx, actor);
        if (user.totpEnabledAt !== null) {
          throw new DomainError("REQUEST_ERROR", "A verificação em duas etapas já está ativa.");
        }
        const enrollment = newTotpSecret(user.email);
        await tx.users.update({ ...user, totpPendingSecret: enrollment.secret, updatedAt: now() });
        return enrollment;
      });
    },

    /** Turns it on with a code of the new secret; the session counts as stepped up. */
    async confirm(actor: DashboardActor, code: string): Promise<Schemas["RecoveryCodes"]> {
      return store.transaction(async (tx) => {
        const at = clock.now();
        const user = await lockedUser(tx, actor);
        if (user.totpEnabledAt !== null || user.totpPendingSecret === null) {
          throw new DomainError(
            "REQUEST_ERROR",
            "Nada a confirmar: inicie a ativação com POST /dashboard/v1/me/two-factor.",
          );
        }
        const step = totpStep(user.totpPendingSecret, code, at.getTime());
        if (step === null) throw wrongCode();
        const recovery = newRecoveryCodes();
        await tx.users.update({
          ...user,
          totpSecret: user.totpPendingSecret,
          totpPendingSecret: null,
          totpEnabledAt: at.toISOString(),
          totpLastStep: step,
          recoveryCodeDigests: recovery.digests,
          updatedAt: at.toISOString(),
        });
        await tx.sessions.update({ ...actor.session, steppedUpAt: at.toISOString() });
        await recordAudit(tx, {
          accountId: user.accountId,
          by: byUser(actor),
          action: "user.two_factor_enabled",
          target: { type: "user", id: user.id },
          changes: { twoFactorEnabled: { from: false, to: true } },
          at: at.toISOString(),
        });
        return { recoveryCodes: recovery.codes };
      });
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

    /** Step-up: the second factor again; the session is renewed (a new id and cookie) and stepped up. */
    async stepUp(actor: DashboardActor, code: string, client: ClientInfo): Promise<StartedSession> {
      if (actor.user.totpEnabledAt === null) {
        throw new DomainError(
          "REQUEST_ERROR",
          "Ative a verificação em duas etapas (POST /dashboard/v1/me/two-factor) antes de confirmar com um código.",
        );
      }
      return store.transaction(async (tx) => {
        const at = clock.now();
        const user = await takeSecondFactor(tx, actor.user.id, code, at.getTime());
        if (!user) throw wrongCode();
        await tx.sessions.update({ ...actor.session, endedAt: at.toISOString() });
        return openSession(tx, user, actor.account, client, at.toISOString(), true);
      });
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
