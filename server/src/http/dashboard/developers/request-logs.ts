import type { Domain } from "../../../domain/service.js";
import { pageFromQuery } from "../../router.js";
import { callerIn, type TagHandlers } from "../context.js";

/** The public API's request logs of a mode (spec/dashboard/request-logs.tsp). */
export function requestLogHandlers(domain: Domain): TagHandlers<"Request logs"> {
  const logs = domain.requestLogs;
  return {
    listDashboardRequestLogs: async ({ params, query }, ctx) => {
      const { status, path, keyId } = query;
      return {
        status: 200,
        body: await logs.list(callerIn(ctx, params.mode), { status, path, keyId }, pageFromQuery(query)),
      };
    },
    getDashboardRequestLog: async ({ params }, ctx) => ({
      status: 200,
      body: await logs.get(callerIn(ctx, params.mode), params.id),
    }),
  };
}
