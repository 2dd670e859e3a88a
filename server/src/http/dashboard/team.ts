import type { Handlers } from "../../../../generated/dashboard-operations.js";
import type { Domain } from "../../domain/service.js";
import { actorOf } from "./context.js";
import type { DashboardContext } from "./context.js";

type TeamOperations =
  | "listMembers"
  | "changeMemberRole"
  | "removeMember"
  | "listInvitations"
  | "inviteMember"
  | "revokeInvitation"
  | "acceptInvitation";

/** The team's operations (spec/dashboard/team.tsp). */
export function teamHandlers(domain: Domain): Pick<Handlers<DashboardContext>, TeamOperations> {
  const { team, sessions } = domain;
  return {
    listMembers: async (_request, ctx) => ({ status: 200, body: await team.listMembers(actorOf(ctx)) }),
    changeMemberRole: async ({ params, body }, ctx) => ({
      status: 200,
      body: await team.changeRole(actorOf(ctx), params.id, body.role),
    }),
    removeMember: async ({ params }, ctx) => {
      await team.remove(actorOf(ctx), params.id);
      return { status: 204, body: undefined };
    },
    listInvitations: async (_request, ctx) => ({ status: 200, body: await team.listInvitations(actorOf(ctx)) }),
    inviteMember: async ({ body }, ctx) => ({ status: 201, body: await team.invite(actorOf(ctx), body) }),
    revokeInvitation: async ({ params }, ctx) => {
      await team.revokeInvitation(actorOf(ctx), params.id);
      return { status: 204, body: undefined };
    },
    acceptInvitation: async ({ body }, ctx) => {
      const started = await team.accept(body, ctx.client);
      return { status: 201, body: sessions.view(started), headers: { "Set-Cookie": ctx.cookie.set(started.token) } };
    },
  };
}
