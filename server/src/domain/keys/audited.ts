import { type ApiKeyChanges, changedApiKey, revokedApiKey } from "./rules.js";
import { changedFields, recordAudit, recordAuditIfChanged } from "../audit/index.js";
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
  await recordAudit(tx, {
    accountId: account.id,
    by,
    action: "api_key.created",
    target: { type: "api_key", id: made.key.id },
    livemode: made.key.livemode,
    changes: changedFields(null, presentApiKey(made.key), keyFields),
    at,
  });
  return made;
}

/** Writes `changes` to the key and records what changed (no entry when nothing did). */
export async function updateKeyAudited(
  tx: StoreTx,
  key: ApiKeyRecord,
  changes: ApiKeyChanges,
  by: AuditedBy,
  at: string,
): Promise<ApiKeyRecord> {
  const changed = changedApiKey(key, changes, at);
  await tx.apiKeys.update(changed);
  await recordAuditIfChanged(tx, {
    accountId: key.accountId,
    by,
    action: "api_key.updated",
    target: { type: "api_key", id: key.id },
    livemode: key.livemode,
    changes: changedFields(presentApiKey(key), presentApiKey(changed), keyFields),
    at,
  });
  return changed;
}

/** Revokes the key; the audit log has one entry, from the first revocation. */
export async function revokeKeyAudited(
  tx: StoreTx,
  key: ApiKeyRecord,
  by: AuditedBy,
  at: string,
): Promise<ApiKeyRecord> {
  const revoked = revokedApiKey(key, at);
  await tx.apiKeys.update(revoked);
  if (key.revokedAt === null) {
    await recordAudit(tx, {
      accountId: key.accountId,
      by,
      action: "api_key.revoked",
      target: { type: "api_key", id: key.id },
      livemode: key.livemode,
      changes: changedFields(key, revoked, ["revokedAt"]),
      at,
    });
  }
  return revoked;
}
