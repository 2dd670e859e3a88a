import type { components as AdminComponents } from "../../../../generated/admin-api.js";
import type { components } from "../../../../generated/dashboard-api.js";
import { changedFields, recordAudit } from "../audit/index.js";
import { byUser } from "../audit/model.js";
import { type AuditedBy } from "../audit/model.js";
import { requireDocument } from "../core/documents.js";
import type { DomainDeps } from "../deps.js";
import { DomainError, notFound } from "../core/errors.js";
import type { VerificationRequestRecord, VerificationStatus } from "../identity/model.js";
import type { Account, PageRequest } from "../core/model.js";
import { pageOrInvalidCursor } from "../core/pagination.js";
import type { StoreTx } from "../ports/store.js";
import type { DashboardActor } from "../identity/model.js";
import { requireConfirmedEmail } from "../identity/model.js";

// The account's verification (issue 25): the merchant asks for it in the dashboard with a legal
// name and a CNPJ or CPF (check digits verified); the platform's operator lists the requests and
// verifies an account as before (`PATCH /admin/v1/accounts/{id}` with `verified: true`) or rejects
// a request with a reason. Whether production works stays `Account.verified` alone
// (`requireActiveForProduction`): the request only says what was asked and decided.
// docs/decisions/0030-account-verification-and-profile.md. Each replacement of a request is a new `version`; a
// decision names the version the operator reviewed (issue 33): "Verification versions".

type Schemas = components["schemas"];
type Admin = AdminComponents["schemas"];

/** The verification as the dashboard shows it: the account's state and its latest request. */
export function presentVerification(
  account: Account,
  request: VerificationRequestRecord | null,
): Schemas["AccountVerification"] {
  const status: Schemas["VerificationState"] = account.verified
    ? "verified"
    : request?.status === "requested" || request?.status === "rejected"
      ? request.status
      : "none";
  return {
    status,
    legalName: request?.legalName ?? null,
    documentType: request?.documentType ?? null,
    document: request?.document ?? null,
    requestedAt: request?.createdAt ?? null,
    decidedAt: request?.decidedAt ?? null,
    rejectionReason: status === "rejected" ? (request?.rejectionReason ?? null) : null,
  };
}

const presentRequest = (r: VerificationRequestRecord, account: Account): Admin["VerificationRequest"] => ({
  accountId: r.id,
  version: r.version,
  accountName: account.name,
  legalName: r.legalName,
  documentType: r.documentType,
  document: r.document,
  status: r.status,
  requestedBy: { userId: r.requestedByUserId, email: r.requestedByEmail },
  requestedAt: r.createdAt,
  decidedAt: r.decidedAt,
  rejectionReason: r.rejectionReason,
});

const notWaiting = () =>
  new DomainError("REQUEST_ERROR", "Não há pedido de verificação aguardando decisão nesta conta.");

/**
 * Refuses a decision on a request other than the one reviewed: the merchant replaced it (a new
 * `version`) after the operator read it. Nothing changes; the operator reads it again.
 */
function requireReviewed(request: VerificationRequestRecord, reviewedVersion: number): void {
  if (request.version === reviewedVersion) return;
  throw new DomainError(
    "REQUEST_ERROR",
    `O pedido de verificação mudou depois da revisão (versão revisada: ${reviewedVersion}, atual: ${request.version}). Revise-o de novo antes de decidir.`,
  );
}

/** Takes the account's verification lock: a request is replaced or decided one at a time. */
const lockVerification = (tx: StoreTx, accountId: string) =>
  tx.lockScope({ accountId: `verification:${accountId}`, livemode: false });

/**
 * What verifying an account does to its request, inside the operator's update: a request waiting
 * must be the version the operator reviewed (`reviewedVersion`), and becomes `verified`; its
 * document becomes the account's when the account has none and the update sends none. Without a
 * request waiting, verifying names none (one named answers `400`). Answers the account as it is to
 * be written.
 */
export async function settleVerificationRequest(
  tx: StoreTx,
  before: Account,
  after: Account,
  change: { documentSent: boolean; reviewedVersion: number | undefined },
  at: string,
): Promise<Account> {
  if (before.verified || !after.verified) return after;
  await lockVerification(tx, after.id);
  const request = await tx.verificationRequests.get(after.id);
  const waiting = request?.status === "requested" ? request : null;
  if (change.reviewedVersion === undefined) {
    if (!waiting) return after;
    throw new DomainError(
      "REQUEST_ERROR",
      `A conta tem um pedido de verificação aguardando (versão ${waiting.version}): revise-o e informe verificationRequestVersion.`,
    );
  }
  if (!waiting) throw notWaiting();
  requireReviewed(waiting, change.reviewedVersion);
  await tx.verificationRequests.update({ ...waiting, status: "verified", decidedAt: at, updatedAt: at });
  if (after.document !== null || change.documentSent) return after;
  return { ...after, documentType: waiting.documentType, document: waiting.document };
}

/**
 * Tells the account that the operator decided its verification, as the dashboard promised when it
 * was asked ("Avisaremos quando a plataforma decidir"): to the owner, and to whoever asked when
 * that is another address. Sent after the commit; a failure is logged and changes nothing.
 */
