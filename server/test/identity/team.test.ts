import { expect, test } from "vitest";
import type { Role } from "../../src/domain/identity/model.js";
import { byId, expectStatus, type TestServer } from "../harness.js";
import { expectNoSecretInAuditLog, rememberSecret } from "../support/audit.js";
import {
  codeOf,
  type DashboardBrowser,
  dashboardBrowser,
  lastLinkToken,
  newPerson,
  signedUp,
  turnOnTwoFactor,
  withTwoFactor,
} from "../support/dashboard.js";
import { eachStore, serverOn } from "../support/stores.js";

// The account's team (issue 25) through the real HTTP stack on both stores: invitations by e-mail
// (the link read from the mailer), accepting them without a session, roles enforced on the server,
// step-up before every change, the last owner kept, and a removed member's session ending at once.

let invited = 0;
const newAddress = () => `convidado.${process.pid}.${++invited}.${Date.now()}@loja.example.com.br`;

/** Invites `email` with `role` from `browser` (stepped up) and answers the invitation. */
async function invite(browser: DashboardBrowser, email: string, role: Role) {
  const answer = await browser.api.POST("/dashboard/v1/team/invitations", { body: { email, role } });
  expectStatus(answer, 201);
  return answer.body;
}

/** Accepts the last invitation e-mailed to `email`, as a new browser: the member's browser and session. */
async function accept(server: TestServer, email: string) {
  const token = lastLinkToken(server, email);
  rememberSecret(token);
  const browser = dashboardBrowser(server.baseUrl);
  const password = "frase longa do novo membro";
  rememberSecret(password);
  const answer = await browser.api.POST("/dashboard/v1/invitations/accept", {
    body: { token, name: "João Lima", password },
  });
  expectStatus(answer, 201);
  return { browser, session: answer.body, password };
}

/** A member of the owner's account with `role`, through an invitation. */
async function member(server: TestServer, owner: DashboardBrowser, role: Role) {
  const email = newAddress();
  await invite(owner, email, role);
  return { email, ...(await accept(server, email)) };
}

