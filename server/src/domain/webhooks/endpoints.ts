import { randomBytes } from "node:crypto";
import { addSeconds } from "../core/time.js";
import { fieldError } from "../core/errors.js";
import { newId } from "../core/ids.js";
import type { DeliveryAttempt, DeliveryRecord, WebhookEndpointRecord, WebhookEventType } from "../core/model.js";
import { secretOverlapSeconds } from "../core/policy.js";

// What changes a webhook endpoint, whoever asks: the operator API (`operator.ts`) and the dashboard
// (`dashboard-webhooks.ts`) make and change the same record the same way (issue 25 §3).

/**
 * Checks a webhook URL at registration. Production endpoints must be https; the full SSRF guard
 * (resolution to public addresses, checked again at connect time) lives with delivery.
 */
export type UrlGuard = (url: string, livemode: boolean) => Promise<void>;

/** The guard without name resolution: http(s) only, https in production (`webhooks/guard.ts` is the full one). */
export const httpsForProduction: UrlGuard = async (url, livemode) => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw fieldError("url", "não é um endereço (URL) válido");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw fieldError("url", "deve ser http ou https");
  if (livemode && parsed.protocol !== "https:") throw fieldError("url", "endpoints de produção devem usar https");
};

const newWebhookSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

/** A new, enabled endpoint of one account and mode, with a new `whsec_` secret; each kind once. */
export function newEndpoint(
  input: { accountId: string; livemode: boolean; url: string; events: readonly WebhookEventType[] },
  now: string,
): WebhookEndpointRecord {
  return {
    id: newId("we"),
    accountId: input.accountId,
    livemode: input.livemode,
    url: input.url,
    events: [...new Set(input.events)],
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    disabledAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** What an endpoint may change to; a field left out stays as it is. */
export interface EndpointChanges {
  url?: string | undefined;
  events?: readonly WebhookEventType[] | undefined;
  /** `false` disables it (keeping when it was first disabled), `true` enables it again. */
  enabled?: boolean | undefined;
}

/** The endpoint changed (its URL already checked by the caller's `UrlGuard`). */
export function changedEndpoint(
  endpoint: WebhookEndpointRecord,
  changes: EndpointChanges,
  now: string,
): WebhookEndpointRecord {
  return {
    ...endpoint,
    url: changes.url ?? endpoint.url,
    events: changes.events ? [...new Set(changes.events)] : endpoint.events,
    disabledAt:
      changes.enabled === undefined ? endpoint.disabledAt : changes.enabled ? null : (endpoint.disabledAt ?? now),
    updatedAt: now,
  };
}

/** A new secret; the old one keeps signing beside it for `secretOverlapSeconds` (24 hours). */
export function rotatedEndpointSecret(endpoint: WebhookEndpointRecord, now: string): WebhookEndpointRecord {
  return {
    ...endpoint,
    secret: newWebhookSecret(),
    previousSecret: endpoint.secret,
    previousSecretExpiresAt: addSeconds(now, secretOverlapSeconds),
    updatedAt: now,
  };
}

/**
 * A delivery of one event to one endpoint, due at once: a recorded event's (`testEvent` null), or
 * a test event's, which the delivery carries itself.
 */
export function pendingDelivery(
  endpoint: Pick<WebhookEndpointRecord, "id" | "accountId" | "livemode">,
  event: { id: string; type: string },
  now: string,
  testEvent: Record<string, unknown> | null = null,
): DeliveryRecord {
  return {
    id: newId("del"),
    eventId: event.id,
    eventType: event.type,
    endpointId: endpoint.id,
    accountId: endpoint.accountId,
    livemode: endpoint.livemode,
    status: "PENDING",
    attempts: [],
    testEvent,
    nextAttemptAt: now,
    lockedUntil: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** An attempt as both APIs show it: `responseBody` null where it was not kept (attempts before it was). */
export const presentAttempt = (a: DeliveryAttempt) => ({
  at: a.at,
  status: a.status,
  durationMs: a.durationMs,
  error: a.error,
  responseBody: a.responseBody ?? null,
});
