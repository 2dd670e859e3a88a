import type { Handlers } from "../../../../generated/dashboard-operations.js";
import type { Domain } from "../../domain/service.js";
import type { DashboardContext } from "./context.js";
import { callerIn } from "./context.js";
import { dashboardExportHandlers } from "./exports.js";

/** The home screen's figures and the CSV exports of one mode (spec/dashboard/home.tsp, exports.tsp). */
export function dashboardHomeHandlers(
  domain: Domain,
): Pick<Handlers<DashboardContext>, "getHomeFigures" | "exportDashboardTransactions" | "exportDashboardWithdrawals"> {
  return {
    ...dashboardExportHandlers(domain),
    getHomeFigures: async ({ params }, ctx) => ({
      status: 200,
      body: await domain.homeFigures.figures(callerIn(ctx, params.mode).scope),
    }),
  };
}