for (const store of eachStore("dashboard_team")) {
  store.describe(`dashboard team on the ${store.name} store`, () => {
    const server = serverOn(store);

    test("when the owner invites a developer, then the e-mailed link, accepted without a session, makes a logged-in member with that role", async () => {
      const owner = await withTwoFactor(server);
      const email = newAddress();

      const invitation = await invite(owner.browser, email, "developer");
      const pending = await owner.browser.api.GET("/dashboard/v1/team/invitations");
      const mail = server.mail.filter((m) => m.to === email);
      const joined = await accept(server, email);
      const members = await owner.browser.api.GET("/dashboard/v1/team/members");
      const after = await owner.browser.api.GET("/dashboard/v1/team/invitations");

      expect(invitation).toMatchObject({ email, role: "developer", invitedBy: owner.session.user.id });
      expect(invitation.expiresAt).toBe(new Date(server.clock.now().getTime() + 7 * 86400_000).toISOString());
      expectStatus(pending, 200);
      expect(pending.body.data.map((i) => i.id)).toEqual([invitation.id]);
      expect(mail).toHaveLength(1);
      expect(mail[0]?.subject).toBe("Convite para a equipe de Loja Exemplo Ltda");
      expect(mail[0]?.text).toContain("com o papel de desenvolvedor");
      expect(mail[0]?.text).toMatch(/https:\/\/pix\.example\.test\/painel\/aceitar-convite\?token=[\w-]{43}/);
      expect(joined.session.user).toMatchObject({ email, role: "developer", emailConfirmed: true, name: "João Lima" });
      expect(joined.session.account.id).toBe(owner.session.account.id);
      expectStatus(await joined.browser.api.GET("/dashboard/v1/session"), 200);
      expectStatus(members, 200);
      expect(members.body.data.map((u) => [u.email, u.role])).toEqual([
        [owner.person.email, "owner"],
        [email, "developer"],
      ]);
      expectStatus(after, 200);
      expect(after.body.data).toEqual([]);
      const log = await owner.browser.api.GET("/dashboard/v1/audit-log", {
        params: { query: { createdFrom: invitation.createdAt } },
      });
      expectStatus(log, 200);
      expect(log.body.data.map((e) => [e.action, e.actor.email, e.target.type])).toEqual([
        ["member.joined", email, "user"],
        ["member.invited", owner.person.email, "invitation"],
      ]);
      expect(log.body.data[1]?.changes).toEqual({
        email: { from: null, to: email },
        role: { from: null, to: "developer" },
      });
    });

    test("when a viewer invites, or an admin makes an owner-level change, then 403 ROLE_FORBIDDEN; an admin manages the others", async () => {
      const owner = await withTwoFactor(server);
      const viewer = await member(server, owner.browser, "viewer");
      const admin = await member(server, owner.browser, "admin");
      await turnOnTwoFactor(server, admin.browser, admin.password);
      const ownerId = owner.session.user.id;

      const byViewer = await viewer.browser.api.POST("/dashboard/v1/team/invitations", {
        body: { email: newAddress(), role: "viewer" },
      });
      const viewerReads = await viewer.browser.api.GET("/dashboard/v1/team/members");
      const ownerInvite = await admin.browser.api.POST("/dashboard/v1/team/invitations", {
        body: { email: newAddress(), role: "owner" },
      });
      const demoteOwner = await admin.browser.api.PATCH("/dashboard/v1/team/members/{id}", {
        ...byId(ownerId),
        body: { role: "viewer" },
      });
      const removeOwner = await admin.browser.api.DELETE("/dashboard/v1/team/members/{id}", byId(ownerId));
      const promoteSelf = await admin.browser.api.PATCH("/dashboard/v1/team/members/{id}", {
        ...byId(admin.session.user.id),
        body: { role: "owner" },
      });
      const promoteViewer = await admin.browser.api.PATCH("/dashboard/v1/team/members/{id}", {
        ...byId(viewer.session.user.id),
        body: { role: "finance" },
      });
      const adminInvite = await admin.browser.api.POST("/dashboard/v1/team/invitations", {
        body: { email: newAddress(), role: "developer" },
      });

      expectStatus(byViewer, 403);
      expect(byViewer.body.code).toBe("ROLE_FORBIDDEN");
      expectStatus(viewerReads, 200);
      for (const refused of [ownerInvite, demoteOwner, removeOwner, promoteSelf]) {
        expect(refused.status).toBe(403);
        expect(refused.body).toMatchObject({ code: "ROLE_FORBIDDEN" });
      }
      expectStatus(promoteViewer, 200);
      expect(promoteViewer.body.role).toBe("finance");
      expectStatus(adminInvite, 201);
      const members = await owner.browser.api.GET("/dashboard/v1/team/members");
      expectStatus(members, 200);
      expect(members.body.data.find((u) => u.id === ownerId)?.role).toBe("owner");
    });

    test("when a team change comes without a recent step-up, then 403 STEP_UP_REQUIRED until one, and a user without two-factor authentication is told to turn it on", async () => {
      const owner = await withTwoFactor(server);
      const developer = await member(server, owner.browser, "developer");
      const invitation = await invite(owner.browser, newAddress(), "viewer");
      server.clock.advance(601);

      const refused = [
        await owner.browser.api.POST("/dashboard/v1/team/invitations", {
          body: { email: newAddress(), role: "viewer" },
        }),
        await owner.browser.api.PATCH("/dashboard/v1/team/members/{id}", {
          ...byId(developer.session.user.id),
          body: { role: "viewer" },
        }),
        await owner.browser.api.DELETE("/dashboard/v1/team/members/{id}", byId(developer.session.user.id)),
        await owner.browser.api.DELETE("/dashboard/v1/team/invitations/{id}", byId(invitation.id)),
      ];
      const steppedUp = await owner.browser.api.POST("/dashboard/v1/session/step-up", {
        body: { code: codeOf(server, owner.secret) },
      });
      const revoked = await owner.browser.api.DELETE("/dashboard/v1/team/invitations/{id}", byId(invitation.id));
      const withoutTwoFactor = await signedUp(server);
      const told = await withoutTwoFactor.browser.api.POST("/dashboard/v1/team/invitations", {
        body: { email: newAddress(), role: "viewer" },
      });

      for (const answer of refused) {
        expect(answer.status).toBe(403);
        expect(answer.body).toMatchObject({ code: "STEP_UP_REQUIRED" });
      }
      expectStatus(steppedUp, 201);
      expectStatus(revoked, 204);
      expectStatus(told, 403);
      expect(told.body).toMatchObject({ code: "STEP_UP_REQUIRED" });
      expect(told.body.message).toContain("ative-a");
      const members = await owner.browser.api.GET("/dashboard/v1/team/members");
      expectStatus(members, 200);
      expect(members.body.data.find((u) => u.id === developer.session.user.id)?.role).toBe("developer");
    });

    test("when the last owner is removed or demoted, then 409 LAST_OWNER; once another member is owner, the first may step down", async () => {
      const owner = await withTwoFactor(server);
      const ownerId = owner.session.user.id;
      const admin = await member(server, owner.browser, "admin");

      const demoted = await owner.browser.api.PATCH("/dashboard/v1/team/members/{id}", {
        ...byId(ownerId),
        body: { role: "admin" },
      });
      const removed = await owner.browser.api.DELETE("/dashboard/v1/team/members/{id}", byId(ownerId));
      const promoted = await owner.browser.api.PATCH("/dashboard/v1/team/members/{id}", {
        ...byId(admin.session.user.id),
        body: { role: "owner" },
      });
      const steppedDown = await owner.browser.api.PATCH("/dashboard/v1/team/members/{id}", {
        ...byId(ownerId),
        body: { role: "admin" },
      });

      for (const answer of [demoted, removed]) {
        expect(answer.status).toBe(409);
        expect(answer.body).toMatchObject({
          code: "LAST_OWNER",
          message: "A conta precisa de ao menos um proprietário: promova outro membro antes.",
        });
      }
      expectStatus(promoted, 200);
      expectStatus(steppedDown, 200);
      expect(steppedDown.body.role).toBe("admin");
      const session = await owner.browser.api.GET("/dashboard/v1/session");
      expectStatus(session, 200);
      expect(session.body.user.role).toBe("admin");
    });

    test("when a member is removed, then its session fails on its very next request, and its address is free again", async () => {
      const owner = await withTwoFactor(server);
      const finance = await member(server, owner.browser, "finance");
      const other = dashboardBrowser(server.baseUrl);
      expectStatus(
        await other.api.POST("/dashboard/v1/session", { body: { email: finance.email, password: finance.password } }),
        201,
      );
      expectStatus(await finance.browser.api.GET("/dashboard/v1/session"), 200);

      const removed = await owner.browser.api.DELETE("/dashboard/v1/team/members/{id}", byId(finance.session.user.id));

      expectStatus(removed, 204);
      expect((await finance.browser.api.GET("/dashboard/v1/session")).status).toBe(401);
      expect((await other.api.GET("/dashboard/v1/team/members")).status).toBe(401);
      const logIn = await dashboardBrowser(server.baseUrl).api.POST("/dashboard/v1/session", {
        body: { email: finance.email, password: finance.password },
      });
      expect(logIn.status).toBe(401);
      const members = await owner.browser.api.GET("/dashboard/v1/team/members");
      expectStatus(members, 200);
      expect(members.body.data.map((u) => u.email)).not.toContain(finance.email);
      const again = await owner.browser.api.POST("/dashboard/v1/team/invitations", {
        body: { email: finance.email, role: "viewer" },
      });
      expectStatus(again, 201);
      const log = await owner.browser.api.GET("/dashboard/v1/audit-log", {
        params: { query: { action: "member.removed" } },
      });
      expectStatus(log, 200);
      expect(log.body.data[0]).toMatchObject({
        actor: { type: "user", userId: owner.session.user.id },
        target: { type: "user", id: finance.session.user.id },
        changes: { email: { from: finance.email, to: null }, role: { from: "finance", to: null } },
      });
    });

    test("when a member's role changes, then its very next request has the new role", async () => {
      const owner = await withTwoFactor(server);
      const viewer = await member(server, owner.browser, "viewer");
      const before = await viewer.browser.api.GET("/dashboard/v1/audit-log");

      expectStatus(
        await owner.browser.api.PATCH("/dashboard/v1/team/members/{id}", {
          ...byId(viewer.session.user.id),
          body: { role: "admin" },
        }),
        200,
      );

      expect(before.status).toBe(403);
      expectStatus(await viewer.browser.api.GET("/dashboard/v1/audit-log"), 200);
    });

    test("when the invited address has a user, then the invitation answers 409 EMAIL_TAKEN, and one that signs up meanwhile cannot accept", async () => {
      const owner = await withTwoFactor(server);
      const elsewhere = await signedUp(server);
      const later = newPerson();
      await invite(owner.browser, later.email, "viewer");
      const token = lastLinkToken(server, later.email);
      expectStatus(await dashboardBrowser(server.baseUrl).api.POST("/dashboard/v1/sign-up", { body: later }), 201);

      const taken = await owner.browser.api.POST("/dashboard/v1/team/invitations", {
        body: { email: elsewhere.person.email.toUpperCase(), role: "admin" },
      });
      const accepting = await dashboardBrowser(server.baseUrl).api.POST("/dashboard/v1/invitations/accept", {
        body: { token, name: "Ana Dias", password: "frase longa da ana dias" },
      });

      expectStatus(taken, 409);
      expect(taken.body.code).toBe("EMAIL_TAKEN");
      expectStatus(accepting, 409);
      expect(accepting.body.code).toBe("EMAIL_TAKEN");
    });

    test.each([
      { name: "revoked", spoil: "revoke" },
      { name: "replaced by a new invitation", spoil: "reinvite" },
      { name: "expired (7 days)", spoil: "expire" },
      { name: "used", spoil: "use" },
    ])("when the link was $name, then accepting answers 400 REQUEST_ERROR", async ({ spoil }) => {
      const owner = await withTwoFactor(server);
      const email = newAddress();
      const invitation = await invite(owner.browser, email, "viewer");
      const token = lastLinkToken(server, email);
      if (spoil === "revoke") {
        expectStatus(await owner.browser.api.DELETE("/dashboard/v1/team/invitations/{id}", byId(invitation.id)), 204);
      } else if (spoil === "reinvite") {
        await invite(owner.browser, email, "developer");
      } else if (spoil === "expire") {
        server.clock.advance(7 * 86400);
      } else {
        await accept(server, email);
      }

      const answer = await dashboardBrowser(server.baseUrl).api.POST("/dashboard/v1/invitations/accept", {
        body: { token, name: "João Lima", password: "frase longa do novo membro" },
      });

      expectStatus(answer, 400);
      expect(answer.body).toMatchObject({ code: "REQUEST_ERROR", message: "Link inválido, já usado ou expirado." });
    });

    test("when an invitation is accepted with a common password, then 400 VALIDATION_ERROR and no member is made", async () => {
      const owner = await withTwoFactor(server);
      const email = newAddress();
      await invite(owner.browser, email, "viewer");

      const answer = await dashboardBrowser(server.baseUrl).api.POST("/dashboard/v1/invitations/accept", {
        body: { token: lastLinkToken(server, email), name: "João Lima", password: "senha1234567" },
      });

      expectStatus(answer, 400);
      expect(answer.body.errors?.[0]?.path).toBe("password");
      const members = await owner.browser.api.GET("/dashboard/v1/team/members");
      expectStatus(members, 200);
      expect(members.body.data).toHaveLength(1);
    });

    test("when every entry this file's server wrote is read, then none holds a secret", async () => {
      expect(await expectNoSecretInAuditLog(server)).toBeGreaterThan(20);
    });
  });
}
