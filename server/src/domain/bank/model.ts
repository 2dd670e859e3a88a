// The records of the platform's connection to its bank (issue 35 §1). Timestamps are ISO 8601 UTC
// strings, as in core/model.ts. Secrets are kept sealed (core/secrets.ts): the client secret and
// the client certificate's private part never reach a read, a log line or an audit entry.

/** Where a bank deviates from the Central Bank's standard (the adapter reads it). */
export type BankDialect = "standard" | "efi" | "inter";

/** How the bank issued the client certificate. */
export type CertificateFormat = "pem" | "pkcs12";

/** What is public of a certificate: what the operator's read shows. */
export interface CertificateFacts {
  /** SHA-256 of the certificate (DER), as `AA:BB:…`. */
  fingerprintSha256: string;
  subject: string;
  issuer: string;
  notBefore: string;
  notAfter: string;
}

/** The client certificate of mutual TLS: its material sealed, its facts in clear. */
export interface ClientCertificateRecord extends CertificateFacts {
  format: CertificateFormat;
  /** The sealed JSON of `ClientCertificateMaterial` (purpose `bank.certificate`). */
  sealed: string;
}

/** The client certificate's material, once opened: PEM certificate and key, or PKCS#12. */
export type ClientCertificateMaterial =
  | { format: "pem"; certPem: string; keyPem: string }
  | { format: "pkcs12"; pfxBase64: string; passphrase: string | null };

/** The bank's CA (public): verifies the bank's server and the client certificate of its webhook calls. */
export interface BankCaRecord extends CertificateFacts {
  pem: string;
}

/** The platform's account at a bank: one at most (`id` is always `bank`). */
export interface BankConnectionRecord {
  id: "bank";
  /** 1 when set, one more on every change: the adapter rebuilds its client when it moves. */
  version: number;
  /** The API's base address (`https://…`), to which the standard's paths (`/cob/{txid}`…) are added. */
  baseUrl: string;
  /** The OAuth2 token endpoint (client credentials over mutual TLS). */
  tokenUrl: string;
  clientId: string;
  /** Sealed (purpose `bank.clientSecret`). */
  clientSecret: string;
  certificate: ClientCertificateRecord;
  /** Null: the system's trusted CAs verify the bank, and no webhook client certificate is accepted. */
  bankCa: BankCaRecord | null;
  /** The receiving Pix key of the platform's account (`chave`). */
  pixKey: string;
  dialect: BankDialect;
  /** Where the bank calls with received Pix (our webhook listener's public address); null: not registered. */
  webhookUrl: string | null;
  /**
   * The most one Pix transfer of a withdrawal sends (cents): a withdrawal paid out through the bank
   * is split into transfers of at most this much (issue 36 §1; `defaultPayoutLimitCents`).
   */
  payoutLimitCents: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * How the connection fares, as the adapter and the reconciler write it (a record of its own, so an
 * operator's change and a health write never conflict). Each field is written alone.
 */
export interface BankHealthRecord {
  id: "bank";
  /** The last call the bank answered as expected. */
  lastSuccessAt: string | null;
  /** When the cached access token expires. */
  tokenExpiresAt: string | null;
  /** When the webhook was last registered at the bank (`PUT /webhook/{chave}`). */
  webhookRegisteredAt: string | null;
  /** When the reconciler last read the bank's received Pix. */
  lastReconciliationAt: string | null;
  /** The last failure (never a secret): when, and what, in Portuguese. */
  lastError: { at: string; message: string } | null;
}

/** A health write: only the fields given change. */
export type BankHealthPatch = Partial<Omit<BankHealthRecord, "id">>;

/** What an operator did to the connection, as its change log keeps it. */
export type BankConnectionAction =
  | "bank_connection.set"
  | "bank_connection.changed"
  | "bank_connection.removed"
  /** The operator asked the bank to return an unmatched receipt to its payer (unmatched-return.ts). */
  | "unmatched_receipt.return_requested";

/**
 * One entry of the connection's change log (the platform's own audit trail: the connection
 * belongs to no merchant account). `changes` names each field changed; a secret's entry says only
 * that it changed (`{ from: "configurado", to: "substituído" }`), a certificate's carries its
 * fingerprints.
 */
export interface BankConnectionChangeRecord {
  /** `bch_…`. */
  id: string;
  action: BankConnectionAction;
  ip: string | null;
  changes: Record<string, { from: unknown; to: unknown }>;
  createdAt: string;
}
