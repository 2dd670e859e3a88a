import type { Domain } from "../../domain/service.js";
import { pageFromQuery } from "../router.js";
import type { TagHandlers } from "./context.js";

/** Logging in and out, the user's sessions and password (spec/dashboard/sessions.tsp). */
export function sessionHandlers(domain: Domain): TagHandlers<"Sessions"> {
  const { sessions, users } = domain;
  return {
    logIn: async ({ body }, ctx) => {
      const started = await sessions.logIn(body, ctx.client);
      return { status: 201, body: sessions.view(started), headers: { "Set-Cookie": ctx.cookie.set(started.token) } };
    },
    getSession: async (_request, { actor }) => ({ status: 200, body: sessions.view(actor) }),
    logOut: async (_request, { actor, cookie }) => {
      await sessions.end(actor, actor.session.id);
      return { status: 204, body: undefined, headers: { "Set-Cookie": cookie.clear() } };
    },
    listSessions: async ({ query }, { actor }) => ({
      status: 200,
      body: await sessions.list(actor, pageFromQuery(query)),
    }),
    endSession: async ({ params }, { actor }) => {
      await sessions.end(actor, params.id);
      return { status: 204, body: undefined };
    },
    changePassword: async ({ body }, { actor }) => {
      await users.changePassword(actor, body);
      return { status: 204, body: undefined };
    },
  };
}
