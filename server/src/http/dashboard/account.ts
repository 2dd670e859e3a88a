import type { Domain } from "../../domain/service.js";
import type { TagHandlers } from "./context.js";

/** The account: its profile, verification and security rules (spec/dashboard/account.tsp, two-factor.tsp). */
export function accountHandlers(domain: Domain): TagHandlers<"Account"> {
  const { accountProfile, verification, twoFactor } = domain;
  return {
    getAccountProfile: async (_request, { actor }) => ({ status: 200, body: await accountProfile.profile(actor) }),
    requestVerification: async ({ body }, { actor }) => ({
      status: 201,
      body: await verification.request(actor, body),
    }),
    updateProfile: async ({ body }, { actor }) => ({
      status: 200,
      body: await accountProfile.updateProfile(actor, body),
    }),
    getAccountSecurity: async (_request, { actor }) => ({ status: 200, body: await twoFactor.security(actor) }),
    updateAccountSecurity: async ({ body }, { actor }) => ({
      status: 200,
      body: await twoFactor.setSecurity(actor, body),
    }),
  };
}
