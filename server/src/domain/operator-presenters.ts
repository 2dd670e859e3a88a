import type { components } from "../../../generated/admin-api.js";
import type { Account, ApiKeyRecord, DeliveryRecord, WebhookEndpointRecord } from "./model.js";
import { secretInGrace } from "./api-keys.js";
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

/** What the audit log compares of a key (`keyFields`), and the operator's view without its uses. */
type KeyRecordView = Omit<Admin["ApiKey"], "lastUsedAt" | "previousSecretPrefix" | "previousSecretExpiresAt">;

export const presentApiKey = (k: ApiKeyRecord): KeyRecordView => ({
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

/**
 * A key as the operator API answers it: with when it was last used, and the secret before its
 * last roll while that is still accepted (the dashboard's view of the same key, `dashboard-keys.ts`).
 */
export function presentOperatorKey(k: ApiKeyRecord, lastUsedAt: string | null, now: string): Admin["ApiKey"] {
  const grace = secretInGrace(k, now);
  return {
    ...presentApiKey(k),
    lastUsedAt,
    previousSecretPrefix: grace?.prefix ?? null,
    previousSecretExpiresAt: grace?.expiresAt ?? null,
  };
}

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
