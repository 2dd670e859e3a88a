import { recordChange, writeAudited } from "../audit/index.js";
import type { Keyring } from "../core/secrets.js";
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
  await writeAudited(tx, tx.webhookEndpoints, {
    by,
    action: "webhook_endpoint.created",
    target: "webhook_endpoint",
    before: null,
    after: endpoint,
    present: presentEndpoint,
    fields: endpointFields,
    at,
  });
}

/** Writes `changes` to the endpoint and records what changed (no entry when nothing did). */
export const updateEndpointAudited = (
  tx: StoreTx,
  endpoint: WebhookEndpointRecord,
  changes: EndpointChanges,
  by: AuditedBy,
  at: string,
) =>
  writeAudited(tx, tx.webhookEndpoints, {
    by,
    action: "webhook_endpoint.updated",
    target: "webhook_endpoint",
    before: endpoint,
    after: changedEndpoint(endpoint, changes, at),
    present: presentEndpoint,
    fields: endpointFields,
    onlyIfChanged: true,
    at,
  });

/** Gives the endpoint a new secret (the old one signs beside it for a while) and records that it did (never the secret). */
export const rotateEndpointSecretAudited = (
  tx: StoreTx,
  endpoint: WebhookEndpointRecord,
  by: AuditedBy,
  at: string,
  secrets: Keyring,
) =>
  writeAudited(tx, tx.webhookEndpoints, {
    by,
    action: "webhook_endpoint.secret_rotated",
    target: "webhook_endpoint",
    before: endpoint,
    after: rotatedEndpointSecret(endpoint, at, secrets),
    fields: [],
    at,
  });

/** Deletes the endpoint (its pending deliveries stop) and records the fields it had. */
export async function deleteEndpointAudited(
  tx: StoreTx,
  endpoint: WebhookEndpointRecord,
  by: AuditedBy,
  at: string,
): Promise<void> {
  await tx.webhookEndpoints.delete(endpoint.id);
  await recordChange(tx, {
    by,
    action: "webhook_endpoint.deleted",
    target: "webhook_endpoint",
    before: endpoint,
    after: null,
    present: presentEndpoint,
    fields: endpointFields,
    at,
  });
}
