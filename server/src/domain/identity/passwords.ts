import { createRequire } from "node:module";
import { hash, type Options, verify } from "@node-rs/argon2";
import type * as ZxcvbnLanguageCommon from "@zxcvbn-ts/language-common";
import { DomainError, fieldError } from "../core/errors.js";
import type { PasswordHashCost } from "../deps.js";

// Passwords of the dashboard's users (issue 25; OWASP ASVS V2): argon2id at OWASP's parameters,
// a list of common passwords, and a verification that takes the same time whether the user exists.

// The cost (deps.ts `PasswordHashCost`): `minimal` exists for the tests, where a sign-up or a
// log-in at OWASP's parameters spends about 16 ms of CPU. A hash carries its parameters, so
// verifying one costs what making it did.
const argon2id = 2 satisfies NonNullable<Options["algorithm"]>; // Algorithm.Argon2id (a const enum, not importable here)
const argon2idOptions: Record<PasswordHashCost, Options> = {
  /** OWASP Password Storage Cheat Sheet: argon2id, 19 MiB, 2 iterations, 1 degree of parallelism. */
  owasp: { algorithm: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 },
  minimal: { algorithm: argon2id, memoryCost: 64, timeCost: 1, parallelism: 1 },
};

/** A password as stored: argon2id in its PHC string (salt and parameters included). */
export const hashPassword = (password: string, cost: PasswordHashCost = "owasp"): Promise<string> =>
  hash(password, argon2idOptions[cost]);

/** A hash of nothing anyone types, verified when there is no user, so that both answers take as long. */
const absentUserHashes = new Map<PasswordHashCost, Promise<string>>();

/** Makes the absent user's hash now, so that the first unknown address takes no longer than the others. */
export function prepareAbsentUserHash(cost: PasswordHashCost = "owasp"): Promise<string> {
  let made = absentUserHashes.get(cost);
  if (!made) absentUserHashes.set(cost, (made = hashPassword(`absent-${Math.random()}-${Date.now()}`, cost)));
  return made;
}

/**
 * Whether `password` is the one `passwordHash` was made from. With no hash (no such user), a hash
 * of a random text (made at `cost`, as the users' are) is verified all the same and the answer is
 * false: an unknown e-mail address and a wrong password take the same time.
 */
export async function passwordMatches(
  passwordHash: string | null,
  password: string,
  cost: PasswordHashCost = "owasp",
): Promise<boolean> {
  const against = passwordHash ?? (await prepareAbsentUserHash(cost));
  const ok = await verify(against, password).catch(() => false);
  return ok && passwordHash !== null;
}

/** The refusal of a wrong current password: its own class, so the HTTP layer counts it as a failed log-in. */
export class WrongCurrentPassword extends DomainError {
  constructor() {
    super("VALIDATION_ERROR", "Dados inválidos.", {
      errors: [{ path: "currentPassword", message: "não confere com a senha atual" }],
    });
  }
}

/**
 * Refuses (`400 VALIDATION_ERROR` on `currentPassword`) a password that is not the user's, where
 * a session asks for it again before a change (password change, turning on two-factor
 * authentication). The HTTP layer counts each refusal in the log-in's failure budgets
 * (docs/decisions/0040-enrolment-asks-the-password-and-step-up-failures-lock.md).
 */
export async function checkCurrentPassword(user: { passwordHash: string }, presented: string): Promise<void> {
  if (!(await passwordMatches(user.passwordHash, presented))) throw new WrongCurrentPassword();
}

/** Brazilian passwords the (mostly English) list lacks. */
const brazilianCommon = [
  "senha",
  "senha123",
  "mudar123",
  "brasil",
  "flamengo",
  "corinthians",
  "palmeiras",
  "saopaulo",
  "vasco",
  "gremio",
  "cruzeiro",
  "botafogo",
  "santos",
  "internacional",
  "amor",
  "jesus",
  "deusefiel",
  "minhasenha",
  "trocar",
  "acesso",
  "administrador",
  "loja",
];

let common: Set<string> | null = null;
/**
 * Some 49 000 common passwords (zxcvbn's list) and the Brazilian ones above, in lower case. The
 * package is required at the first new password, not imported: unpacking its lists was about 17 ms
 * of the server's start-up (docs/benchmarks.md, "Start-up").
 */
function commonPasswords(): Set<string> {
  if (common) return common;
  const { dictionary } = createRequire(import.meta.url)("@zxcvbn-ts/language-common") as typeof ZxcvbnLanguageCommon;
  common = new Set([...(dictionary["passwords-common"] as string[]), ...brazilianCommon].map((p) => p.toLowerCase()));
  return common;
}

/**
 * Whether a password is common: on the list as typed, or once the digits and symbols around it are
 * taken off (`Senha@2026!`, `flamengo1234`), or made of one repeated character or of digits only.
 */
function isCommonPassword(password: string): boolean {
  const lower = password.toLowerCase();
  const list = commonPasswords();
  if (list.has(lower)) return true;
  const core = lower.replace(/^[\p{N}\p{P}\p{S}\s]+|[\p{N}\p{P}\p{S}\s]+$/gu, "");
  if (list.has(core) || /^\p{N}+$/u.test(password)) return true;
  return /^(.)\1*$/su.test(password);
}

/**
 * Refuses a new password (400 on `field`) that is common, or that is the user's e-mail address or
 * name. Its length (12 to 128) is the spec's, checked by the request validation.
 */
export function checkNewPassword(password: string, field: string, personal: { email: string; name: string }): void {
  if (isCommonPassword(password)) throw fieldError(field, "é uma senha comum demais: escolha outra");
  const lower = password.toLowerCase().trim();
  const [local] = personal.email.toLowerCase().split("@");
  if (lower === personal.email.toLowerCase() || lower === local || lower === personal.name.toLowerCase().trim()) {
    throw fieldError(field, "não pode ser o seu e-mail nem o seu nome");
  }
}
