/**
 * Pix Automático at the bank (issue 36 §2): the domain's `RecurrenceBank` port spoken through the
 * Central Bank's API Pix (`/locrec`, `/rec`, `/cobr`, `/webhookrec`, `/webhookcobr`), typed by the
 * vendored document (generated/bank/pix-api.d.ts) and sent with openapi-fetch over the connection's
 * mutual-TLS transport (`BankClient.transport`: the same sockets, bounded wait and token cache as
 * the charges). The recurrences ask their own token (their scopes below), so an account whose bank
 * grants no Pix Automático still receives charges.
 *
 * A cycle charge names the account it credits (`recebedor`: branch, number and kind, required by
 * the document): `PIX_BANK_ACCOUNT`. Without it the adapter offers no recurrences, and Pix
 * Automático stays with the settlement simulator.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "../../../generated/bank/pix-api.js";
import { BankRefusedError } from "../domain/ports/pix-bank.js";
import type {
  BankCycleCharge,
  BankRecurrence,
  BankRecurrenceRequest,
  BankWindow,
  RecurrenceBank,
} from "../domain/ports/recurrence-bank.js";
import { answerFailure, malformed, type BankClient } from "./client.js";
import { centsFromValor, valorFromCents } from "./money.js";

type Schemas = components["schemas"];

/** The platform's account at the bank, as a cycle charge names it (`DadosBancariosRecebedor`). */
export interface BankAccountNumber {
  branch: string | null;
  number: string;
  kind: "CORRENTE" | "POUPANCA" | "PAGAMENTO";
}

/** `PIX_BANK_ACCOUNT`: `<branch>/<number>/<kind>` (the branch may be empty), or why it is not one. */
export function parseBankAccount(text: string): BankAccountNumber | string {
  const match = /^(\d{0,4})\/(\d{1,20})\/(CORRENTE|POUPANCA|PAGAMENTO)$/.exec(text.trim());
  if (!match) return "esperado <agência>/<conta>/<CORRENTE|POUPANCA|PAGAMENTO>, por exemplo 0001/1234567/CORRENTE";
  return { branch: match[1] || null, number: match[2] as string, kind: match[3] as BankAccountNumber["kind"] };
}

/** The scope each call needs, as the document's `security` states it. */
export const recurrenceScopesByOperation = {
  "POST /locrec": "payloadlocationrec.write",
  "GET /locrec/{id}": "payloadlocationrec.read",
  "POST /rec": "rec.write",
  "GET /rec/{idRec}": "rec.read",
  "GET /rec": "rec.read",
  "PATCH /rec/{idRec}": "rec.write",
  "PUT /cobr/{txid}": "cobr.write",
  "GET /cobr/{txid}": "cobr.read",
  "GET /cobr": "cobr.read",
  "PATCH /cobr/{txid}": "cobr.write",
  "POST /cobr/{txid}/retentativa/{data}": "cobr.write",
  "PUT /webhookrec": "webhookrec.write",
  "PUT /webhookcobr": "webhookcobr.write",
} as const;

const scope = [...new Set(Object.values(recurrenceScopesByOperation))].join(" ");

/** Items a page of the reconciler's listings asks for (the document allows 1 to 1000). */
const listPageSize = 100;

/** The query of `GET /rec` and `GET /cobr`: the standard's window and page (from 0). */
const listQuery = (window: BankWindow, page: number) => ({
  inicio: window.from,
  fim: window.to,
  "paginacao.paginaAtual": page,
  "paginacao.itensPorPagina": listPageSize,
});

const periodicities = {
  WEEKLY: "SEMANAL",
  MONTHLY: "MENSAL",
  QUARTERLY: "TRIMESTRAL",
  SEMIANNUAL: "SEMESTRAL",
  ANNUAL: "ANUAL",
} as const;

function cents(valor: string, where: string): number {
  try {
    return centsFromValor(valor);
  } catch (error) {
    throw malformed(where, error);
  }
}

/** A non-2xx answer as the port says it (5xx: unknown outcome; 4xx: the bank's refusal). */
function failure(response: Response, problem: unknown): Error {
  const parsed = problem as Partial<Schemas["Problema"]> | undefined;
  const detail = typeof parsed === "object" && parsed !== null ? (parsed.detail ?? parsed.title) : undefined;
  return answerFailure(response, detail || undefined);
}

