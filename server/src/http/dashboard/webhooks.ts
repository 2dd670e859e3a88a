import type { Domain } from "../../domain/service.js";
import { pageFromQuery } from "../router.js";
import type { TagHandlers } from "./context.js";

/** The account's webhook endpoints and their deliveries, per mode (spec/dashboard/webhooks.tsp). */
export function webhookHandlers(domain: Domain): TagHandlers<"Webhook endpoints"> {
  const webhooks = domain.dashboardWebhooks;
  return {
    listDashboardWebhookEndpoints: async ({ params, query }, { actor }) => ({
      status: 200,
      body: await webhooks.list(actor, params.mode, pageFromQuery(query)),
    }),
    createDashboardWebhookEndpoint: async ({ params, body }, { actor }) => ({
      status: 201,
      body: await webhooks.create(actor, params.mode, body),
    }),
    updateDashboardWebhookEndpoint: async ({ params, body }, { actor }) => ({
      status: 200,
      body: await webhooks.update(actor, params.mode, params.id, body),
    }),
    deleteDashboardWebhookEndpoint: async ({ params }, { actor }) => {
      await webhooks.remove(actor, params.mode, params.id);
      return { status: 204, body: undefined };
    },
    revealDashboardWebhookSecret: async ({ params }, { actor }) => ({
      status: 200,
      body: await webhooks.revealSecret(actor, params.mode, params.id),
    }),
    rotateDashboardWebhookSecret: async ({ params }, { actor }) => ({
      status: 200,
      body: await webhooks.rotateSecret(actor, params.mode, params.id),
    }),
    listDashboardWebhookDeliveries: async ({ params, query }, { actor }) => ({
      status: 200,
      body: await webhooks.listDeliveries(actor, params.mode, params.id, pageFromQuery(query)),
    }),
    resendDashboardWebhookDelivery: async ({ params }, { actor }) => ({
      status: 201,
      body: await webhooks.resend(actor, params.mode, params.id, params.deliveryId),
    }),
    sendDashboardWebhookTestEvent: async ({ params }, { actor }) => ({
      status: 201,
      body: await webhooks.sendTestEvent(actor, params.mode, params.id),
    }),
  };
}
