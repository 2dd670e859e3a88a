import { randomBytes } from "node:crypto";
import { addSeconds } from "../core/time.js";
import { fieldError } from "../core/errors.js";
import { newId } from "../core/ids.js";
import type { DeliveryAttempt, DeliveryRecord, WebhookEndpointRecord, WebhookEventType } from "../core/model.js";
import { secretOverlapSeconds } from "../core/policy.js";
import { isSealed, type Keyring } from "../core/secrets.js";
import type { StoreTx } from "../ports/store.js";

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

/**
 * A signing secret as the store keeps it: sealed under the keyring (core/secrets.ts), never in
 * clear (docs/decisions/0050-secrets-at-rest-and-the-bank-connection.md). The delivery worker
 * opens it to sign; the API shows it opened, at creation, reveal and rotation.
 */
export const sealWebhookSecret = (secrets: Keyring, secret: string): string => secrets.seal(secret, "webhook.secret");

/**
 * The clear secret of a stored one. A value written before sealing began (`whsec_…` in clear) is
 * taken as it is until start-up or `secrets rotate` seals it (sealed-secrets.ts).
 */
export const openWebhookSecret = (secrets: Keyring, stored: string): string =>
  isSealed(stored) ? secrets.open(stored, "webhook.secret") : stored;

/**
 * Holds one endpoint's row until the transaction ends: every change of an existing endpoint (its
 * address, kinds, secret) and the keyring's sweep (re-wrapping its secret under a new master key)
 * take it before reading the row, so neither writes over the other with what it read before.
 */
export const lockEndpoint = (tx: StoreTx, id: string): Promise<void> =>
  tx.lockScope({ accountId: `webhook-endpoint:${id}`, livemode: false });

/** A new `whsec_` secret, sealed. */
const newWebhookSecret = (secrets: Keyring) =>
  sealWebhookSecret(secrets, `whsec_${randomBytes(24).toString("base64")}`);

/** A new, enabled endpoint of one account and mode, with a new `whsec_` secret (sealed); each kind once. */
export function newEndpoint(
  input: { accountId: string; livemode: boolean; url: string; events: readonly WebhookEventType[] },
  now: string,
  secrets: Keyring,
): WebhookEndpointRecord {
  return {
    id: newId("we"),
    accountId: input.accountId,
    livemode: input.livemode,
    url: input.url,
    events: [...new Set(input.events)],
    secret: newWebhookSecret(secrets),
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

/** A new secret (sealed); the old one keeps signing beside it for `secretOverlapSeconds` (24 hours). */
export function rotatedEndpointSecret(
  endpoint: WebhookEndpointRecord,
  now: string,
  secrets: Keyring,
): WebhookEndpointRecord {
  return {
    ...endpoint,
    secret: newWebhookSecret(secrets),
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
