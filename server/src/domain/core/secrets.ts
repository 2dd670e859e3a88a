import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

// Secrets at rest (issue 35 §1; docs/decisions/0050-secrets-at-rest-and-the-bank-connection.md):
// envelope encryption. Each secret gets its own random 256-bit data key; the secret is sealed
// with it (AES-256-GCM, the secret's purpose as additional data, so a sealed value cannot be
// moved to another field), and the data key is wrapped by a master key of the keyring
// (AES-256-GCM again). The keyring comes from MASTER_KEYS: its newest key wraps, every key in it
// unwraps, so a rotation is a new key added and every data key re-wrapped (`rewrap`), the secrets
// themselves untouched. Nothing here logs: no secret, data key or master key leaves as text but
// sealed.

/** Marks a sealed value, and its format's version. */
const prefix = "pxs1";

/** What a secret is for: the additional data its seal is bound to. */
export type SecretPurpose = "totp" | "bank.clientSecret" | "bank.certificate" | "webhook.secret";

/** One master key: an id that sealed values name, and 32 bytes. */
export interface MasterKey {
  id: string;
  key: Buffer;
}

/** A sealed value could not be opened: its master key is not in the keyring, or it was altered. */
export class SecretUnreadableError extends Error {
  constructor(readonly keyId: string | null) {
    super(
      keyId === null
        ? "segredo guardado ilegível (formato desconhecido ou alterado)"
        : `segredo guardado com a chave mestra "${keyId}", que não está em MASTER_KEYS ou não o abre`,
    );
    this.name = "SecretUnreadableError";
  }
}

const b64 = (bytes: Buffer) => bytes.toString("base64url");
const unb64 = (text: string) => Buffer.from(text, "base64url");

function gcmSeal(key: Buffer, plain: Buffer, aad: string): { iv: Buffer; sealed: Buffer } {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad));
  const sealed = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return { iv, sealed };
}

function gcmOpen(key: Buffer, iv: Buffer, sealed: Buffer, aad: string): Buffer {
  if (iv.length !== 12 || sealed.length < 16) throw new Error("short");
  const decipher = createDecipheriv("aes-256-gcm", key, iv);
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
}

/** The parts of a sealed value: `pxs1.<keyId>.<wrapIv>.<wrappedKey>.<iv>.<ciphertext>`. */
interface Parts {
  keyId: string;
  wrapIv: Buffer;
  wrappedKey: Buffer;
  iv: Buffer;
  ciphertext: Buffer;
}

function parse(sealed: string): Parts {
  const parts = sealed.split(".");
  if (parts.length !== 6 || parts[0] !== prefix) throw new SecretUnreadableError(null);
  const [, keyId = "", wrapIv = "", wrappedKey = "", iv = "", ciphertext = ""] = parts;
  return { keyId, wrapIv: unb64(wrapIv), wrappedKey: unb64(wrappedKey), iv: unb64(iv), ciphertext: unb64(ciphertext) };
}

const format = (p: Parts) =>
  [prefix, p.keyId, b64(p.wrapIv), b64(p.wrappedKey), b64(p.iv), b64(p.ciphertext)].join(".");

/** Whether `value` is a sealed value (else a clear one written before sealing began). */
export const isSealed = (value: string): boolean => value.startsWith(`${prefix}.`);

/** The key id `sealed` is wrapped under (no key needed). */
export const sealedKeyId = (sealed: string): string => parse(sealed).keyId;

/** The keyring of MASTER_KEYS: the newest key seals, every key opens. */
export class Keyring {
  private readonly byId: Map<string, Buffer>;
  /** The key new seals and re-wraps use. */
  readonly newest: MasterKey;

