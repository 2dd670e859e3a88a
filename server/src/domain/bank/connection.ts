import type { components } from "../../../../generated/admin-api.js";
import type { AuditedBy } from "../audit/index.js";
import { DomainError } from "../core/errors.js";
import { formatBRL } from "../core/money.js";
import { newId } from "../core/ids.js";
import type { DomainDeps } from "../deps.js";
import type { StoreReads, StoreTx } from "../ports/store.js";
import { readCaCertificate, readClientCertificate } from "./certificates.js";
import type {
  BankConnectionAction,
  BankConnectionRecord,
  BankHealthPatch,
  BankHealthRecord,
  ClientCertificateMaterial,
  ClientCertificateRecord,
} from "./model.js";
import { defaultPayoutLimitCents } from "../balance/index.js";

// The platform's connection to its bank, as the operator sets, changes, reads and removes it
// (issue 35 §1), and what the adapter reads of it (`loadBankCredentials`) and writes
// (`recordBankHealth`). Secrets are sealed before anything is stored and opened only for the
// adapter: a read shows `configured`, fingerprints and expiry; the change log names a secret's
// change without its value; no log line is written with any of them.

type Schemas = components["schemas"];

/** How long before the client certificate's expiry the connection warns (issue 35 §1). */
const certificateWarningDays = 30;
const dayMs = 86_400_000;

/** The newest change-log entries a read carries. */
const recentChangesShown = 20;

/** The bank connection's decrypted material, for the adapter (server/src/bank/) alone. */
export interface BankCredentials {
  /** Changes with every operator change: the adapter rebuilds its client (and token) when it moves. */
  version: number;
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  certificate: ClientCertificateMaterial;
  /** PEM; null: the system's trusted CAs. */
  bankCaPem: string | null;
  pixKey: string;
  dialect: BankConnectionRecord["dialect"];
  webhookUrl: string | null;
  certificateNotAfter: string;
  /** The per-transfer limit a withdrawal paid out through the bank is split by (cents). */
  payoutLimitCents: number;
}

/** How many pending withdrawals the payout job reads for the operator's notice, at most. */
const waitingShownOf = 1_000;

/**
 * Production withdrawals waiting because the platform's account at the bank could not cover them
 * (issue 36 §1's balance check), as the operator is told: how many, and a warning with what they
 * need and what the bank last had; null when none waits.
 */
async function withdrawalsWaitingForBalance(
  read: Pick<StoreReads, "withdrawals">,
): Promise<{ count: number; warning: string } | null> {
  const pending = await read.withdrawals.listPendingAtBank(waitingShownOf);
  const waiting = pending.filter((w) => w.payout?.waitingForBalanceSince);
  if (waiting.length === 0) return null;
  const left = (w: (typeof waiting)[number]) =>
    w.transfers.filter((t) => t.status === "PENDING" && !t.sentAt).reduce((sum, t) => sum + t.amountCents, 0);
  const needed = waiting.reduce((sum, w) => sum + left(w), 0);
  const since = waiting.map((w) => w.payout?.waitingForBalanceSince ?? "").sort()[0];
  const available = waiting.map((w) => w.payout?.bankAvailableCents ?? null).find((c) => c !== null) ?? null;
  return {
    count: waiting.length,
    warning:
      `${waiting.length} saque(s) de produção aguardam saldo na conta da plataforma no banco desde ${since}: ` +
      `precisam de ${formatBRL(needed)}` +
      (available === null ? "" : `, o banco tinha ${formatBRL(available)}`) +
      ". Serão pagos quando o saldo permitir (o pagamento é tentado de novo a cada passagem do job).",
  };
}

/** No bank connection set (`NOT_FOUND`): what the operator's bank routes answer. */
export const noBankConnection = () =>
  new DomainError(
    "NOT_FOUND",
    "Nenhuma conexão bancária configurada: configure-a com PUT /admin/v1/bank-connection (ou npm run admin -- bank connect).",
  );

/** The client certificate's material from the request's shape. */
function certificateMaterial(input: Schemas["ClientCertificateInput"]): ClientCertificateMaterial {
  return input.format === "pem"
    ? { format: "pem", certPem: input.certificatePem, keyPem: input.privateKeyPem }
    : { format: "pkcs12", pfxBase64: input.pkcs12Base64, passphrase: input.passphrase ?? null };
}

