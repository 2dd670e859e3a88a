import { sealTotp } from "../identity/index.js";
import { lockEndpoint, sealWebhookSecret } from "../webhooks/index.js";
import { isSealed, type Keyring, SecretUnreadableError } from "../core/secrets.js";
import type { DomainDeps } from "../deps.js";

// The secrets kept sealed in the store (docs/decisions/0050-secrets-at-rest-and-the-bank-connection.md):
// the dashboard users' TOTP secrets, the webhook endpoints' signing secrets and the bank
// connection's client secret and certificate. At start-up every one is checked against the keyring
// (a process whose MASTER_KEYS cannot open them refuses to start, naming the key missing) and any
// TOTP or webhook secret still in clear (written before sealing began) is sealed; a rotation
// re-wraps every one under the keyring's newest key. Neither logs a secret: only counts and key ids.

/** Records read per batch. */
const batch = 200;

/** How a kind of secret is sealed (`sealTotp`, `sealWebhookSecret`: each with its purpose). */
type Seal = (keyring: Keyring, plain: string) => string;

/** A start-up refusal: the keyring cannot open what the store holds. */
export class MasterKeyMismatchError extends Error {
  constructor(keyId: string | null, keyIds: string[]) {
    super(
      keyId === null
        ? "MASTER_KEYS: um segredo guardado está ilegível (alterado ou em formato desconhecido)."
        : `MASTER_KEYS não abre os segredos guardados: eles usam a chave "${keyId}", e MASTER_KEYS tem ${keyIds.map((k) => `"${k}"`).join(", ")}. ` +
            "Inclua a chave com que foram selados (a rotação acrescenta uma chave nova, sem remover a anterior antes de `secrets rotate`).",
    );
    this.name = "MasterKeyMismatchError";
  }
}

