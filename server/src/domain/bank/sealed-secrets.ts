import { sealTotp, type UserRecord } from "../identity/index.js";
import { lockEndpoint, sealWebhookSecret } from "../webhooks/index.js";
import { isSealed, type Keyring, SecretUnreadableError } from "../core/secrets.js";
import type { DomainDeps } from "../deps.js";
import type { StoreTx } from "../ports/store.js";
import type { WebhookEndpointRecord } from "../core/model.js";

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
   * The records `list` pages (by id, `batch` at a time) whose secret `fields` `change` alters, each
   * changed in a transaction of its own: `lock`ed, `read` again there and, when `change` still
   * alters it, `write`n. Answers how many secrets it altered. A record `change` leaves as it is
   * costs no transaction: every process's start-up walks every record.
   */
  async function sweep<T extends { id: string }>(
    change: (stored: string) => string,
    records: {
      list: (afterId: string | null, limit: number) => Promise<T[]>;
      fields: readonly (keyof T)[];
      lock: (tx: StoreTx, id: string) => Promise<void>;
      read: (tx: StoreTx, id: string) => Promise<T | null>;
      write: (tx: StoreTx, changed: T) => Promise<void>;
    },
  ): Promise<number> {
    const changed = (record: T) => {
      const next = { ...record };
      let altered = 0;
      for (const field of records.fields) {
        const stored = record[field];
        if (typeof stored !== "string") continue; // no secret there (null)
        const value = change(stored);
        if (value === stored) continue;
        next[field] = value as T[keyof T];
        altered++;
      }
      return { record: next, altered };
    };
    const rewrite = (id: string) =>
      store.transaction(async (tx) => {
        await records.lock(tx, id);
        const current = await records.read(tx, id);
        if (!current) return 0;
        const { record, altered } = changed(current);
        if (altered > 0) await records.write(tx, record);
        return altered;
      });
    let total = 0;
    for (let after: string | null = null; ;) {
      const page = await records.list(after, batch);
      for (const listed of page) if (changed(listed).altered > 0) total += await rewrite(listed.id);
      if (page.length < batch) return total;
      after = page.at(-1)?.id ?? null;
    }
  }

  /** Every user's TOTP secrets (the current one and one being set up) changed by `change`. */
  const eachTotpUser = (change: (stored: string) => string) =>
    sweep<UserRecord>(change, {
      list: (after, limit) => store.read.users.listWithTotpSecret(after, limit),
      fields: ["totpSecret", "totpPendingSecret"],
      lock: (tx, id) => tx.lockScope({ accountId: `user:${id}`, livemode: false }),
      read: (tx, id) => tx.users.get(id),
      write: (tx, user) => tx.users.update({ ...user, updatedAt: clock.now().toISOString() }),
    });

  /** Every webhook endpoint's signing secret and a rotation's previous one changed by `change`. */
  const eachWebhookEndpoint = (change: (stored: string) => string) =>
    sweep<WebhookEndpointRecord>(change, {
      list: (after, limit) => store.read.webhookEndpoints.listAfter(after, limit),
      fields: ["secret", "previousSecret"],
      lock: lockEndpoint,
      read: (tx, id) => tx.webhookEndpoints.get(id),
      // Not `updatedAt`: the endpoint did not change for its owner.
      write: (tx, endpoint) => tx.webhookEndpoints.update(endpoint),
    });

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
