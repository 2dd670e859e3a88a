import { createHash, randomBytes } from "node:crypto";
import type { components } from "../../../../generated/dashboard-api.js";
import { operationTable } from "../../../../generated/dashboard-operations.js";
import { recordAudit, writeAudited } from "../audit/index.js";
import { byUser } from "../audit/model.js";
import type { DomainDeps } from "../deps.js";
import { addSeconds } from "../core/time.js";
import { emailLinkSeconds } from "../core/policy.js";
import { DomainError, notFound } from "../core/errors.js";
import type { InvitationRecord, Role, UserRecord } from "./model.js";
import { newId } from "../core/ids.js";
import { checkNewPassword, hashPassword } from "./passwords.js";
import { requireConfirmedEmail } from "./model.js";
import type { StoreTx } from "../ports/store.js";
import { normaliseEmail, openSession, requireStepUp, type StartedSession } from "./sessions.js";
import { presentUser } from "./model.js";
import { type ClientInfo, type DashboardActor, newUserRecord } from "./model.js";

// The account's team (issue 25): invitations by e-mail with a role, accepting them, role changes
// and removal. Every change needs a step-up and is audited. Owners manage everyone; admins everyone
// but owners. The account always keeps an owner. One account per user: an address that has a user
// cannot be invited (`409 EMAIL_TAKEN`). docs/decisions/0028-teams-and-roles.md.

type Schemas = components["schemas"];

/** How long an invitation's link works (the spec's `x-valid-seconds` on its token). */
const invitationSeconds = emailLinkSeconds.invitation;

const roleNames: Record<Role, string> = {
  owner: "proprietário",
  admin: "administrador",
  developer: "desenvolvedor",
  finance: "financeiro",
  viewer: "leitura",
};

const digest = (token: string) => createHash("sha256").update(token).digest("hex");
const invalidLink = () => new DomainError("REQUEST_ERROR", "Link inválido, já usado ou expirado.");
const emailTaken = () =>
  new DomainError("EMAIL_TAKEN", "Este e-mail já tem um usuário (cada usuário pertence a uma só conta).");
const ownersOnly = () =>
  new DomainError("ROLE_FORBIDDEN", "Só um proprietário convida, altera ou remove proprietários.");
const lastOwner = () => new DomainError("LAST_OWNER");

const presentInvitation = (i: InvitationRecord): Schemas["Invitation"] => ({
  id: i.id,
  email: i.email,
  role: i.role,
  invitedBy: i.invitedBy,
  createdAt: i.createdAt,
  expiresAt: i.expiresAt,
});

/**
 * Whether a member of `role` may invite someone as `invitedRole`: the roles of `inviteMember`
 * (`x-roles`), and only an owner invites an owner.
 */
const mayInvite = (role: Role, invitedRole: Role): boolean =>
  (operationTable.inviteMember.roles as readonly Role[]).includes(role) &&
  (role === "owner" || invitedRole !== "owner");

/** Whether an invitation's link still works at `now`. */
const usable = (i: InvitationRecord | null, now: string): i is InvitationRecord =>
  i !== null && i.acceptedAt === null && i.revokedAt === null && i.expiresAt > now;

