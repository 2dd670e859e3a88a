import type { components } from "../../../generated/admin-api.js";
import type { Account, ApiKeyRecord, DeliveryRecord, WebhookEndpointRecord } from "./model.js";
import { isPermission } from "./policy.js";
import { presentAttempt } from "./webhook-endpoints.js";

// The operator API's views of accounts, keys, endpoints and deliveries, and the fields of each that
// the audit log records when they change (never a secret).

type Admin = components["schemas"];

export const presentAccount = (a: Account): Admin["Account"] => ({
  id: a.id,
  name: a.name,
  ownerEmail: a.ownerEmail,
  verified: a.verified,
  plan: { ...a.plan },
  releasePeriodDays: a.releasePeriodDays,
  merchantCity: a.merchantCity,
  pixKey: a.pixKey,
  documentType: a.documentType,
  document: a.document,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});

export const presentApiKey = (k: ApiKeyRecord): Admin["ApiKey"] => ({
  id: k.id,
  accountId: k.accountId,
  name: k.name,
  mode: k.livemode ? "production" : "test",
  prefix: k.prefix,
  // Only what the spec's `Permission` names: a key stored with anything else shows without it.
  permissions: k.permissions.filter(isPermission),
  allowedIps: [...k.allowedIps],
  dailyWithdrawLimitCents: k.dailyWithdrawLimitCents,
  revokedAt: k.revokedAt,
  createdAt: k.createdAt,
  updatedAt: k.updatedAt,
});

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

/** What the audit log records of an account's settings (never a secret). */
export const accountFields = [
  "name",
  "ownerEmail",
  "verified",
  "plan",
  "releasePeriodDays",
  "merchantCity",
  "documentType",
  "document",
] as const;
/** What the audit log records of a key. */
export const keyFields = ["name", "permissions", "allowedIps", "dailyWithdrawLimitCents", "revokedAt"] as const;
/** What the audit log records of a webhook endpoint (its secret: never). */
export const endpointFields = ["url", "events", "enabled"] as const;
