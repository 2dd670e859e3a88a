import type { Domain } from "../../domain/service.js";
import type { TagHandlers } from "./context.js";

/** Signing up, confirming the e-mail address, resetting the password: no session (spec/dashboard/registration.tsp). */
export function registrationHandlers(domain: Domain): TagHandlers<"Registration"> {
  const { sessions, users } = domain;
  return {
    signUp: async ({ body }, ctx) => {
      const started = await users.signUp(body, ctx.client);
      return { status: 201, body: sessions.view(started), headers: { "Set-Cookie": ctx.cookie.set(started.token) } };
    },
    confirmEmail: async ({ body }) => {
      await users.confirmEmail(body.token);
      return { status: 204, body: undefined };
    },
    requestPasswordReset: async ({ body }) => {
      await users.requestPasswordReset(body.email);
      return { status: 202, body: undefined };
    },
    completePasswordReset: async ({ body }, ctx) => {
      await users.completePasswordReset(body, ctx.client);
      return { status: 204, body: undefined };
    },
  };
}
