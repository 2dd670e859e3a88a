import { digestSecret, modeOfSecret } from "./accounts.js";
import type { Actor, DomainDeps } from "./deps.js";
import { DomainError } from "./errors.js";
import { ipAllowed } from "./ip-rules.js";

export interface Credentials {
  /** The secret the caller presented, or null when it presented none. */
  secret: string | null;
  /** The caller's address as the HTTP layer decided it (after `trust proxy`). */
  ip: string | undefined;
  /** The permission the operation requires. */
  permission: string;
}

/**
 * Who is calling, or why not: 401 `UNAUTHORIZED` for a missing, unknown, revoked or mode-mismatched
 * key; then 403 `ACCOUNT_NOT_ACTIVE`, `API_KEY_IP` and `API_KEY_PERMISSION`, in that order. Read on
 * every request, so a revoked key stops working on the next one in every process.
 */
export function authenticationUseCases(deps: DomainDeps) {
  const { store } = deps;
  return {
    async authenticate({ secret, ip, permission }: Credentials): Promise<Actor> {
      const claimed = secret ? modeOfSecret(secret) : null;
      const found = secret && claimed ? await store.read.apiKeys.getByDigestWithAccount(digestSecret(secret)) : null;
      const key = found?.key;
      if (!key || key.revokedAt !== null || key.livemode !== (claimed === "production")) {
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
    },
  };
}