/** What a rec answer carries that the domain reads (`RecGerada`, `RecCompleta`, `RecCompletaPesquisada`). */
type RecAnswer = Pick<Schemas["RecGerada"], "idRec" | "status" | "encerramento"> & {
  dadosQR?: Schemas["RecCompleta"]["dadosQR"];
};

function recurrenceFrom(rec: RecAnswer): BankRecurrence {
  const ending = rec.encerramento;
  return {
    recId: rec.idRec,
    status: rec.status,
    copyPaste: rec.dadosQR?.pixCopiaECola ?? null,
    rejection:
      ending && "rejeicao" in ending ? { code: ending.rejeicao.codigo, reason: ending.rejeicao.descricao } : null,
    cancellation:
      ending && "cancelamento" in ending
        ? {
            by: ending.cancelamento.solicitante,
            code: ending.cancelamento.codigo,
            reason: ending.cancelamento.descricao,
          }
        : null,
  };
}

/** What a cobr answer carries that the domain reads (`CobRGerada`, `CobRCompleta`). */
type CobrAnswer = Pick<Schemas["CobRCompleta"], "idRec" | "txid" | "status" | "valor"> & Schemas["CobRTentativas"];

function cycleChargeFrom(cobr: CobrAnswer): BankCycleCharge {
  return {
    txid: cobr.txid,
    recId: cobr.idRec,
    status: cobr.status,
    amountCents: cents(cobr.valor.original, "cobr.valor.original"),
    attempts: (cobr.tentativas ?? []).map((t) => ({
      date: t.dataLiquidacao,
      status: t.status,
      endToEndId: t.endToEndId,
      rejection: t.rejeicao ? { code: t.rejeicao.codigo, reason: t.rejeicao.descricao } : null,
    })),
  };
}

/** The domain's recurrence as the standard's `RecSolicitada`. */
function recFrom(request: BankRecurrenceRequest, retries: boolean): Schemas["RecSolicitada"] {
  const { payer } = request;
  const nome = payer.name.slice(0, 140);
  return {
    vinculo: {
      contrato: request.contract.slice(0, 35),
      devedor: payer.documentType === "CPF" ? { cpf: payer.document, nome } : { cnpj: payer.document, nome },
      ...(request.description ? { objeto: request.description.slice(0, 35) } : {}),
    },
    calendario: {
      dataInicial: request.firstDate,
      ...(request.lastDate === null ? {} : { dataFinal: request.lastDate }),
      periodicidade: periodicities[request.periodicity],
    },
    ...(request.amountCents !== null
      ? { valor: { valorRec: valorFromCents(request.amountCents) } }
      : request.minimumAmountCents !== null
        ? { valor: { valorMinimoRecebedor: valorFromCents(request.minimumAmountCents) } }
        : {}),
    politicaRetentativa: retries ? "PERMITE_3R_7D" : "NAO_PERMITE",
    loc: request.locationId,
    ...(request.initialTxid === null ? {} : { ativacao: { dadosJornada: { txid: request.initialTxid } } }),
  };
}

