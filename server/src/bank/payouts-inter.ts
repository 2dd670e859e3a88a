/**
 * The domain's `PixPayouts` spoken to Banco Inter's API Banking (spec/bank/inter-payouts, a
 * document of our own from Inter's SDKs; types generated into generated/bank/inter-payouts.d.ts),
 * over the connection's transport (the API Pix's mutual-TLS Agent, its bounded wait, a token of
 * its own for the payout scopes).
 *
 * Idempotency is the `x-id-idempotente` header, a UUID derived from our transfer id (the same on
 * every retry): Inter never pays the same key twice and answers a repeat with the transfer already
 * made. Inter reads a Pix sent only by its own code (`codigoSolicitacao`), so an unknown outcome
 * without it is learnt by sending again with the same id (`readsByTransferId: false`).
 */
import { createHash } from "node:crypto";
import createClient from "openapi-fetch";
import type { components, paths } from "../../../generated/bank/inter-payouts.js";
import type { PayoutStatus, PixPayouts } from "../domain/ports/pix-payouts.js";
import { answerFailure, malformed, type BankTransport } from "./client.js";
import { valorFromCents } from "./money.js";

type Schemas = components["schemas"];

/**
 * The scope each call needs, as the document's `security` states it (a test compares this table
 * with generated/bank/inter-payouts.yaml). One token is asked with all of them.
 */
export const interPayoutScopes = {
  "POST /banking/v2/pix": "pagamento-pix.write",
  "GET /banking/v2/pix/{codigoSolicitacao}": "pagamento-pix.read",
  "GET /banking/v2/saldo": "extrato.read",
} as const;

const scope = Object.values(interPayoutScopes).join(" ");

/** What `POST` answers: settled later, or waiting for a person's approval at the bank. */
const returned: Record<Schemas["TipoRetorno"], PayoutStatus> = {
  PROCESSADO: "PENDING",
  AGENDADO: "PENDING",
  APROVACAO: "AWAITING_APPROVAL",
};

/** A Pix sent, as it moves (inter-co/pj-sdk-java banking/enums/PixStatus.java). */
const statuses: Record<Schemas["StatusPix"], PayoutStatus> = {
  CRIADO: "PENDING",
  TRANSACAO_CRIADA: "PENDING",
  AGUARDANDO_APROVACAO: "AWAITING_APPROVAL",
  APROVADO: "PENDING",
  TRANSACAO_APROVADA: "PENDING",
  AGENDADO: "PENDING",
  ENVIADO: "PENDING",
  PIX_ENVIADO: "PENDING",
  DEBITADO: "PENDING",
  PARCIALMENTE_DEBITADO: "PENDING",
  PARCIALMENTE_PAGO: "PENDING",
  PAGO: "PAID",
  PIX_PAGO: "PAID",
  REPROVADO: "FAILED",
  EXPIRADO: "FAILED",
  CANCELADO: "FAILED",
  CANCELADO_SEM_SALDO: "FAILED",
  FALHA: "FAILED",
  NAO_DEBITADO: "FAILED",
  AGENDAMENTO_CANCELADO: "FAILED",
};

/**
 * Our transfer id as Inter's idempotency key: a name-based UUID (RFC 9562 version 5, SHA-1) in a
 * namespace of ours, so the same transfer id is the same key in every process and on every retry.
 */
export function idempotencyKeyOf(transferId: string): string {
  const namespace = Buffer.from("8f1b6c2e4a7d4e0b9c3f5a1d2e6b7c80", "hex");
  const hash = createHash("sha1").update(namespace).update(transferId, "utf8").digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Reais as Inter's reads write them (a JSON number) to integer cents. */
function centsOf(reais: number, where: string): number {
  const value = Math.round(reais * 100);
  if (!Number.isSafeInteger(value) || value < 0) throw malformed(where);
  return value;
}

function detailOf(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { detail, title } = body as Record<string, unknown>;
  if (typeof detail === "string") return detail;
  return typeof title === "string" ? title : undefined;
}

export function interPayouts(transport: BankTransport): PixPayouts {
  // API Banking shares the API Pix's host (…/pix/v2); its routes carry their own base.
  const api = createClient<paths>({
    baseUrl: new URL(transport.baseUrl).origin,
    fetch: (request) => transport.fetch(request),
    Request: transport.Request,
  });

  return {
    readsByTransferId: false,

    async send(transfer) {
      const body: Schemas["Pix"] = {
        valor: valorFromCents(transfer.amountCents),
        ...(transfer.description ? { descricao: transfer.description.slice(0, 140) } : {}),
        destinatario: { tipo: "CHAVE", chave: transfer.destination.key },
      };
      const { data, error, response } = await transport.authorized(scope, (init) =>
        api.POST("/banking/v2/pix", {
          params: { header: { "x-id-idempotente": idempotencyKeyOf(transfer.transferId) } },
          body,
          ...init,
        }),
      );
      if (!data) throw answerFailure(response, detailOf(error));
      return {
        transferId: transfer.transferId,
        bankReference: data.codigoSolicitacao,
        status: returned[data.tipoRetorno],
        amountCents: transfer.amountCents,
        endToEndId: data.endToEndId ?? null,
        reason: null,
      };
    },

    async read(reference) {
      if (reference.bankReference === null) {
        throw new TypeError(
          "o Inter consulta um Pix enviado só pelo código da solicitação: envie de novo com o mesmo id",
        );
      }
      const codigoSolicitacao = reference.bankReference;
      const { data, error, response } = await transport.authorized(scope, (init) =>
        api.GET("/banking/v2/pix/{codigoSolicitacao}", { params: { path: { codigoSolicitacao } }, ...init }),
      );
      if (response.status === 404) return null;
      if (!data) throw answerFailure(response, detailOf(error));
      const sent = data.transacaoPix;
      const status = statuses[sent.status];
      const failure = sent.erros?.[0];
      return {
        transferId: reference.transferId,
        bankReference: sent.codigoSolicitacao,
        status,
        amountCents: centsOf(sent.valor, "transacaoPix.valor"),
        endToEndId: sent.endToEnd ?? null,
        reason:
          status === "FAILED"
            ? (failure?.descricaoErro ?? failure?.codigoErro ?? `o Pix terminou ${sent.status}`)
            : null,
      };
    },

    async balance() {
      const { data, error, response } = await transport.authorized(scope, (init) =>
        api.GET("/banking/v2/saldo", { ...init }),
      );
      if (!data) throw answerFailure(response, detailOf(error));
      return { availableCents: centsOf(data.disponivel, "saldo.disponivel") };
    },
  };
}