  constructor(
    keys: readonly MasterKey[],
    /** Whether this is the fixed development key (never accepted in production). */
    readonly development = false,
  ) {
    const newest = keys.at(-1);
    if (!newest) throw new Error("a keyring needs a key");
    for (const k of keys) if (k.key.length !== 32) throw new Error(`master key ${k.id}: 32 bytes needed`);
    this.newest = newest;
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  /** Whether a key of the ring is the development key's material (refused in production). */
  usesDevelopmentKey(): boolean {
    return [...this.byId.values()].some(isDevelopmentKey);
  }

  /** The ids of the keys, oldest first (never the keys). */
  get keyIds(): string[] {
    return [...this.byId.keys()];
  }

  /** `plain` sealed for `purpose` under a new data key wrapped by the newest master key. */
  seal(plain: string, purpose: SecretPurpose): string {
    const dataKey = randomBytes(32);
    const data = gcmSeal(dataKey, Buffer.from(plain, "utf8"), purpose);
    const wrap = gcmSeal(this.newest.key, dataKey, `${prefix}.${this.newest.id}`);
    dataKey.fill(0);
    return format({
      keyId: this.newest.id,
      wrapIv: wrap.iv,
      wrappedKey: wrap.sealed,
      iv: data.iv,
      ciphertext: data.sealed,
    });
  }

  /** The data key of `parts`, unwrapped by its master key. */
  private dataKey(parts: Parts): Buffer {
    const master = this.byId.get(parts.keyId);
    if (!master) throw new SecretUnreadableError(parts.keyId);
    try {
      return gcmOpen(master, parts.wrapIv, parts.wrappedKey, `${prefix}.${parts.keyId}`);
    } catch {
      throw new SecretUnreadableError(parts.keyId);
    }
  }

  /** The clear text of `sealed`; SecretUnreadableError when no key of the ring opens it. */
  open(sealed: string, purpose: SecretPurpose): string {
    const parts = parse(sealed);
    const dataKey = this.dataKey(parts);
    try {
      return gcmOpen(dataKey, parts.iv, parts.ciphertext, purpose).toString("utf8");
    } catch {
      throw new SecretUnreadableError(parts.keyId);
    } finally {
      dataKey.fill(0);
    }
  }

  /** Throws SecretUnreadableError unless a key of the ring unwraps `sealed`'s data key. */
  check(sealed: string): void {
    this.dataKey(parse(sealed)).fill(0);
  }

  /**
   * `sealed` with its data key wrapped by the newest master key (the secret itself is not
   * decrypted); the same text when it already is.
   */
  rewrap(sealed: string): string {
    const parts = parse(sealed);
    if (parts.keyId === this.newest.id) return sealed;
    const dataKey = this.dataKey(parts);
    const wrap = gcmSeal(this.newest.key, dataKey, `${prefix}.${this.newest.id}`);
    dataKey.fill(0);
    return format({ ...parts, keyId: this.newest.id, wrapIv: wrap.iv, wrappedKey: wrap.sealed });
  }
}

/** The id of the development key. */
const developmentKeyId = "dev";

/**
 * The fixed development key: known to anyone who reads this file, so only outside production
 * (config.ts refuses it there, and main.ts says in the log that it is in use).
 */
const developmentKey = createHash("sha256").update("pix-charging-service: development master key").digest();

/** The keyring of the development key alone. */
export const developmentKeyring = (): Keyring => new Keyring([{ id: developmentKeyId, key: developmentKey }], true);

/** Whether `key` is the development key's material (refused in production under any id). */
const isDevelopmentKey = (key: Buffer): boolean => key.equals(developmentKey);

/**
 * MASTER_KEYS's text: `id:base64` entries separated by commas, oldest first (the last one
 * seals). An id is 1 to 32 letters, digits, `_` or `-`; a key is 32 bytes in base64 or base64url
 * (`openssl rand -base64 32`). Problems in Portuguese, none quoting a key.
 */
export function parseMasterKeys(text: string): { keys: MasterKey[] } | { problem: string } {
  const keys: MasterKey[] = [];
  const entries = text.split(",").map((e) => e.trim());
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(":");
    const id = colon < 0 ? "" : entry.slice(0, colon);
    const material = colon < 0 ? "" : entry.slice(colon + 1);
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(id))
      return { problem: `a entrada ${index + 1} deve ser id:chave (id de 1 a 32 letras, dígitos, _ ou -)` };
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(material) || Buffer.from(material, "base64").length !== 32)
      return { problem: `a chave "${id}" deve ter 32 bytes em base64 (openssl rand -base64 32)` };
    if (keys.some((k) => k.id === id)) return { problem: `o id "${id}" aparece duas vezes` };
    keys.push({ id, key: Buffer.from(material, "base64") });
  }
  return { keys };
}