export function sealedSecretUseCases(deps: DomainDeps) {
  const { store, secrets, clock } = deps;

  /**
   * The records `list` pages (by id, `batch` at a time) whose secrets (`secretsOf`) `change` alters,
   * each given to `write`, which changes it in a transaction of its own and answers how many of its
   * secrets it changed; answers the sum. A record `change` leaves as it is costs no transaction:
   * every process's start-up walks every record.
   */
  async function sweep<T extends { id: string }>(
    list: (afterId: string | null, limit: number) => Promise<T[]>,
    secretsOf: (record: T) => (string | null)[],
    change: (stored: string) => string,
    write: (listed: T) => Promise<number>,
  ): Promise<number> {
    let changed = 0;
    for (let after: string | null = null; ;) {
      const page = await list(after, batch);
      for (const listed of page) {
        if (secretsOf(listed).some((stored) => stored !== null && change(stored) !== stored)) {
          changed += await write(listed);
        }
      }
      if (page.length < batch) return changed;
      after = page.at(-1)?.id ?? null;
    }
  }

  /**
   * Every user holding a TOTP secret, each changed by `change` in a transaction of its own (its row
   * locked, read again there); answers how many `change` altered.
   */
  const eachTotpUser = (change: (stored: string) => string) =>
    sweep(
      (after, limit) => store.read.users.listWithTotpSecret(after, limit),
      (user) => [user.totpSecret, user.totpPendingSecret],
      change,
      (listed) =>
        store.transaction(async (tx) => {
          await tx.lockScope({ accountId: `user:${listed.id}`, livemode: false });
          const user = await tx.users.get(listed.id);
          if (!user) return 0;
          const totpSecret = user.totpSecret === null ? null : change(user.totpSecret);
          const totpPendingSecret = user.totpPendingSecret === null ? null : change(user.totpPendingSecret);
          if (totpSecret === user.totpSecret && totpPendingSecret === user.totpPendingSecret) return 0;
          await tx.users.update({ ...user, totpSecret, totpPendingSecret, updatedAt: clock.now().toISOString() });
          return Number(totpSecret !== user.totpSecret) + Number(totpPendingSecret !== user.totpPendingSecret);
        }),
    );

  /**
   * Every webhook endpoint, its secret and a rotation's previous one changed by `change` in a
   * transaction of its own (the endpoint locked, read again there); answers how many `change` altered.
   */
  const eachWebhookEndpoint = (change: (stored: string) => string) =>
    sweep(
      (after, limit) => store.read.webhookEndpoints.listAfter(after, limit),
      (endpoint) => [endpoint.secret, endpoint.previousSecret],
      change,
      (listed) =>
        store.transaction(async (tx) => {
          await lockEndpoint(tx, listed.id);
          const endpoint = await tx.webhookEndpoints.get(listed.id);
          if (!endpoint) return 0;
          const secret = change(endpoint.secret);
          const previousSecret = endpoint.previousSecret === null ? null : change(endpoint.previousSecret);
          if (secret === endpoint.secret && previousSecret === endpoint.previousSecret) return 0;
          // Not `updatedAt`: the endpoint did not change for its owner.
          await tx.webhookEndpoints.update({ ...endpoint, secret, previousSecret });
          return Number(secret !== endpoint.secret) + Number(previousSecret !== endpoint.previousSecret);
        }),
    );

  /** `stored` under the newest key: a sealed one re-wrapped, a clear one sealed by `seal`. */
  const rewrapped = (seal: Seal) => (stored: string) =>
    isSealed(stored) ? secrets.rewrap(stored) : seal(secrets, stored);

  /** The bank connection's secrets re-wrapped under the newest key; how many changed. */
  async function rewrapBank(): Promise<number> {
    return store.transaction(async (tx) => {
      await tx.lockScope({ accountId: "bank-connection", livemode: true });
      const connection = await tx.bankConnection.get();
      if (!connection) return 0;
      const clientSecret = secrets.rewrap(connection.clientSecret);
      const sealed = secrets.rewrap(connection.certificate.sealed);
      const changed =
        Number(clientSecret !== connection.clientSecret) + Number(sealed !== connection.certificate.sealed);
      if (changed > 0)
        await tx.bankConnection.update({
          ...connection,
          clientSecret,
          certificate: { ...connection.certificate, sealed },
        });
      return changed;
    });
  }

  /** Throws MasterKeyMismatchError unless the keyring opens `sealed`. */
  const check = (sealed: string) => {
    try {
      secrets.check(sealed);
    } catch (error) {
      if (error instanceof SecretUnreadableError) throw new MasterKeyMismatchError(error.keyId, secrets.keyIds);
      throw error;
    }
  };

  /** At start-up: a sealed `stored` checked (MasterKeyMismatchError) and kept, a clear one sealed by `seal`. */
  const checkedOrSealed = (seal: Seal) => (stored: string) => {
    if (!isSealed(stored)) return seal(secrets, stored);
    check(stored);
    return stored;
  };

  return {
    /**
     * At start-up, before serving: refuses (MasterKeyMismatchError) a keyring that cannot open a
     * stored secret, and seals the TOTP and webhook secrets still in clear; answers how many were sealed.
     */
    async prepare(): Promise<{ sealed: number }> {
      const connection = await store.read.bankConnection.get();
      if (connection) {
        check(connection.clientSecret);
        check(connection.certificate.sealed);
      }
      const sealed = await eachTotpUser(checkedOrSealed(sealTotp));
      const webhookSealed = await eachWebhookEndpoint(checkedOrSealed(sealWebhookSecret));
      return { sealed: sealed + webhookSealed };
    },

    /** Every stored secret re-wrapped under the newest key (clear TOTP and webhook secrets sealed); safe to repeat. */
    async rotate(): Promise<{ keyId: string; totpSecrets: number; bankSecrets: number; webhookSecrets: number }> {
      const totpSecrets = await eachTotpUser(rewrapped(sealTotp));
      const bankSecrets = await rewrapBank();
      const webhookSecrets = await eachWebhookEndpoint(rewrapped(sealWebhookSecret));
      return { keyId: secrets.newest.id, totpSecrets, bankSecrets, webhookSecrets };
    },
  };
}
