import { type ApiKeyChanges, changedApiKey, revokedApiKey } from "./rules.js";
import { recordChange, writeAudited } from "../audit/index.js";
import { type AuditedBy } from "../audit/model.js";
import { createApiKey, type NewApiKey } from "../accounts/index.js";
import type { Account, ApiKeyRecord } from "../core/model.js";
import { keyFields, presentApiKey } from "./present.js";
import type { StoreTx } from "../ports/store.js";

// The creation and changes of a key that the operator API (`operator.ts`) and the dashboard (`dashboard-keys.ts`)
// both make, each written with its audit entry in the caller's transaction: one way, whoever asks.

/** Creates the account's key and records its fields; the secret is only in the return value. */
export async function createKeyAudited(
  tx: StoreTx,
  account: Account,
  input: NewApiKey,
  by: AuditedBy,
  at: string,
): Promise<{ key: ApiKeyRecord; secret: string }> {
  const made = await createApiKey(tx, account, input, at);
  await recordChange(tx, {
    by,
    action: "api_key.created",
    target: "api_key",
    before: null,
    after: made.key,
    present: presentApiKey,
    fields: keyFields,
    at,
  });
  return made;
}

/** Writes `changes` to the key and records what changed (no entry when nothing did). */
export const updateKeyAudited = (tx: StoreTx, key: ApiKeyRecord, changes: ApiKeyChanges, by: AuditedBy, at: string) =>
  writeAudited(tx, tx.apiKeys, {
    by,
    action: "api_key.updated",
    target: "api_key",
    before: key,
    after: changedApiKey(key, changes, at),
    present: presentApiKey,
    fields: keyFields,
    onlyIfChanged: true,
    at,
  });

/** Revokes the key; the audit log has one entry, from the first revocation (a second changes nothing). */
export const revokeKeyAudited = (tx: StoreTx, key: ApiKeyRecord, by: AuditedBy, at: string) =>
  writeAudited(tx, tx.apiKeys, {
    by,
    action: "api_key.revoked",
    target: "api_key",
    before: key,
    after: revokedApiKey(key, at),
    fields: ["revokedAt"],
    onlyIfChanged: true,
    at,
  });
