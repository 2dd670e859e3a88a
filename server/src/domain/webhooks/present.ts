import type { components } from "../../../../generated/admin-api.js";
import type { DeliveryRecord, WebhookEndpointRecord } from "../core/model.js";
import { presentAttempt } from "./endpoints.js";

type Admin = components["schemas"];

export const presentEndpoint = (e: WebhookEndpointRecord): Admin["WebhookEndpoint"] => ({
  id: e.id,
  accountId: e.accountId,
  url: e.url,
  mode: e.livemode ? "production" : "test",
  events: [...e.events],
  enabled: e.disabledAt === null,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

export const presentDelivery = (d: DeliveryRecord): Admin["Delivery"] => ({
  id: d.id,
  eventId: d.eventId,
  endpointId: d.endpointId,
  status: d.status,
  attempts: d.attempts.map(presentAttempt),
  nextAttemptAt: d.nextAttemptAt,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

/** What the audit log records of a webhook endpoint (its secret: never). */
export const endpointFields = ["url", "events", "enabled"] as const;
