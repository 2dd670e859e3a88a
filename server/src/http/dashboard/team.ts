import type { Domain } from "../../domain/service.js";
import type { TagHandlers } from "./context.js";

/** The team: members and invitations (spec/dashboard/team.tsp). */
export function teamHandlers(domain: Domain): TagHandlers<"Team"> {
  const { team, sessions } = domain;
  return {
    listMembers: async (_request, { actor }) => ({ status: 200, body: await team.listMembers(actor) }),
    changeMemberRole: async ({ params, body }, { actor }) => ({
      status: 200,
      body: await team.changeRole(actor, params.id, body.role),
    }),
    removeMember: async ({ params }, { actor }) => {
      await team.remove(actor, params.id);
      return { status: 204, body: undefined };
    },
    listInvitations: async (_request, { actor }) => ({ status: 200, body: await team.listInvitations(actor) }),
    inviteMember: async ({ body }, { actor }) => ({ status: 201, body: await team.invite(actor, body) }),
    revokeInvitation: async ({ params }, { actor }) => {
      await team.revokeInvitation(actor, params.id);
      return { status: 204, body: undefined };
    },
    acceptInvitation: async ({ body }, ctx) => {
      const started = await team.accept(body, ctx.client);
      return { status: 201, body: sessions.view(started), headers: { "Set-Cookie": ctx.cookie.set(started.token) } };
    },
  };
}
