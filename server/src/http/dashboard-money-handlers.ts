import type { Handlers } from "../../../generated/dashboard-operations.js";
import type { Domain } from "../domain/service.js";
import type { DashboardContext } from "./dashboard.js";
import { callerIn } from "./dashboard-actor.js";

/** Money and objects of one mode of the user's account (spec/dashboard/money.tsp), through the public API's use cases. */
export function dashboardMoneyHandlers(domain: Domain): Pick<Handlers<DashboardContext>, "getDashboardBalance"> {
  return {
    getDashboardBalance: async ({ params }, ctx) => ({
      status: 200,
      body: await domain.balance.get(callerIn(ctx, params.mode)),
    }),
  };
}