/**
 * Where the connection stands at `now`: its status and warnings. `forOperator`: the last error's
 * own words too (the adapter's, which may quote the bank's answer); `/ready`, which answers anyone
 * without a key, says only that a call failed and where the operator reads why.
 */
function bankConnectionStatus(
  connection: Pick<BankConnectionRecord, "certificate">,
  health: BankHealthRecord | null,
  now: Date,
  forOperator = true,
): { status: Schemas["BankConnectionStatus"]; warnings: string[] } {
  const warnings: string[] = [];
  const notAfter = new Date(connection.certificate.notAfter);
  const daysLeft = Math.floor((notAfter.getTime() - now.getTime()) / dayMs);
  let status: Schemas["BankConnectionStatus"] = "ok";
  if (notAfter <= now) {
    status = "certificate_expired";
    warnings.push(
      `O certificado do cliente da conexão bancária expirou em ${connection.certificate.notAfter}: o banco recusa a conexão e cobranças de produção não são registradas. Renove-o (npm run admin -- bank connect ou PATCH /admin/v1/bank-connection).`,
    );
  } else if (daysLeft < certificateWarningDays) {
    status = "certificate_expiring";
    warnings.push(
      `O certificado do cliente da conexão bancária expira em ${connection.certificate.notAfter} (${daysLeft} dia(s)): renove-o antes.`,
    );
  }
  const error = health?.lastError ?? null;
  if (error && (health?.lastSuccessAt === null || (health?.lastSuccessAt ?? "") < error.at)) {
    if (status === "ok") status = "failing";
    warnings.push(
      forOperator
        ? `A última chamada ao banco falhou (${error.at}): ${error.message}`
        : `A última chamada ao banco falhou (${error.at}): o motivo está na conexão bancária (GET /admin/v1/bank-connection ou npm run admin -- bank show).`,
    );
  }
  return { status, warnings };
}