export function mailVerificationDecision(
  deps: Pick<DomainDeps, "mailer" | "logger" | "config">,
  account: Account,
  request: VerificationRequestRecord | null,
  decision: { verified: true } | { verified: false; reason: string },
): void {
  const panel = `${deps.config.publicBaseUrl.replace(/\/$/, "")}/painel`;
  const message = decision.verified
    ? {
        subject: "Sua conta foi verificada",
        text: [
          "Olá.",
          "",
          `A conta ${account.name} no Pix Charging Service foi verificada: o modo de produção está liberado.`,
          "Crie uma chave de produção no painel para receber pagamentos reais:",
          `${panel}/producao/desenvolvedores/chaves`,
        ].join("\n"),
      }
    : {
        subject: "Pedido de verificação recusado",
        text: [
          "Olá.",
          "",
          `O pedido de verificação da conta ${account.name} no Pix Charging Service foi recusado. Motivo:`,
          decision.reason,
          "",
          "Corrija os dados e peça a verificação de novo no painel:",
          `${panel}/teste/configuracoes/conta`,
        ].join("\n"),
      };
  const to = new Set([account.ownerEmail, ...(request ? [request.requestedByEmail] : [])]);
  for (const address of to) {
    deps.mailer
      .send({ to: address, ...message })
      .catch((err: unknown) => deps.logger.error({ err, subject: message.subject }, "e-mail not sent"));
  }
}

export function verificationUseCases(deps: DomainDeps) {
  const { store, clock } = deps;
  const now = () => clock.now().toISOString();

  return {
    /** Asks for verification (owners and admins); a request before is replaced by the next version. */
    async request(
      actor: DashboardActor,
      input: { legalName: string; document: string },
    ): Promise<Schemas["AccountVerification"]> {
      requireConfirmedEmail(actor); // issue 33 §10
      const parsed = requireDocument(input.document);
      const legalName = input.legalName.trim();
      return store.transaction(async (tx) => {
        await lockVerification(tx, actor.account.id);
        const account = await tx.accounts.get(actor.account.id);
        if (!account) throw notFound();
        if (account.verified) throw new DomainError("REQUEST_ERROR", "A conta já está verificada.");
        const at = now();
        const before = await tx.verificationRequests.get(account.id);
        const request: VerificationRequestRecord = {
          id: account.id,
          version: (before?.version ?? 0) + 1,
          legalName,
          documentType: parsed.documentType,
          document: parsed.document,
          status: "requested",
          requestedByUserId: actor.user.id,
          requestedByEmail: actor.user.email,
          createdAt: at,
          decidedAt: null,
          rejectionReason: null,
          updatedAt: at,
        };
        if (before) await tx.verificationRequests.update(request);
        else await tx.verificationRequests.insert(request);
        await recordAudit(tx, {
          accountId: account.id,
          by: byUser(actor),
          action: "account.verification_requested",
          target: { type: "account", id: account.id },
          changes: changedFields(before, request, ["version", "legalName", "documentType", "document", "status"]),
          at,
        });
        return presentVerification(account, request);
      });
    },

    /** The operator's list of requests, newest first. */
    async list(filter: { status?: VerificationStatus | undefined }, page: PageRequest) {
      const result = await pageOrInvalidCursor(() => store.read.verificationRequests.list(filter, page));
      const data: Admin["VerificationRequest"][] = [];
      for (const request of result.items) {
        const account = await store.read.accounts.get(request.id);
        if (account) data.push(presentRequest(request, account));
      }
      return { data, hasMore: result.hasMore };
    },

    /** An account's latest request; `404` when it never asked. */
    async get(accountId: string) {
      const [account, request] = await Promise.all([
        store.read.accounts.get(accountId),
        store.read.verificationRequests.get(accountId),
      ]);
      if (!account || !request) throw notFound();
      return presentRequest(request, account);
    },

    /**
     * Rejects the request waiting, with the reason the merchant sees (the operator), when it is
     * still the version reviewed.
     */
    async reject(accountId: string, decision: { reason: string; version: number }, by: AuditedBy) {
      const decided = await store.transaction(async (tx) => {
        await lockVerification(tx, accountId);
        const [account, request] = await Promise.all([
          tx.accounts.get(accountId),
          tx.verificationRequests.get(accountId),
        ]);
        if (!account || !request) throw notFound();
        if (request.status !== "requested" || account.verified) throw notWaiting();
        requireReviewed(request, decision.version);
        const at = now();
        const rejected: VerificationRequestRecord = {
          ...request,
          status: "rejected",
          decidedAt: at,
          rejectionReason: decision.reason,
          updatedAt: at,
        };
        await tx.verificationRequests.update(rejected);
        await recordAudit(tx, {
          accountId,
          by,
          action: "account.verification_rejected",
          target: { type: "account", id: accountId },
          changes: changedFields(request, rejected, ["status", "rejectionReason"]),
          at,
        });
        return { rejected, account };
      });
      mailVerificationDecision(deps, decided.account, decided.rejected, { verified: false, reason: decision.reason });
      return presentRequest(decided.rejected, decided.account);
    },
  };
}