/** The recurrences of `client`'s connection, or null without the platform's account number. */
function recurrenceBankFrom(client: BankClient, account: BankAccountNumber | null): RecurrenceBank | null {
  if (account === null) return null;
  const { transport } = client;
  const api = createClient<paths>({
    baseUrl: transport.baseUrl,
    fetch: (request) => transport.fetch(request),
    Request: transport.Request,
  });
  const authorized = <R extends { response: Response }>(
    call: (init: { headers: { authorization: string }; signal: AbortSignal }) => Promise<R>,
  ): Promise<R> => transport.authorized(scope, call);

  const readCobr = async (txid: string) => {
    const { data, error, response } = await authorized((init) =>
      api.GET("/cobr/{txid}", { params: { path: { txid } }, ...init }),
    );
    if (response.status === 404) return null;
    if (!data) throw failure(response, error);
    return cycleChargeFrom(data);
  };

  return {
    async createLocation() {
      const { data, error, response } = await authorized((init) => api.POST("/locrec", { ...init }));
      if (!data) throw failure(response, error);
      return { id: data.id, location: data.location };
    },

    async readLocation(id) {
      const { data, error, response } = await authorized((init) =>
        api.GET("/locrec/{id}", { params: { path: { id: String(id) } }, ...init }),
      );
      if (response.status === 404) return null;
      if (!data) throw failure(response, error);
      return { id: data.id, recId: data.idRec ?? null };
    },

    async createRecurrence(request) {
      const { data, error, response } = await authorized((init) =>
        api.POST("/rec", { body: recFrom(request, request.retries), ...init }),
      );
      if (!data) throw failure(response, error);
      return recurrenceFrom(data);
    },

    async readRecurrence(recId, txid) {
      const { data, error, response } = await authorized((init) =>
        api.GET("/rec/{idRec}", {
          params: { path: { idRec: recId }, ...(txid === undefined ? {} : { query: { txid } }) },
          ...init,
        }),
      );
      if (response.status === 404) return null;
      if (!data) throw failure(response, error);
      return recurrenceFrom(data);
    },

    async cancelRecurrence(recId) {
      const { data, error, response } = await authorized((init) =>
        api.PATCH("/rec/{idRec}", { params: { path: { idRec: recId } }, body: { status: "CANCELADA" }, ...init }),
      );
      if (data) return recurrenceFrom(data);
      const refused = failure(response, error);
      // A recurrence cancelled already (by us before a lost answer, or by the payer) is what we asked.
      if (refused instanceof BankRefusedError && response.status !== 404) {
        const now = await this.readRecurrence(recId);
        if (now && now.status !== "CRIADA" && now.status !== "APROVADA") return now;
      }
      throw refused;
    },

    async registerCycleCharge(request) {
      const description = request.description.slice(0, 140);
      const body: Schemas["CobRSolicitada"] = {
        idRec: request.recId,
        calendario: { dataDeVencimento: request.dueDate },
        valor: { original: valorFromCents(request.amountCents) },
        ajusteDiaUtil: request.adjustToBusinessDay,
        recebedor: {
          conta: account.number,
          tipoConta: account.kind,
          ...(account.branch === null ? {} : { agencia: account.branch }),
        },
        ...(description ? { infoAdicional: description } : {}),
      };
      const { data, error, response } = await authorized((init) =>
        api.PUT("/cobr/{txid}", { params: { path: { txid: request.txid } }, body, ...init }),
      );
      if (data) return cycleChargeFrom(data);
      const refused = failure(response, error);
      // The same txid again (a lost answer): the bank says it is in use; what it holds is ours.
      if (refused instanceof BankRefusedError && response.status === 400) {
        const held = await readCobr(request.txid);
        if (held && held.recId === request.recId) return held;
      }
      throw refused;
    },

    readCycleCharge: readCobr,

    async retryCycleCharge(txid, date) {
      const { data, error, response } = await authorized((init) =>
        api.POST("/cobr/{txid}/retentativa/{data}", { params: { path: { txid, data: date } }, ...init }),
      );
      if (!data) throw failure(response, error);
      return cycleChargeFrom(data);
    },

    async cancelCycleCharge(txid) {
      const { data, error, response } = await authorized((init) =>
        api.PATCH("/cobr/{txid}", { params: { path: { txid } }, body: { status: "CANCELADA" }, ...init }),
      );
      if (!data) throw failure(response, error);
      return cycleChargeFrom(data);
    },

    async listRecurrences(window, page) {
      const { data, error, response } = await authorized((init) =>
        api.GET("/rec", { params: { query: listQuery(window, page) }, ...init }),
      );
      if (!data) throw failure(response, error);
      return { items: data.recs.map(recurrenceFrom), pages: data.parametros.paginacao.quantidadeDePaginas };
    },

    async listCycleCharges(window, page) {
      const { data, error, response } = await authorized((init) =>
        api.GET("/cobr", { params: { query: listQuery(window, page) }, ...init }),
      );
      if (!data) throw failure(response, error);
      return { items: data.cobsr.map(cycleChargeFrom), pages: data.parametros.paginacao.quantidadeDePaginas };
    },

    async registerWebhooks(url) {
      for (const path of ["/webhookrec", "/webhookcobr"] as const) {
        const { error, response } = await authorized((init) => api.PUT(path, { body: { webhookUrl: url }, ...init }));
        if (!response.ok) throw failure(response, error);
      }
    },
  };
}

/** `client` with its recurrences (`RecurrenceBank`) when the platform's account is known. */
export function withRecurrences(
  client: BankClient,
  account: BankAccountNumber | null,
): BankClient & { recurrences?: RecurrenceBank } {
  const recurrences = recurrenceBankFrom(client, account);
  if (recurrences === null) return client;
  return Object.assign(client, { recurrences });
}