export function bankConnectionUseCases(deps: DomainDeps) {
  const { store, clock, secrets } = deps;

  /**
   * After a change is committed, this process's access to the bank reads it at once: without it a
   * production charge made in the next seconds still went without the bank just connected (a
   * static code the service never learns was paid). A failure leaves the change saved; the
   * access's own re-read picks it up.
   */
  async function reread(): Promise<void> {
    await deps.bank
      ?.refresh?.()
      .catch((error: unknown) => deps.logger.warn({ err: error }, "bank: connection changed, not re-read at once"));
  }

  /** The certificate record of `input`: its facts read, its material sealed. */
  function sealedCertificate(input: Schemas["ClientCertificateInput"]): ClientCertificateRecord {
    const material = certificateMaterial(input);
    const facts = readClientCertificate(material);
    if (new Date(facts.notAfter) <= clock.now()) {
      throw new DomainError(
        "REQUEST_ERROR",
        `O certificado do cliente expirou em ${facts.notAfter}: envie o certificado renovado pelo banco.`,
      );
    }
    return { ...facts, format: material.format, sealed: secrets.seal(JSON.stringify(material), "bank.certificate") };
  }

  const bankCa = (pem: string | null | undefined) => (pem ? { ...readCaCertificate(pem), pem } : null);

  /** The operator's view of the connection: never a secret. */
  async function present(
    connection: BankConnectionRecord,
    read: Pick<StoreReads, "bankHealth" | "bankConnectionChanges" | "withdrawals"> = store.read,
  ): Promise<Schemas["BankConnection"]> {
    const [health, changes, waiting] = await Promise.all([
      read.bankHealth.get(),
      read.bankConnectionChanges.listRecent(recentChangesShown),
      withdrawalsWaitingForBalance(read),
    ]);
    const status = bankConnectionStatus(connection, health, clock.now());
    const { certificate: c, bankCa: ca } = connection;
    return {
      version: connection.version,
      baseUrl: connection.baseUrl,
      tokenUrl: connection.tokenUrl,
      clientId: connection.clientId,
      clientSecret: { configured: true },
      certificate: {
        format: c.format,
        fingerprintSha256: c.fingerprintSha256,
        subject: c.subject,
        issuer: c.issuer,
        notBefore: c.notBefore,
        notAfter: c.notAfter,
        privateKeyConfigured: true,
      },
      ...(ca
        ? {
            bankCa: {
              fingerprintSha256: ca.fingerprintSha256,
              subject: ca.subject,
              issuer: ca.issuer,
              notBefore: ca.notBefore,
              notAfter: ca.notAfter,
            },
          }
        : {}),
      pixKey: connection.pixKey,
      dialect: connection.dialect,
      webhookUrl: connection.webhookUrl,
      payoutLimitCents: connection.payoutLimitCents,
      health: {
        status: status.status,
        warnings: [...(waiting ? [waiting.warning] : []), ...status.warnings],
        lastSuccessAt: health?.lastSuccessAt ?? null,
        tokenExpiresAt: health?.tokenExpiresAt ?? null,
        webhookRegisteredAt: health?.webhookRegisteredAt ?? null,
        lastReconciliationAt: health?.lastReconciliationAt ?? null,
        ...(health?.lastError ? { lastError: health.lastError } : {}),
        ...(waiting ? { withdrawalsWaitingForBalance: waiting.count } : {}),
      },
      recentChanges: changes.map((change) => ({
        action: change.action,
        ip: change.ip,
        changes: change.changes,
        createdAt: change.createdAt,
      })),
      createdAt: connection.createdAt,
      updatedAt: connection.updatedAt,
    };
  }

  /** The change log's entry of `before` → `after`: public fields by value, secrets by a word, certificates by fingerprint. */
  async function recordChange(
    tx: StoreTx,
    action: BankConnectionAction,
    before: BankConnectionRecord | null,
    after: BankConnectionRecord | null,
    by: AuditedBy,
    at: string,
  ) {
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    const plain = ["baseUrl", "tokenUrl", "clientId", "pixKey", "dialect", "webhookUrl", "payoutLimitCents"] as const;
    for (const field of plain) {
      const from = before?.[field] ?? null;
      const to = after?.[field] ?? null;
      if (from !== to) changes[field] = { from, to };
    }
    if (before?.clientSecret !== after?.clientSecret) {
      changes.clientSecret = {
        from: before ? "configurado" : null,
        to: after ? (before ? "substituído" : "configurado") : null,
      };
    }
    const fingerprint = (r: BankConnectionRecord | null) => r?.certificate.fingerprintSha256 ?? null;
    if (before?.certificate.sealed !== after?.certificate.sealed)
      changes.certificate = { from: fingerprint(before), to: fingerprint(after) };
    const caPrint = (r: BankConnectionRecord | null) => r?.bankCa?.fingerprintSha256 ?? null;
    if (caPrint(before) !== caPrint(after)) changes.bankCa = { from: caPrint(before), to: caPrint(after) };
    await tx.bankConnectionChanges.append({ id: newId("bch"), action, ip: by.ip, changes, createdAt: at });
  }

  return {
    async get(): Promise<Schemas["BankConnection"]> {
      const connection = await store.read.bankConnection.get();
      if (!connection) throw noBankConnection();
      return present(connection);
    },

    /** Sets the connection whole (replacing any); its health starts anew. */
    async set(input: Schemas["SetBankConnectionRequest"], by: AuditedBy): Promise<Schemas["BankConnection"]> {
      const certificate = sealedCertificate(input.certificate);
      const ca = bankCa(input.bankCaPem);
      const clientSecret = secrets.seal(input.clientSecret, "bank.clientSecret");
      const saved = await store.transaction(async (tx) => {
        await tx.lockScope({ accountId: "bank-connection", livemode: true });
        const at = clock.now().toISOString();
        const before = await tx.bankConnection.get();
        const after: BankConnectionRecord = {
          id: "bank",
          version: (before?.version ?? 0) + 1,
          baseUrl: input.baseUrl,
          tokenUrl: input.tokenUrl,
          clientId: input.clientId,
          clientSecret,
          certificate,
          bankCa: ca,
          pixKey: input.pixKey,
          dialect: input.dialect,
          webhookUrl: input.webhookUrl ?? null,
          payoutLimitCents: input.payoutLimitCents ?? defaultPayoutLimitCents,
          createdAt: before?.createdAt ?? at,
          updatedAt: at,
        };
        if (before) {
          await tx.bankConnection.remove();
          await tx.bankConnection.insert(after);
        } else await tx.bankConnection.insert(after);
        await recordChange(tx, "bank_connection.set", before, after, by, at);
        return present(after, tx);
      });
      await reread();
      return saved;
    },

    /** Changes the parts given; `404` without a connection. */
    async change(input: Schemas["ChangeBankConnectionRequest"], by: AuditedBy): Promise<Schemas["BankConnection"]> {
      const certificate = input.certificate ? sealedCertificate(input.certificate) : undefined;
      const ca = input.bankCaPem === undefined ? undefined : bankCa(input.bankCaPem);
      const clientSecret = input.clientSecret ? secrets.seal(input.clientSecret, "bank.clientSecret") : undefined;
      const saved = await store.transaction(async (tx) => {
        await tx.lockScope({ accountId: "bank-connection", livemode: true });
        const at = clock.now().toISOString();
        const before = await tx.bankConnection.get();
        if (!before) throw noBankConnection();
        const after: BankConnectionRecord = {
          ...before,
          version: before.version + 1,
          ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
          ...(input.tokenUrl !== undefined ? { tokenUrl: input.tokenUrl } : {}),
          ...(input.clientId !== undefined ? { clientId: input.clientId } : {}),
          ...(clientSecret !== undefined ? { clientSecret } : {}),
          ...(certificate !== undefined ? { certificate } : {}),
          ...(ca !== undefined ? { bankCa: ca } : {}),
          ...(input.pixKey !== undefined ? { pixKey: input.pixKey } : {}),
          ...(input.dialect !== undefined ? { dialect: input.dialect } : {}),
          ...(input.webhookUrl !== undefined ? { webhookUrl: input.webhookUrl } : {}),
          ...(input.payoutLimitCents !== undefined ? { payoutLimitCents: input.payoutLimitCents } : {}),
          updatedAt: at,
        };
        await tx.bankConnection.update(after);
        await recordChange(tx, "bank_connection.changed", before, after, by, at);
        return present(after, tx);
      });
      await reread();
      return saved;
    },

    /** Removes the connection and its health (the change log stays); `404` without one. */
    async remove(by: AuditedBy): Promise<void> {
      await store.transaction(async (tx) => {
        await tx.lockScope({ accountId: "bank-connection", livemode: true });
        const before = await tx.bankConnection.get();
        if (!before) throw noBankConnection();
        await tx.bankConnection.remove();
        await recordChange(tx, "bank_connection.removed", before, null, by, clock.now().toISOString());
      });
      await reread();
    },

    /** What `/ready` says of the connection: nothing without one; else its status and warnings. */
    async readiness(): Promise<{ status: Schemas["BankConnectionStatus"]; warnings: string[] } | null> {
      const connection = await store.read.bankConnection.get();
      if (!connection) return null;
      return bankConnectionStatus(connection, await store.read.bankHealth.get(), clock.now(), false);
    },
  };
}

