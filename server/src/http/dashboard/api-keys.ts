import type { Domain } from "../../domain/service.js";
import { pageFromQuery } from "../router.js";
import type { TagHandlers } from "./context.js";

/** The account's API keys, per mode (spec/dashboard/api-keys.tsp). */
export function apiKeyHandlers(domain: Domain): TagHandlers<"API keys"> {
  const keys = domain.dashboardKeys;
  return {
    listDashboardApiKeys: async ({ params, query }, { actor }) => ({
      status: 200,
      body: await keys.list(actor, params.mode, pageFromQuery(query)),
    }),
    createDashboardApiKey: async ({ params, body }, { actor }) => ({
      status: 201,
      body: await keys.create(actor, params.mode, body),
    }),
    updateDashboardApiKey: async ({ params, body }, { actor }) => ({
      status: 200,
      body: await keys.update(actor, params.mode, params.id, body),
    }),
    rollDashboardApiKey: async ({ params, body }, { actor }) => ({
      status: 200,
      body: await keys.roll(actor, params.mode, params.id, body),
    }),
    revokeDashboardApiKey: async ({ params }, { actor }) => ({
      status: 200,
      body: await keys.revoke(actor, params.mode, params.id),
    }),
  };
}
