import { createHash, randomBytes } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import { isSealed, type Keyring } from "../core/secrets.js";
import type { UserRecord } from "./model.js";

// The second factor of the dashboard's users (issue 25; OWASP ASVS V2.8): TOTP (RFC 6238: SHA-1,
// 6 digits, 30 s, one step of drift either way, each code once) and single-use recovery codes.

const issuer = "Pix Charging Service";
const periodSeconds = 30;

/** How long a log-in or step-up with the second factor allows dangerous operations. */
export { stepUpSeconds } from "../core/policy.js";

const totp = (secret: string, label: string) =>
  new TOTP({ issuer, label, algorithm: "SHA1", digits: 6, period: periodSeconds, secret: Secret.fromBase32(secret) });

/** A new TOTP secret (160 bits, base32) and the `otpauth://` URI an authenticator app reads. */
export function newTotpSecret(email: string): { secret: string; otpauthUri: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, otpauthUri: totp(secret, email).toString() };
}

/**
 * A TOTP secret as the store keeps it: sealed under the keyring (core/secrets.ts), never in clear
 * (docs/decisions/0050-secrets-at-rest-and-the-bank-connection.md).
 */
export const sealTotp = (secrets: Keyring, secret: string): string => secrets.seal(secret, "totp");

/**
 * The clear secret of a stored one. A value written before sealing began (clear base32) is taken
 * as it is until start-up or `secrets rotate` seals it (`sealClearTotpSecrets`).
 */
export const openTotp = (secrets: Keyring, stored: string): string =>
  isSealed(stored) ? secrets.open(stored, "totp") : stored;

/** The time step of a TOTP code valid now (one step of drift either way), or null. */
export function totpStep(secret: string, code: string, nowMs: number): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const delta = totp(secret, "").validate({ token: code, timestamp: nowMs, window: 1 });
  return delta === null ? null : Math.floor(nowMs / 1000 / periodSeconds) + delta;
}

/** Recovery codes are `XXXX-XXXX` of 32 unambiguous letters and digits (40 bits each). */
const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const recoveryDigest = (code: string) => createHash("sha256").update(code.replace("-", "").toUpperCase()).digest("hex");

/** Ten new recovery codes, and what the user keeps of them (their digests). */
export function newRecoveryCodes(): { codes: string[]; digests: string[] } {
  const codes = Array.from({ length: 10 }, () => {
    const chars = [...randomBytes(8)].map((byte) => alphabet[byte % alphabet.length]).join("");
    return `${chars.slice(0, 4)}-${chars.slice(4)}`;
  });
  return { codes, digests: codes.map(recoveryDigest) };
}

/**
 * A second-factor code checked: the user as it stands once the code is spent (its TOTP step
 * taken, or its recovery code gone), or why it was refused: `reused`, a TOTP code valid now whose
 * step was already taken (the user waits for the next one), or `wrong`.
 */
export type SpentSecondFactor = { user: UserRecord } | { refused: "wrong" | "reused" };

/** Checks a second-factor code of `user` (see `SpentSecondFactor`). */
export function spendSecondFactor(user: UserRecord, code: string, nowMs: number, secrets: Keyring): SpentSecondFactor {
  if (!user.totpSecret) return { refused: "wrong" };
  const step = totpStep(openTotp(secrets, user.totpSecret), code, nowMs);
  if (step !== null) {
    if (user.totpLastStep !== null && step <= user.totpLastStep) return { refused: "reused" };
    return { user: { ...user, totpLastStep: step } };
  }
  const digest = recoveryDigest(code);
  if (!user.recoveryCodeDigests.includes(digest)) return { refused: "wrong" };
  return { user: { ...user, recoveryCodeDigests: user.recoveryCodeDigests.filter((d) => d !== digest) } };
}

/** What a person reads when a TOTP code valid now was already used in its window. */
export const reusedCodeMessage = "Este código já foi usado; aguarde o próximo.";
