import { digestSecret, modeOfSecret } from "../accounts/index.js";
import type { Actor, DomainDeps } from "../deps.js";
import { DomainError, type ErrorCode } from "../core/errors.js";
import { ipAllowed } from "./ip-rules.js";
import type { ApiKeyRecord } from "../core/model.js";
import type { KeyWithAccount } from "../ports/store.js";

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
 * Whether the presented secret is the key's: its current one, or the one before its last roll
 * while the roll's grace runs (`now` is read only then).
 */
function secretAccepted(key: ApiKeyRecord, digest: string, now: () => string): boolean {
  if (key.digest === digest) return true;
  return key.previousDigest === digest && key.previousExpiresAt !== null && key.previousExpiresAt > now();
}

/**
 * Who is calling, or why not, from the key the store found for the presented one: 401
 * `UNAUTHORIZED` for a missing, unknown, revoked or mode-mismatched key, or a rolled secret past
 * its grace; then 403 `ACCOUNT_NOT_ACTIVE`, `API_KEY_IP` and `API_KEY_PERMISSION`, in that order.
 */
function authorizeKey(
  presented: PresentedKey | null,
  found: KeyWithAccount | null,
  { ip, permission }: Pick<Credentials, "ip" | "permission">,
  now: () => string,
): Actor {
  const key = found?.key;
  if (
    !presented ||
    !key ||
    key.revokedAt !== null ||
    key.livemode !== presented.livemode ||
    !secretAccepted(key, presented.digest, now)
  ) {
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

/** How many keys `recall` remembers per process; past it, it starts over. */
const recalledKeys = 10_000;

/**
 * A key's use is written at most once in this many milliseconds per process: "last used" is
 * exact to the minute (docs/decisions/0031-api-keys-in-the-dashboard.md, "Last used"), and the public request path writes nothing
 * on all the other requests.
 */
export const keyUseResolutionMs = 60_000;

/**
 * The key is read on every request, so a revoked key stops working on the next one in every
 * process: by `authenticate`, or by a read that confirms the key in its own statement (`recall`).
 */
export function authenticationUseCases(deps: DomainDeps) {
  const { store, clock, logger } = deps;
  const now = () => clock.now().toISOString();
  /** The key each digest named when this process last read it, with its version. */
  let lastRead = new Map<string, KeyWithAccount>();
  /** When this process last wrote each key's use (clock milliseconds), by key id. */
  let usesWritten = new Map<string, number>();
  /**
   * The key each request's credentials present, digested once per request: a read recalls it in
   * the request and the request log names its key after the answer (a SHA-256 each, about 1 % of a
   * list's server time).
   */
  const presentedOnce = new WeakMap<Credentials, PresentedKey | null>();
  const presentedBy = (credentials: Credentials): PresentedKey | null => {
    let presented = presentedOnce.get(credentials);
    if (presented === undefined) {
      presented = presentedKey(credentials.secret);
      presentedOnce.set(credentials, presented);
    }
    return presented;
  };

  /**
   * Notes that `actor`'s key admitted a request: written (without waiting for it, outside the
   * request's work) when this process has not written it in the last minute. A failed write is
   * logged, never answered: the request it notes stands.
   */
  function noteUse(actor: Actor): void {
    const at = clock.now();
    const written = usesWritten.get(actor.apiKey.id);
    if (written !== undefined && at.getTime() - written < keyUseResolutionMs) return;
    if (usesWritten.size >= recalledKeys) usesWritten = new Map();
    usesWritten.set(actor.apiKey.id, at.getTime());
    store
      .recordKeyUse(actor.apiKey.id, at.toISOString())
      .catch((err: unknown) => logger.warn({ err, keyId: actor.apiKey.id }, "key use not recorded"));
  }

  return {
    async authenticate(credentials: Credentials): Promise<Actor> {
      const presented = presentedBy(credentials);
      // A rolled key's secret before the roll is looked up only when no key's current one is it:
      // the current secret, every request's case, costs the one read it always did.
      const found = presented
        ? ((await store.read.apiKeys.getByDigestWithAccount(presented.digest)) ??
          (await store.read.apiKeys.getByPreviousDigestWithAccount(presented.digest)))
        : null;
      if (presented && found) {
        if (lastRead.size >= recalledKeys) lastRead = new Map();
        lastRead.set(presented.digest, found);
      }
      const actor = authorizeKey(presented, found, credentials, now);
      noteUse(actor);
      return actor;
    },

    /**
     * The caller as the key read last in this process would authorize it, unconfirmed: a read that
     * acts on it must confirm, in its own statement, that the key is still at `key.version`
     * (`transactions.listWhileKeyUnchanged`), and use nothing it read otherwise. Null when this
     * process has not read the key, or would not authorize the caller on it: `authenticate` decides.
     * The key's use is the confirming read's to note (`noteUse`), once it confirmed.
     */
    recall(credentials: Credentials): { actor: Actor; key: { digest: string; version: string } } | null {
      const presented = presentedBy(credentials);
      const found = presented ? lastRead.get(presented.digest) : undefined;
      if (!presented || !found) return null;
      try {
        const actor = authorizeKey(presented, found, credentials, now);
        return { actor, key: { digest: presented.digest, version: found.version } };
      } catch {
        return null;
      }
    },

    noteUse,
  };
}

export type Authentication = ReturnType<typeof authenticationUseCases>;
