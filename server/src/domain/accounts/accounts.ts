import { createHash, randomUUID } from "node:crypto";
import type { StoreTx } from "../ports/store.js";
import { requireDocument } from "../core/documents.js";
import { DomainError } from "../core/errors.js";
import { newId, randomBase62 } from "../core/ids.js";
import { checkMerchantIdentity } from "./merchant-identity.js";
import { type Account, type ApiKeyRecord, type Plan } from "../core/model.js";
import { defaultPlan, type Permission, permissions, releasePeriodDays } from "../core/policy.js";

/** Every permission a key can hold: the spec's `Permission` enumeration (generated). */
export const allPermissions = permissions;

/** New keys, and keys that predate permissions, hold everything except withdrawing. */
export const defaultPermissions: Permission[] = allPermissions.filter((p) => p !== "withdrawals:write");

const testKeyPrefix = "svc_test_";
const liveKeyPrefix = "svc_";

/** SHA-256 of a secret, hex: the only form in which keys are stored. */
export const digestSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex");

/** The mode a secret claims by its prefix, or null when it is no key of ours. */
export function modeOfSecret(secret: string): "test" | "production" | null {
  if (secret.startsWith(testKeyPrefix)) return "test";
  if (secret.startsWith(liveKeyPrefix)) return "production";
  return null;
}

/**
 * Whether the account may take and move money in the mode: test mode always; production only once
 * the operator verified it.
 * docs/decisions/0043-production-needs-a-verified-account-and-keys-carry-their-makers-money-powers.md.
 */
export const operatesIn = (account: Pick<Account, "verified">, livemode: boolean): boolean =>
  !livemode || account.verified;

export interface NewAccount {
  name: string;
  ownerEmail: string;
  verified?: boolean | undefined;
  plan?: Partial<Plan> | undefined;
  releasePeriodDays?: number | undefined;
  merchantCity?: string | undefined;
  /** The merchant's CNPJ or CPF, with or without punctuation. */
  document?: string | undefined;
}

/**
 * The merchant's document as an account keeps it: a valid CNPJ or CPF, digits only, or none (null).
 * An invalid one is a `REQUEST_ERROR`, as a payer's is (docs/decisions/0004-api-conventions-the-seed-leaves-open.md, "Which 400").
 */
export function merchantDocument(input: string | null): Pick<Account, "documentType" | "document"> {
  if (input === null) return { documentType: null, document: null };
  return requireDocument(input);
}

export async function createAccount(tx: StoreTx, input: NewAccount, now: string): Promise<Account> {
  checkMerchantIdentity(input);
  const account: Account = {
    id: newId("acc"),
    name: input.name,
    ownerEmail: input.ownerEmail,
    verified: input.verified ?? false,
    plan: { ...defaultPlan, ...input.plan },
    releasePeriodDays: input.releasePeriodDays ?? releasePeriodDays.default,
    merchantCity: input.merchantCity ?? "SAO PAULO",
    pixKey: randomUUID(),
    ...merchantDocument(input.document ?? null),
    createdAt: now,
    updatedAt: now,
  };
  await tx.accounts.insert(account);
  return account;
}

export interface NewApiKey {
  name: string;
  livemode: boolean;
  permissions?: string[] | undefined;
  allowedIps?: string[] | undefined;
  dailyWithdrawLimitCents?: number | null | undefined;
}

/** A new secret of a key of this mode, with the visible prefix kept beside its digest. */
export function newKeySecret(livemode: boolean): { secret: string; prefix: string; digest: string } {
  const modePrefix = livemode ? liveKeyPrefix : testKeyPrefix;
  const secret = `${modePrefix}${randomBase62(32)}`;
  return { secret, prefix: secret.slice(0, modePrefix.length + 4), digest: digestSecret(secret) };
}

/** Creates a key (each permission once) and returns its secret, which exists only in this return value. */
export async function createApiKey(
  tx: StoreTx,
  account: Account,
  input: NewApiKey,
  now: string,
): Promise<{ key: ApiKeyRecord; secret: string }> {
  if (input.livemode && !account.verified) {
    throw new DomainError("ACCOUNT_NOT_ACTIVE", "Chaves de produção só podem ser criadas após a verificação da conta.");
  }
  const { secret, prefix, digest } = newKeySecret(input.livemode);
  const key: ApiKeyRecord = {
    id: newId("key"),
    accountId: account.id,
    name: input.name,
    livemode: input.livemode,
    prefix,
    digest,
    permissions: [...new Set(input.permissions ?? defaultPermissions)],
    allowedIps: [...(input.allowedIps ?? [])],
    dailyWithdrawLimitCents: input.dailyWithdrawLimitCents ?? null,
    revokedAt: null,
    previousDigest: null,
    previousPrefix: null,
    previousExpiresAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await tx.apiKeys.insert(key);
  return { key, secret };
}
