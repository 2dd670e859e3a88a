import { Webhook } from "standardwebhooks";
import type { WebhookEndpointRecord } from "../domain/core/model.js";

/**
 * Standard Webhooks v1 headers for one delivery: `webhook-id` (the event id, stable across
 * retries), `webhook-timestamp` (Unix seconds) and `webhook-signature`. While a rotated secret
 * overlaps, the body is signed with the new and the old secret (space-separated signatures).
 * `at` is wall-clock time (receivers compare it with theirs); `now` is the domain clock.
 */
export function signDelivery(
  endpoint: Pick<WebhookEndpointRecord, "secret" | "previousSecret" | "previousSecretExpiresAt">,
  eventId: string,
  body: string,
  at: Date,
  /** The domain's now, which decides whether the rotation overlap is still open. */
  now: string = at.toISOString(),
): Record<string, string> {
  const secrets = [endpoint.secret];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
    secrets.push(endpoint.previousSecret);
  }
  const signature = secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(" ");
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signature,
  };
}
