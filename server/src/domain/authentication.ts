import { digestSecret, modeOfSecret } from "./accounts.js";
import type { Actor, DomainDeps } from "./deps.js";
import { DomainError, type ErrorCode } from "./errors.js";
import { ipAllowed } from "./ip-rules.js";
import type { KeyWithAccount } from "./ports/store.js";

export interface Credentials {
  /** The secret the caller presented, or null when it presented none. */
  secret: string | null;
  /** The caller's address as the HTTP layer decided it (after `trust proxy`). */
  ip: string | undefined;
  /** The permission the operation requires. */
  permission: string;
}

/** A presented secret that claims to be one of our keys: its digest (the store's lookup) and the mode its prefix claims. */
interface PresentedKey {
  digest: string;
  livemode: boolean;
}

/** The key a secret names, or null when the caller presented none or one that is no key of ours. */
function presentedKey(secret: string | null): PresentedKey | null {
  const claimed = secret ? modeOfSecret(secret) : null;
  return secret && claimed ? { digest: digestSecret(secret), livemode: claimed === "production" } : null;
}

/** The answers that decide on a caller: an error with one of these codes is the authentication's own. */
export const authenticationCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "UNAUTHORIZED",
  "ACCOUNT_NOT_ACTIVE",
  "API_KEY_IP",
  "API_KEY_PERMISSION",
]);

/**
 * Who is calling, or why not, from the key the store found for the presented one: 401
 * `UNAUTHORIZED` for a missing, unknown, revoked or mode-mismatched key; then 403
 * `ACCOUNT_NOT_ACTIVE`, `API_KEY_IP` and `API_KEY_PERMISSION`, in that order.
 */
function admit(
  presented: PresentedKey | null,
  found: KeyWithAccount | null,
  { ip, permission }: Pick<Credentials, "ip" | "permission">,
): Actor {
  const key = found?.key;
  if (!presented || !key || key.revokedAt !== null || key.livemode !== presented.livemode) {
    throw new DomainError("UNAUTHORIZED");
  }
  const account = found.account;
  if (!account) throw new DomainError("UNAUTHORIZED");
  if (key.livemode && !account.verified) throw new DomainError("ACCOUNT_NOT_ACTIVE");
  if (!ipAllowed(ip, key.allowedIps)) {
    throw new DomainError(
      "API_KEY_IP",
      `O endereço IP ${ip ?? "desconhecido"} não está autorizado para esta chave de API.`,
    );
  }
  if (!key.permissions.includes(permission)) {
    throw new DomainError("API_KEY_PERMISSION", `A chave de API não tem a permissão necessária: ${permission}.`);
  }
  return { scope: { accountId: account.id, livemode: key.livemode }, account, apiKey: key };
}

/** The key is read on every request, so a revoked key stops working on the next one in every process. */
export function authenticationUseCases(deps: DomainDeps) {
  const { store } = deps;
  return {
    async authenticate(credentials: Credentials): Promise<Actor> {
      const presented = presentedKey(credentials.secret);
      const found = presented ? await store.read.apiKeys.getByDigestWithAccount(presented.digest) : null;
      return admit(presented, found, credentials);
    },
  };
}

export type Authentication = ReturnType<typeof authenticationUseCases>;
