import { changedFields, recordAudit, recordAuditIfChanged } from "../audit/index.js";
import { type AuditedBy } from "../audit/model.js";
import type { WebhookEndpointRecord } from "../core/model.js";
import { endpointFields, presentEndpoint } from "./present.js";
import type { StoreTx } from "../ports/store.js";
import { changedEndpoint, type EndpointChanges, rotatedEndpointSecret } from "./endpoints.js";

// The changes of a webhook endpoint that the operator API (`operator.ts`) and the dashboard
// (`dashboard-webhooks.ts`) both make, each written with its audit entry in the caller's
// transaction (never the secret): one way, whoever asks. As `key-changes.ts` is for keys.

/** Inserts the new endpoint and records its fields. */
export async function insertEndpointAudited(
  tx: StoreTx,
  endpoint: WebhookEndpointRecord,
  by: AuditedBy,
  at: string,
): Promise<void> {
  await tx.webhookEndpoints.insert(endpoint);
  await recordAudit(tx, {
    accountId: endpoint.accountId,
    by,
    action: "webhook_endpoint.created",
    target: { type: "webhook_endpoint", id: endpoint.id },
    livemode: endpoint.livemode,
    changes: changedFields(null, presentEndpoint(endpoint), endpointFields),
    at,
  });
}

/** Writes `changes` to the endpoint and records what changed (no entry when nothing did). */
export async function updateEndpointAudited(
  tx: StoreTx,
  endpoint: WebhookEndpointRecord,
  changes: EndpointChanges,
  by: AuditedBy,
  at: string,
): Promise<WebhookEndpointRecord> {
  const changed = changedEndpoint(endpoint, changes, at);
  await tx.webhookEndpoints.update(changed);
  await recordAuditIfChanged(tx, {
    accountId: endpoint.accountId,
    by,
    action: "webhook_endpoint.updated",
    target: { type: "webhook_endpoint", id: endpoint.id },
    livemode: endpoint.livemode,
    changes: changedFields(presentEndpoint(endpoint), presentEndpoint(changed), endpointFields),
    at,
  });
  return changed;
}

/** Gives the endpoint a new secret (the old one signs beside it for a while) and records that it did. */
export async function rotateEndpointSecretAudited(
  tx: StoreTx,
  endpoint: WebhookEndpointRecord,
  by: AuditedBy,
  at: string,
): Promise<WebhookEndpointRecord> {
  const rotated = rotatedEndpointSecret(endpoint, at);
  await tx.webhookEndpoints.update(rotated);
  await recordAudit(tx, {
    accountId: endpoint.accountId,
    by,
    action: "webhook_endpoint.secret_rotated",
    target: { type: "webhook_endpoint", id: endpoint.id },
    livemode: endpoint.livemode,
    at,
  });
  return rotated;
}