/** The connection with its secrets opened, for the adapter; null without a connection. */
export async function loadBankCredentials(
  deps: Pick<DomainDeps, "store" | "secrets">,
): Promise<BankCredentials | null> {
  const connection = await deps.store.read.bankConnection.get();
  if (!connection) return null;
  return {
    version: connection.version,
    baseUrl: connection.baseUrl,
    tokenUrl: connection.tokenUrl,
    clientId: connection.clientId,
    clientSecret: deps.secrets.open(connection.clientSecret, "bank.clientSecret"),
    certificate: JSON.parse(
      deps.secrets.open(connection.certificate.sealed, "bank.certificate"),
    ) as ClientCertificateMaterial,
    bankCaPem: connection.bankCa?.pem ?? null,
    pixKey: connection.pixKey,
    dialect: connection.dialect,
    webhookUrl: connection.webhookUrl,
    certificateNotAfter: connection.certificate.notAfter,
    payoutLimitCents: connection.payoutLimitCents,
  };
}

/**
 * Writes the fields of `patch` to the connection's health (the adapter after a call, the
 * reconciler after a pass). A `lastError.message` must carry no secret: the adapter writes its
 * own words, never a body or header of the bank's.
 */
export async function recordBankHealth(deps: Pick<DomainDeps, "store">, patch: BankHealthPatch): Promise<void> {
  await deps.store.transaction((tx) => tx.bankHealth.record(patch));
}
