import type { Handlers } from "../../../../generated/dashboard-operations.js";
import type { Domain } from "../../domain/service.js";
import { actorOf } from "./context.js";
import { pageFromQuery } from "../router.js";
import { auditHandlers } from "./audit.js";
import { teamHandlers } from "./team.js";
import { accountHandlers } from "./account.js";
import type { DashboardContext } from "./context.js";
import { dashboardMoneyHandlers } from "./money.js";
import { dashboardHomeHandlers } from "./home.js";
import type { WithReplays } from "../replay.js";
import { dashboardIntegrationHandlers } from "./integration.js";

/** The dashboard API's operations (generated/dashboard-operations.ts), each a use case of the domain. */
export function dashboardHandlers(domain: Domain): WithReplays<Handlers<DashboardContext>> {
  const { sessions, users, twoFactor } = domain;
  return {
    ...dashboardMoneyHandlers(domain),
    ...auditHandlers(domain),
    ...teamHandlers(domain),
    ...accountHandlers(domain),
    ...dashboardHomeHandlers(domain),
    ...dashboardIntegrationHandlers(domain),
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
    logIn: async ({ body }, ctx) => {
      const started = await sessions.logIn(body, ctx.client);
      return { status: 201, body: sessions.view(started), headers: { "Set-Cookie": ctx.cookie.set(started.token) } };
    },
    getSession: async (_request, ctx) => ({ status: 200, body: sessions.view(actorOf(ctx)) }),
    logOut: async (_request, ctx) => {
      const actor = actorOf(ctx);
      await sessions.end(actor, actor.session.id);
      return { status: 204, body: undefined, headers: { "Set-Cookie": ctx.cookie.clear() } };
    },
    listSessions: async ({ query }, ctx) => ({
      status: 200,
      body: await sessions.list(actorOf(ctx), pageFromQuery(query)),
    }),
    endSession: async ({ params }, ctx) => {
      await sessions.end(actorOf(ctx), params.id);
      return { status: 204, body: undefined };
    },
    changePassword: async ({ body }, ctx) => {
      await users.changePassword(actorOf(ctx), body);
      return { status: 204, body: undefined };
    },
    startTwoFactor: async ({ body }, ctx) => ({
      status: 200,
      body: await twoFactor.start(actorOf(ctx), body.currentPassword),
    }),
    confirmTwoFactor: async ({ body }, ctx) => ({
      status: 200,
      body: await twoFactor.confirm(actorOf(ctx), body.code),
    }),
    disableTwoFactor: async (_request, ctx) => {
      await twoFactor.disable(actorOf(ctx));
      return { status: 204, body: undefined };
    },
    regenerateRecoveryCodes: async (_request, ctx) => ({
      status: 200,
      body: await twoFactor.regenerateRecoveryCodes(actorOf(ctx)),
    }),
    stepUp: async ({ body }, ctx) => {
      const started = await twoFactor.stepUp(actorOf(ctx), body.code, ctx.client);
      return { status: 201, body: sessions.view(started), headers: { "Set-Cookie": ctx.cookie.set(started.token) } };
    },
    getAccountSecurity: async (_request, ctx) => ({ status: 200, body: await twoFactor.security(actorOf(ctx)) }),
    updateAccountSecurity: async ({ body }, ctx) => ({
      status: 200,
      body: await twoFactor.setSecurity(actorOf(ctx), body),
    }),
  };
}
