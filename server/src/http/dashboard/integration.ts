import type { Handlers } from "../../../../generated/dashboard-operations.js";
import type { Domain } from "../../domain/service.js";
import type { DashboardContext } from "./context.js";
import { actorOf } from "./context.js";
import { pageFromQuery } from "../router.js";

type IntegrationOperation =
  | "listDashboardApiKeys"
  | "createDashboardApiKey"
  | "updateDashboardApiKey"
  | "rollDashboardApiKey"
  | "revokeDashboardApiKey"
  | "listDashboardWebhookEndpoints"
  | "createDashboardWebhookEndpoint"
  | "updateDashboardWebhookEndpoint"
  | "revealDashboardWebhookSecret"
  | "rotateDashboardWebhookSecret"
  | "listDashboardWebhookDeliveries"
  | "resendDashboardWebhookDelivery"
  | "sendDashboardWebhookTestEvent";

/** The account's API keys and webhook endpoints, per mode (spec/dashboard/api-keys.tsp, webhooks.tsp). */
export function dashboardIntegrationHandlers(domain: Domain): Pick<Handlers<DashboardContext>, IntegrationOperation> {
  const { dashboardKeys: keys, dashboardWebhooks: webhooks } = domain;
  return {
    listDashboardApiKeys: async ({ params, query }, ctx) => ({
      status: 200,
      body: await keys.list(actorOf(ctx), params.mode, pageFromQuery(query)),
    }),
    createDashboardApiKey: async ({ params, body }, ctx) => ({
      status: 201,
      body: await keys.create(actorOf(ctx), params.mode, body),
    }),
    updateDashboardApiKey: async ({ params, body }, ctx) => ({
      status: 200,
      body: await keys.update(actorOf(ctx), params.mode, params.id, body),
    }),
    rollDashboardApiKey: async ({ params, body }, ctx) => ({
      status: 200,
      body: await keys.roll(actorOf(ctx), params.mode, params.id, body),
    }),
    revokeDashboardApiKey: async ({ params }, ctx) => ({
      status: 200,
      body: await keys.revoke(actorOf(ctx), params.mode, params.id),
    }),
    listDashboardWebhookEndpoints: async ({ params, query }, ctx) => ({
      status: 200,
      body: await webhooks.list(actorOf(ctx), params.mode, pageFromQuery(query)),
    }),
    createDashboardWebhookEndpoint: async ({ params, body }, ctx) => ({
      status: 201,
      body: await webhooks.create(actorOf(ctx), params.mode, body),
    }),
    updateDashboardWebhookEndpoint: async ({ params, body }, ctx) => ({
      status: 200,
      body: await webhooks.update(actorOf(ctx), params.mode, params.id, body),
    }),
    revealDashboardWebhookSecret: async ({ params }, ctx) => ({
      status: 200,
      body: await webhooks.revealSecret(actorOf(ctx), params.mode, params.id),
    }),
    rotateDashboardWebhookSecret: async ({ params }, ctx) => ({
      status: 200,
      body: await webhooks.rotateSecret(actorOf(ctx), params.mode, params.id),
    }),
    listDashboardWebhookDeliveries: async ({ params, query }, ctx) => ({
      status: 200,
      body: await webhooks.listDeliveries(actorOf(ctx), params.mode, params.id, pageFromQuery(query)),
    }),
    resendDashboardWebhookDelivery: async ({ params }, ctx) => ({
      status: 201,
      body: await webhooks.resend(actorOf(ctx), params.mode, params.id, params.deliveryId),
    }),
    sendDashboardWebhookTestEvent: async ({ params }, ctx) => ({
      status: 201,
      body: await webhooks.sendTestEvent(actorOf(ctx), params.mode, params.id),
    }),
  };
}
