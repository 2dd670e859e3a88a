import type { Domain } from "../../domain/service.js";
import type { TagHandlers } from "./context.js";

/** The user's two-factor authentication and step-up (spec/dashboard/two-factor.tsp). */
export function twoFactorHandlers(domain: Domain): TagHandlers<"Two-factor authentication"> {
  const { sessions, twoFactor } = domain;
  return {
    startTwoFactor: async ({ body }, { actor }) => ({
      status: 200,
      body: await twoFactor.start(actor, body.currentPassword),
    }),
    confirmTwoFactor: async ({ body }, { actor }) => ({
      status: 200,
      body: await twoFactor.confirm(actor, body.code),
    }),
    disableTwoFactor: async (_request, { actor }) => {
      await twoFactor.disable(actor);
      return { status: 204, body: undefined };
    },
    regenerateRecoveryCodes: async (_request, { actor }) => ({
      status: 200,
      body: await twoFactor.regenerateRecoveryCodes(actor),
    }),
    stepUp: async ({ body }, ctx) => {
      const started = await twoFactor.stepUp(ctx.actor, body.code, ctx.client);
      return { status: 201, body: sessions.view(started), headers: { "Set-Cookie": ctx.cookie.set(started.token) } };
    },
  };
}
