import type { components } from "../../../../generated/admin-api.js";
import type { ApiKeyRecord } from "../core/model.js";
import { isPermission } from "../core/policy.js";
import { secretInGrace } from "./rules.js";

type Admin = components["schemas"];

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

/** What the audit log records of a key. */
export const keyFields = ["name", "permissions", "allowedIps", "dailyWithdrawLimitCents", "revokedAt"] as const;
