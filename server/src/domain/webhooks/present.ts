import type { components } from "../../../../generated/admin-api.js";
import type { components as DashboardComponents } from "../../../../generated/dashboard-api.js";
import type { DeliveryRecord, WebhookEndpointRecord } from "../core/model.js";
import { presentAttempt } from "./endpoints.js";

type Admin = components["schemas"];
type Dashboard = DashboardComponents["schemas"];

// One view of each record, for every reader: the operator API's, and the dashboard's from it.

/** An endpoint as the operator API shows it (never its secret). */
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

/** An endpoint as the dashboard shows it: the operator's view without the account (it is the caller's). */
export function presentDashboardEndpoint(e: WebhookEndpointRecord): Dashboard["WebhookEndpoint"] {
  const { accountId: _account, ...shown } = presentEndpoint(e);
  return shown;
}

/** A delivery with every attempt, as the operator API and a transaction's timeline show it. */
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

/** A delivery as the dashboard's endpoint page shows it: with its event's type too. */
export function presentDashboardDelivery(d: DeliveryRecord): Dashboard["WebhookDelivery"] {
  const { id, eventId, ...rest } = presentDelivery(d);
  return { id, eventId, eventType: d.eventType, ...rest };
}

/** What the audit log records of a webhook endpoint (its secret: never). */
export const endpointFields = ["url", "events", "enabled"] as const;