export function teamUseCases(deps: DomainDeps) {
  const { store, clock, mailer, logger } = deps;
  const now = () => clock.now().toISOString();
  const base = deps.config.publicBaseUrl.replace(/\/$/, "");

  /** Serialises the team changes of one account (the last-owner rule reads, then writes). */
  const lockTeam = (tx: StoreTx, accountId: string) =>
    tx.lockScope({ accountId: `team:${accountId}`, livemode: false });

  /**
   * A member of the actor's account to change: `404` when there is none, `403 ROLE_FORBIDDEN` for an
   * owner-level change by a non-owner, then `403 STEP_UP_REQUIRED` without a recent step-up.
   */
  async function memberFor(tx: StoreTx, actor: DashboardActor, id: string, newRole?: Role): Promise<UserRecord> {
    const target = await tx.users.get(id);
    if (!target || target.accountId !== actor.account.id) throw notFound();
    if (actor.user.role !== "owner" && (target.role === "owner" || newRole === "owner")) throw ownersOnly();
    requireStepUp(actor, now());
    return target;
  }

  /** Refuses (`409 LAST_OWNER`) a change that would leave the account without an owner. */
  async function keepAnOwner(tx: StoreTx, target: UserRecord): Promise<void> {
    if (target.role !== "owner") return;
    const owners = (await tx.users.listByAccount(target.accountId)).filter((u) => u.role === "owner");
    if (owners.length <= 1) throw lastOwner();
  }

  /**
   * Revokes the waiting invitations `inviterId` made that `doomed` picks, each audited as a
   * revocation by `actor`: an invitation lasts only while its inviter may make it.
   */
  async function revokeInvitationsOf(
    tx: StoreTx,
    actor: DashboardActor,
    inviterId: string,
    doomed: (invitation: InvitationRecord) => boolean,
    at: string,
  ): Promise<void> {
    for (const invitation of await tx.invitations.listPending(actor.account.id, at)) {
      if (invitation.invitedBy !== inviterId || !doomed(invitation)) continue;
      await tx.invitations.update({ ...invitation, revokedAt: at });
      await recordAudit(tx, {
        accountId: actor.account.id,
        by: byUser(actor),
        action: "member.invitation_revoked",
        target: { type: "invitation", id: invitation.id },
        changes: { email: { from: invitation.email, to: null }, role: { from: invitation.role, to: null } },
        at,
      });
    }
  }

  function sendInvitation(invitation: InvitationRecord, accountName: string, inviter: UserRecord, token: string) {
    const message = {
      to: invitation.email,
      subject: `Convite para a equipe de ${accountName}`,
      text: [
        "Olá.",
        "",
        `${inviter.name} (${inviter.email}) convidou você para a equipe de ${accountName} no painel do Pix Charging Service, com o papel de ${roleNames[invitation.role]}.`,
        "",
        "Para aceitar, abra o link abaixo (válido por 7 dias) e escolha seu nome e sua senha:",
        `${base}/painel/aceitar-convite?token=${token}`,
        "",
        "Se você não esperava este convite, ignore esta mensagem.",
      ].join("\n"),
    };
    mailer.send(message).catch((err: unknown) => logger.error({ err, subject: message.subject }, "e-mail not sent"));
  }

  return {
    /** The account's members, oldest first. */
    async listMembers(actor: DashboardActor): Promise<Schemas["MemberList"]> {
      const users = await store.read.users.listByAccount(actor.account.id);
      return { data: users.map(presentUser) };
    },

    /** The invitations waiting, newest first. */
    async listInvitations(actor: DashboardActor): Promise<Schemas["InvitationList"]> {
      const pending = await store.read.invitations.listPending(actor.account.id, now());
      return { data: pending.map(presentInvitation) };
    },

    /** Invites an address with a role (after a step-up); a waiting invitation to it is replaced. */
    async invite(actor: DashboardActor, input: { email: string; role: Role }): Promise<Schemas["Invitation"]> {
      requireConfirmedEmail(actor);
      requireStepUp(actor, now());
      if (actor.user.role !== "owner" && input.role === "owner") throw ownersOnly();
      const email = normaliseEmail(input.email);
      const token = randomBytes(32).toString("base64url");
      const invitation = await store.transaction(async (tx) => {
        await lockTeam(tx, actor.account.id);
        await tx.lockScope({ accountId: `user-email:${email}`, livemode: false });
        if (await tx.users.getByEmail(email)) throw emailTaken();
        const at = now();
        for (const waiting of await tx.invitations.listPending(actor.account.id, at)) {
          if (waiting.email === email) await tx.invitations.update({ ...waiting, revokedAt: at });
        }
        const created: InvitationRecord = {
          id: newId("inv"),
          accountId: actor.account.id,
          email,
          role: input.role,
          tokenDigest: digest(token),
          invitedBy: actor.user.id,
          createdAt: at,
          expiresAt: addSeconds(at, invitationSeconds),
          acceptedAt: null,
          revokedAt: null,
        };
        return writeAudited(tx, tx.invitations, {
          by: byUser(actor),
          action: "member.invited",
          target: "invitation",
          before: null,
          after: created,
          fields: ["email", "role"],
          at,
        });
      });
      sendInvitation(invitation, actor.account.name, actor.user, token);
      return presentInvitation(invitation);
    },

    /** Revokes a waiting invitation (after a step-up). */
    async revokeInvitation(actor: DashboardActor, id: string): Promise<void> {
      await store.transaction(async (tx) => {
        await lockTeam(tx, actor.account.id);
        const invitation = await tx.invitations.get(id);
        if (!invitation || invitation.accountId !== actor.account.id) throw notFound();
        if (invitation.acceptedAt !== null || invitation.revokedAt !== null) throw notFound();
        if (actor.user.role !== "owner" && invitation.role === "owner") throw ownersOnly();
        const at = now();
        requireStepUp(actor, at);
        await tx.invitations.update({ ...invitation, revokedAt: at });
        await recordAudit(tx, {
          accountId: actor.account.id,
          by: byUser(actor),
          action: "member.invitation_revoked",
          target: { type: "invitation", id },
          changes: { email: { from: invitation.email, to: null }, role: { from: invitation.role, to: null } },
          at,
        });
      });
    },

    /** Changes a member's role (after a step-up); the account keeps an owner. */
    async changeRole(actor: DashboardActor, id: string, role: Role): Promise<Schemas["User"]> {
      return store.transaction(async (tx) => {
        await lockTeam(tx, actor.account.id);
        const target = await memberFor(tx, actor, id, role);
        if (role !== "owner") await keepAnOwner(tx, target);
        const at = now();
        const updated = await writeAudited(tx, tx.users, {
          by: byUser(actor),
          action: "member.role_changed",
          target: "user",
          before: target,
          after: { ...target, role, updatedAt: at },
          fields: ["role"],
          onlyIfChanged: true,
          at,
        });
        await revokeInvitationsOf(tx, actor, target.id, (i) => !mayInvite(role, i.role), at);
        return presentUser(updated);
      });
    },

    /** Removes a member (after a step-up): its user and sessions go at once; the account keeps an owner. */
    async remove(actor: DashboardActor, id: string): Promise<void> {
      await store.transaction(async (tx) => {
        await lockTeam(tx, actor.account.id);
        const target = await memberFor(tx, actor, id);
        await keepAnOwner(tx, target);
        await tx.users.remove(id);
        const at = now();
        await recordAudit(tx, {
          accountId: actor.account.id,
          by: byUser(actor),
          action: "member.removed",
          target: { type: "user", id },
          changes: { email: { from: target.email, to: null }, role: { from: target.role, to: null } },
          at,
        });
        await revokeInvitationsOf(tx, actor, target.id, () => true, at);
      });
    },

    /**
     * Accepts an invitation (no session): a user of the account with its role, the address confirmed
     * by the link, logged in. The password follows sign-up's rules.
     */
    async accept(
      input: { token: string; name: string; password: string },
      client: ClientInfo,
    ): Promise<StartedSession> {
      const tokenDigest = digest(input.token);
      const found = await store.read.invitations.getByTokenDigest(tokenDigest);
      if (!usable(found, now())) throw invalidLink();
      checkNewPassword(input.password, "password", { email: found.email, name: input.name });
      const passwordHash = await hashPassword(input.password, deps.config.passwordHashCost);
      return store.transaction(async (tx) => {
        await tx.lockScope({ accountId: `user-email:${found.email}`, livemode: false });
        const at = now();
        const invitation = await tx.invitations.getByTokenDigest(tokenDigest);
        if (!usable(invitation, at)) throw invalidLink();
        if (await tx.users.getByEmail(invitation.email)) throw emailTaken();
        const account = await tx.accounts.get(invitation.accountId);
        if (!account) throw invalidLink();
        const user = newUserRecord({
          accountId: account.id,
          email: invitation.email,
          name: input.name,
          role: invitation.role,
          passwordHash,
          emailConfirmedAt: at,
          at,
        });
        await tx.users.insert(user);
        await tx.invitations.update({ ...invitation, acceptedAt: at });
        await recordAudit(tx, {
          accountId: account.id,
          by: { actor: { type: "user", userId: user.id, email: user.email }, ip: client.ip ?? null },
          action: "member.joined",
          target: { type: "user", id: user.id },
          changes: { role: { from: null, to: user.role }, invitation: { from: null, to: invitation.id } },
          at,
        });
        return openSession(tx, user, account, client, at);
      });
    },
  };
}
