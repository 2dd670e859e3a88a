/**
 * The domain's `PixPayouts` spoken to Efí (spec/bank/efi-payouts, a document of our own from Efí's
 * documentation and SDK; types generated into generated/bank/efi-payouts.d.ts), over the
 * connection's transport (the API Pix's mutual-TLS Agent, its bounded wait, a token of its own
 * for the payout scopes).
 *
 * Idempotency is the id in the path: Efí refuses a second `PUT /v3/gn/pix/{idEnvio}` with the same
 * id (`409 id_envio_duplicado`) and pays nothing, so a repeat reads the transfer back and answers it
 * when it is the same amount to the same key.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "../../../generated/bank/efi-payouts.js";
import { BankRefusedError } from "../domain/ports/pix-bank.js";
import type { PayoutStatus, PayoutTransfer, PixPayouts } from "../domain/ports/pix-payouts.js";
import { answerFailure, malformed, type BankTransport } from "./client.js";
import { centsFromValor, valorFromCents } from "./money.js";

type Schemas = components["schemas"];

/**
 * The scope each call needs, as the document's `security` states it (a test compares this table
 * with generated/bank/efi-payouts.yaml). One token is asked with all of them.
 */
export const efiPayoutScopes = {
  "PUT /v3/gn/pix/{idEnvio}": "pix.send",
  "GET /v2/gn/pix/enviados/id-envio/{idEnvio}": "gn.pix.send.read",
  "GET /v2/gn/saldo": "gn.balance.read",
} as const;

const scope = Object.values(efiPayoutScopes).join(" ");

const statuses: Record<Schemas["EnvioStatus"], PayoutStatus> = {
  EM_PROCESSAMENTO: "PENDING",
  REALIZADO: "PAID",
  NAO_REALIZADO: "FAILED",
};

/** Efí's own error body (`{ nome, mensagem }`) or the standard's problem, as one sentence. */
function detailOf(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { mensagem, nome, detail, title } = body as Record<string, unknown>;
  if (typeof mensagem === "string") return typeof nome === "string" ? `${mensagem} (${nome})` : mensagem;
  if (typeof detail === "string") return detail;
  return typeof title === "string" ? title : undefined;
}

function cents(valor: string, where: string): number {
  try {
    return centsFromValor(valor);
  } catch (error) {
    throw malformed(where, error);
  }
}

function sentFrom(sent: Schemas["PixEnviado"]): PayoutTransfer & { key: string | null } {
  const status = statuses[sent.status];
  return {
    transferId: sent.idEnvio,
    bankReference: null,
    status,
    amountCents: cents(sent.valor, "pix enviado: valor"),
    endToEndId: sent.endToEndId,
    reason: status === "FAILED" ? "o Pix não foi realizado (NAO_REALIZADO)" : null,
    key: sent.favorecido?.chave ?? null,
  };
}

/**
 * Efí's payouts for the connection: `payerKey` is the account's key that pays (Efí requires one,
 * with a webhook registered: the connection's receiving key).
 */
export function efiPayouts(transport: BankTransport, payerKey: string): PixPayouts {
  // Efí's payout routes carry their own version (/v3/gn/…, /v2/gn/…) on the API Pix's host.
  const api = createClient<paths>({
    baseUrl: new URL(transport.baseUrl).origin,
    fetch: (request) => transport.fetch(request),
    Request: transport.Request,
  });

  async function read(transferId: string): Promise<(PayoutTransfer & { key: string | null }) | null> {
    const { data, error, response } = await transport.authorized(scope, (init) =>
      api.GET("/v2/gn/pix/enviados/id-envio/{idEnvio}", { params: { path: { idEnvio: transferId } }, ...init }),
    );
    if (response.status === 404) return null;
    if (!data) throw answerFailure(response, detailOf(error));
    return sentFrom(data);
  }

  return {
    readsByTransferId: true,

    async send(transfer) {
      const body: Schemas["EnvioSolicitado"] = {
        valor: valorFromCents(transfer.amountCents),
        pagador: {
          chave: payerKey,
          ...(transfer.description ? { infoPagador: transfer.description.slice(0, 140) } : {}),
        },
        favorecido: { chave: transfer.destination.key },
      };
      const { data, error, response } = await transport.authorized(scope, (init) =>
        api.PUT("/v3/gn/pix/{idEnvio}", { params: { path: { idEnvio: transfer.transferId } }, body, ...init }),
      );
      if (data) {
        const status = statuses[data.status];
        return {
          transferId: data.idEnvio,
          bankReference: null,
          status,
          amountCents: cents(data.valor, "envio: valor"),
          endToEndId: data.e2eId,
          reason: status === "FAILED" ? "o Pix não foi realizado (NAO_REALIZADO)" : null,
        };
      }
      if (response.status === 409) {
        // The id was used: this transfer, sent before (its answer lost), or another one.
        const sent = await read(transfer.transferId);
        if (sent && sent.amountCents === transfer.amountCents && sent.key === transfer.destination.key) {
          const { key: _key, ...same } = sent;
          return same;
        }
        throw new BankRefusedError(409, detailOf(error) ?? "o id de envio já foi usado em outra transferência");
      }
      throw answerFailure(response, detailOf(error));
    },

    async read(reference) {
      const sent = await read(reference.transferId);
      if (!sent) return null;
      const { key: _key, ...transfer } = sent;
      return transfer;
    },

    async balance() {
      const { data, error, response } = await transport.authorized(scope, (init) =>
        api.GET("/v2/gn/saldo", { ...init }),
      );
      if (!data) throw answerFailure(response, detailOf(error));
      return { availableCents: cents(data.saldo, "saldo") };
    },
  };
}
