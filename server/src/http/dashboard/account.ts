import type { Handlers } from "../../../../generated/dashboard-operations.js";
import type { Domain } from "../../domain/service.js";
import { actorOf } from "./context.js";
import type { DashboardContext } from "./context.js";

/** The account's operations (spec/dashboard/account.tsp). */
export function accountHandlers(
  domain: Domain,
): Pick<Handlers<DashboardContext>, "getAccountProfile" | "requestVerification" | "updateProfile"> {
  const { accountProfile, verification } = domain;
  return {
    getAccountProfile: async (_request, ctx) => ({ status: 200, body: await accountProfile.profile(actorOf(ctx)) }),
    requestVerification: async ({ body }, ctx) => ({
      status: 201,
      body: await verification.request(actorOf(ctx), body),
    }),
    updateProfile: async ({ body }, ctx) => ({
      status: 200,
      body: await accountProfile.updateProfile(actorOf(ctx), body),
    }),
  };
}
