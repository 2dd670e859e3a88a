import { newKeySecret } from "../accounts/index.js";
import { addSeconds } from "../core/time.js";
import { DomainError, fieldError } from "../core/errors.js";
import { ipRuleValid } from "./ip-rules.js";
import type { ApiKeyRecord } from "../core/model.js";

// What changes an API key, whoever asks: the operator API (`operator.ts`) and the dashboard
// (`dashboard-keys.ts`) change the same record the same way, so a key made or changed either way
// is one object (issue 25 §3). The secret of a new or rolled key exists only in the return value.

/** What a key's settings may change to; a field left out stays as it is. */
export interface ApiKeyChanges {
  permissions?: readonly string[] | undefined;
  allowedIps?: readonly string[] | undefined;
  /** A limit in cents, `null` for none, left out to keep it. */
  dailyWithdrawLimitCents?: number | null | undefined;
}

/** Refuses (`400 VALIDATION_ERROR` on the item) an IP rule that is no IPv4/IPv6 address or CIDR range. */
export function checkAllowedIps(ips: readonly string[] | undefined): void {
  ips?.forEach((rule, i) => {
    if (!ipRuleValid(rule)) throw fieldError(`allowedIps.${i}`, "não é um endereço IPv4/IPv6 nem uma faixa CIDR");
  });
}

/** The key with its permissions, IP list or daily limit changed; each permission once. Effective on the next request. */
export function changedApiKey(key: ApiKeyRecord, changes: ApiKeyChanges, now: string): ApiKeyRecord {
  return {
    ...key,
    permissions: changes.permissions ? [...new Set(changes.permissions)] : key.permissions,
    allowedIps: changes.allowedIps ? [...changes.allowedIps] : key.allowedIps,
    dailyWithdrawLimitCents:
      changes.dailyWithdrawLimitCents === undefined ? key.dailyWithdrawLimitCents : changes.dailyWithdrawLimitCents,
    updatedAt: now,
  };
}

/** The key revoked (once: revoking again keeps the first instant). It fails on the very next request. */
export function revokedApiKey(key: ApiKeyRecord, now: string): ApiKeyRecord {
  return { ...key, revokedAt: key.revokedAt ?? now, updatedAt: now };
}

/**
 * The key with a new secret: the one before stays accepted for `graceSeconds` (0: refused at
 * once), then is refused. One secret before is kept: a roll during another roll's grace ends that
 * grace (the secret before the last one is refused at once). A revoked key is not rolled.
 */
export function rolledApiKey(
  key: ApiKeyRecord,
  graceSeconds: number,
  now: string,
): { key: ApiKeyRecord; secret: string } {
  if (key.revokedAt !== null) {
    throw new DomainError("REQUEST_ERROR", "Uma chave revogada não pode ter o segredo renovado.");
  }
  const { secret, prefix, digest } = newKeySecret(key.livemode);
  const graceEnds = addSeconds(now, graceSeconds);
  const inGrace = graceEnds > now;
  return {
    key: {
      ...key,
      prefix,
      digest,
      previousDigest: inGrace ? key.digest : null,
      previousPrefix: inGrace ? key.prefix : null,
      previousExpiresAt: inGrace ? graceEnds : null,
      updatedAt: now,
    },
    secret,
  };
}

/** The secret before the key's last roll while it is still accepted: its prefix and until when; else null. */
export function secretInGrace(key: ApiKeyRecord, now: string): { prefix: string; expiresAt: string } | null {
  if (key.revokedAt !== null || key.previousPrefix === null || key.previousExpiresAt === null) return null;
  return key.previousExpiresAt > now ? { prefix: key.previousPrefix, expiresAt: key.previousExpiresAt } : null;
}
