/**
 * Pix Automático in the fake bank (issue 36 §2): the receiving customer's side of the Central
 * Bank's API Pix (`/locrec`, `/rec`, `/cobr`, `/webhookrec`, `/webhookcobr`; the listings `GET /rec`
 * and `GET /cobr` by creation instant, paged, for the receiver's reconciler), and the payer's side a
 * test or a person plays through the control API and the page: approve (journey 2, or journey 3 by
 * paying the composite QR), reject, cancel; each cycle charge debited on its date (`runDate`), paid
 * or refused for want of balance (`setPayerFunds`) or another reason, then retried as the
 * recurrence's policy allows when the receiver asks (`POST /cobr/{txid}/retentativa/{data}`).
 * Requests and answers pass the same validator as the rest of the API (api.ts); every change is
 * notified to the customer's registered webhook (`{url}/rec`, `{url}/cobr`) by the callback sender,
 * with the bank's certificate, its faults and its check of the body against the document.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Request, Response, Router } from "express";
import type { components } from "../../generated/bank/pix-api.js";
import { buildRecurrenceBrCode, recurrenceLocation, withRecurrence } from "../../server/src/pix/recurrence-brcode.js";
import type { CallbackSender } from "./callbacks.js";
import type { CobRecord, Customer, Ledger } from "./state.js";
import { alnum, cents, endToEndId, problem, valor } from "./wire.js";

type Schemas = components["schemas"];
type RecStatus = Schemas["RecStatus"]["status"];
type CobrStatus = NonNullable<Schemas["CobRStatus"]["status"]>;
type Attempt = NonNullable<Schemas["CobRTentativas"]["tentativas"]>[number];
type Ending = Schemas["RecEncerramento"]["encerramento"];
type CobrEnding = Schemas["CobRAtualizacao"]["encerramento"];

/** The bank's ISPB in the ids it writes (idRec, end-to-end ids of the debits). */
const ISPB = "99999999";
/** The payer's PSP in the end-to-end ids of the debits. */
const PAYER_ISPB = "12345678";

interface LocRec {
  clientId: string;
  id: number;
  token: string;
  location: string;
  criacao: string;
  idRec?: string;
}

interface RecRecord {
  clientId: string;
  idRec: string;
  vinculo: Schemas["RecBase"]["vinculo"];
  calendario: Schemas["RecBase"]["calendario"];
  valor?: Schemas["RecBase"]["valor"];
  politicaRetentativa: Schemas["RecConfiguracao"]["politicaRetentativa"];
  status: RecStatus;
  atualizacao: { status: RecStatus; data: string }[];
  locId?: number;
  /** Journey 3: the cob whose payment starts it. */
  txid?: string;
  tipoJornada: "JORNADA_1" | "JORNADA_2" | "JORNADA_3" | "JORNADA_4" | "AGUARDANDO_DEFINICAO";
  encerramento?: Ending;
}

interface CobrRecord {
  clientId: string;
  txid: string;
  idRec: string;
  criacao: string;
  dataDeVencimento: string;
  /** Cents. */
  original: number;
  ajusteDiaUtil: boolean;
  recebedor: Schemas["DadosBancariosRecebedor"];
  infoAdicional?: string;
  devedor?: Schemas["DadosDevedorRecorrencia"]["devedor"];
  status: CobrStatus;
  atualizacao: { status: CobrStatus; data: string }[];
  tentativas: Attempt[];
  encerramento?: CobrEnding;
  pix: { endToEndId: string; valor: string; horario: string }[];
}

/** How the payer's account answers a debit. */
export interface PayerFunds {
  /** Refuse every debit for want of balance (AM04), until switched back. */
  insufficient: boolean;
}

/** What the control API and the page call. */
export interface FakeRecurrences {
  /** The customer's account as `PIX_BANK_ACCOUNT` names it (`0001/<number>/CORRENTE`). */
  accountOf(clientId: string): string;
  approve(idRec: string): void;
  reject(idRec: string, code?: "AP13" | "AP14"): void;
  cancelByPayer(idRec: string): void;
  /** Debits every attempt due on or before `date` (default: today, in Brasília). Answers how many. */
  runDate(date?: string): number;
  setPayerFunds(funds: PayerFunds): void;
  list(): { recs: Schemas["RecCompleta"][]; cobrs: Schemas["CobRCompleta"][] };
}

const today = () => new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
/** The next weekday on or after `date` (the fake bank knows no holidays). */
const businessDay = (date: string) => {
  let d = date;
  while ([0, 6].includes(new Date(`${d}T00:00:00Z`).getUTCDay())) d = addDays(d, 1);
  return d;
};

/**
 * A listing's window and page, as the document's query gives them (`inicio`, `fim` by creation,
 * both ends included; `paginacao.paginaAtual` from 0, `paginacao.itensPorPagina` 1 to 1000, default
 * 100); the validator checked their shapes already. The document declares no 400 for these
 * listings: a window whose end comes before its start simply holds nothing.
 */
function listingOf(req: Request) {
  const query = req.query as Record<string, string | number | undefined>;
  const inicio = String(query.inicio);
  const fim = String(query.fim);
  const from = Date.parse(inicio);
  const to = Date.parse(fim);
  const paginaAtual = Number(query["paginacao.paginaAtual"] ?? 0);
  const itensPorPagina = Number(query["paginacao.itensPorPagina"] ?? 100);
  return {
    inicio,
    fim,
    covers: (at: string | undefined) => at !== undefined && Date.parse(at) >= from && Date.parse(at) <= to,
    page<T>(items: T[]) {
      const start = paginaAtual * itensPorPagina;
      return {
        items: items.slice(start, start + itensPorPagina),
        paginacao: {
          paginaAtual,
          itensPorPagina,
          quantidadeDePaginas: Math.max(1, Math.ceil(items.length / itensPorPagina)),
          quantidadeTotalDeItens: items.length,
        },
      };
    },
  };
}

class RecError extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

/** A control action the bank refuses (the control API answers 400 with its message). */
class FakeBankError extends Error {
  override name = "FakeBankError";
}

export class RecurrenceBook implements FakeRecurrences {
  private readonly locs = new Map<number, LocRec>();
  private readonly locsByToken = new Map<string, LocRec>();
  private readonly recs = new Map<string, RecRecord>();
  private readonly cobrs = new Map<string, CobrRecord>();
  /** By `${clientId}\u0000rec|cobr`. */
  private readonly webhooks = new Map<string, { url: string; criacao: string }>();
  private nextLocId = 1;
  private funds: PayerFunds = { insufficient: false };

  constructor(
    private readonly ledger: Ledger,
    private readonly callbacks: CallbackSender,
    private readonly locationHost: () => string,
  ) {}

  accountOf(clientId: string): string {
    const digits = BigInt(`0x${createHash("sha256").update(clientId).digest("hex").slice(0, 12)}`).toString();
    return `0001/${digits.slice(0, 7).padStart(7, "0")}/CORRENTE`;
  }

  // ---- The API (mounted on the API Pix's router, after the token, the validator and the scopes).

  routes(router: Router): void {
    const handle =
      (work: (req: Request, res: Response, customer: Customer) => void) => (req: Request, res: Response) => {
        const customer = (res.locals as { customer: Customer }).customer;
        try {
          work(req, res, customer);
        } catch (error) {
          if (!(error instanceof RecError)) throw error;
          res
            .status(error.status)
            .type("application/problem+json")
            .json(
              problem(
                error.status,
                error.kind,
                error.status === 404 ? "Não encontrado" : "Requisição inválida",
                error.message,
                error.status === 400 ? [{ razao: error.message, propriedade: error.kind }] : undefined,
              ),
            );
        }
      };

    router.post(
      "/locrec",
      handle((_req, res, customer) => {
        const id = this.nextLocId++;
        const token = randomBytes(16).toString("hex");
        const loc: LocRec = {
          clientId: customer.clientId,
          id,
          token,
          location: `${this.locationHost()}/qr/v2/rec/${token}`,
          criacao: new Date().toISOString(),
        };
        this.locs.set(id, loc);
        this.locsByToken.set(token, loc);
        res.setHeader("location", `https://${this.locationHost()}/api/v2/locrec/${id}`);
        res.status(201).json({ id, location: loc.location, criacao: loc.criacao });
      }),
    );

    router.get(
      "/locrec/:id",
      handle((req, res, customer) => {
        const loc = this.locs.get(Number(String(req.params.id)));
        if (!loc || loc.clientId !== customer.clientId)
          throw new RecError(404, "NaoEncontrado", "Location não encontrada.");
        res.json(this.locAnswer(loc));
      }),
    );

    router.post(
      "/rec",
      handle((req, res, customer) => {
        const body = req.body as Schemas["RecSolicitada"];
        const invalid = (detail: string) => new RecError(400, "RecOperacaoInvalida", detail);
        if (body.calendario.dataInicial < today())
          throw invalid("O campo rec.calendario.dataInicial é anterior à data de criação da recorrência.");
        if (body.calendario.dataFinal !== undefined && body.calendario.dataFinal < body.calendario.dataInicial)
          throw invalid("O campo rec.calendario.dataFinal é anterior ao campo rec.calendario.dataInicial.");
        if (body.valor?.valorRec !== undefined && body.valor.valorMinimoRecebedor !== undefined)
          throw invalid("Ambos os campos rec.valor.valorRec e rec.valor.valorMinimoRecebedor estão preenchidos.");
        let loc: LocRec | undefined;
        if (body.loc !== undefined) {
          loc = this.locs.get(Number(body.loc));
          if (!loc || loc.clientId !== customer.clientId)
            throw invalid("O location referenciado por rec.loc inexiste.");
          if (loc.idRec !== undefined)
            throw invalid("O location referenciado por rec.loc já está sendo utilizado por outra recorrência.");
        }
        const txid = body.ativacao?.dadosJornada?.txid;
        if (txid !== undefined && !this.ledger.cobs.has(this.ledger.cobKey(customer.clientId, txid)))
          throw invalid("O campo rec.ativacao.dadosJornada.txid não corresponde a uma cobrança imediata.");
        const retries = body.politicaRetentativa === "PERMITE_3R_7D";
        const now = new Date();
        const idRec = `R${retries ? "R" : "N"}${ISPB}${now.toISOString().slice(0, 10).replace(/-/g, "")}${alnum(11)}`;
        const rec: RecRecord = {
          clientId: customer.clientId,
          idRec,
          vinculo: body.vinculo,
          calendario: body.calendario,
          ...(body.valor === undefined ? {} : { valor: body.valor }),
          politicaRetentativa: body.politicaRetentativa,
          status: "CRIADA",
          atualizacao: [{ status: "CRIADA", data: now.toISOString() }],
          ...(loc === undefined ? {} : { locId: loc.id }),
          ...(txid === undefined ? {} : { txid }),
          tipoJornada: txid !== undefined ? "JORNADA_3" : "AGUARDANDO_DEFINICAO",
        };
        this.recs.set(idRec, rec);
        if (loc) loc.idRec = idRec;
        res.status(201).json(this.recAnswer(rec));
      }),
    );

    router.get(
      "/rec",
      handle((req, res, customer) => {
        const listing = listingOf(req);
        const { cpf, cnpj, status, locationPresente } = req.query as Record<string, string | undefined>;
        const recs = [...this.recs.values()]
          .filter((rec) => rec.clientId === customer.clientId && listing.covers(rec.atualizacao[0]?.data))
          .filter((rec) => cpf === undefined || ("cpf" in rec.vinculo.devedor && rec.vinculo.devedor.cpf === cpf))
          .filter((rec) => cnpj === undefined || ("cnpj" in rec.vinculo.devedor && rec.vinculo.devedor.cnpj === cnpj))
          .filter((rec) => status === undefined || rec.status === status)
          .filter(
            (rec) => locationPresente === undefined || (rec.locId !== undefined) === (locationPresente === "true"),
          )
          .sort((a, b) => (a.atualizacao[0]?.data ?? "").localeCompare(b.atualizacao[0]?.data ?? ""));
        const page = listing.page(recs);
        const answer: Schemas["RecsConsultadas"] = {
          parametros: {
            inicio: listing.inicio,
            fim: listing.fim,
            ...(cpf === undefined ? {} : { cpf }),
            ...(cnpj === undefined ? {} : { cnpj }),
            ...(status === undefined ? {} : { status }),
            ...(locationPresente === undefined ? {} : { locationPresente: locationPresente === "true" }),
            paginacao: page.paginacao,
          },
          recs: page.items.map((rec) => this.recListed(rec)),
        };
        res.json(answer);
      }),
    );

    router.get(
      "/rec/:idRec",
      handle((req, res, customer) => {
        const rec = this.ownRec(customer, String(req.params.idRec ?? ""));
        const txid = typeof req.query.txid === "string" ? req.query.txid : undefined;
        if (txid !== undefined && txid !== rec.txid)
          throw new RecError(
            400,
            "RecConsultaInvalida",
            "O parâmetro txid corresponde a uma cobrança imediata diferente da informada em ativacao.dadosJornada.txid.",
          );
        res.json(this.recComplete(rec, txid));
      }),
    );

    router.patch(
      "/rec/:idRec",
      handle((req, res, customer) => {
        const rec = this.ownRec(customer, String(req.params.idRec ?? ""));
        const body = req.body as Schemas["RecRevisada"];
        if (body.status !== "CANCELADA")
          throw new RecError(
            400,
            "RecOperacaoInvalida",
            "Este banco só revisa o status de uma recorrência (CANCELADA).",
          );
        if (rec.status !== "CRIADA" && rec.status !== "APROVADA")
          throw new RecError(400, "RecOperacaoInvalida", "A recorrência encontra-se expirada, cancelada ou rejeitada.");
        this.cancel(rec, "USUARIO_RECEBEDOR", "SLCR", "Cancelamento solicitado pelo usuário recebedor");
        res.status(200).json(this.recAnswer(rec));
      }),
    );

    router.put(
      "/cobr/:txid",
      handle((req, res, customer) => {
        const body = req.body as Schemas["CobRSolicitada"];
        const txid = String(req.params.txid ?? "");
        const invalid = (detail: string) => new RecError(400, "CobROperacaoInvalida", detail);
        if (this.cobrs.has(txid)) throw invalid("O campo cobr.txid encontra-se em uso.");
        const rec = this.recs.get(body.idRec);
        if (!rec || rec.clientId !== customer.clientId) throw invalid("A recorrência cobr.idRec não existe.");
        if (rec.status !== "APROVADA") throw invalid(`A recorrência está ${rec.status}.`);
        const [branch, number] = this.accountOf(customer.clientId).split("/");
        if (
          body.recebedor.conta !== number ||
          (body.recebedor.agencia !== undefined && body.recebedor.agencia !== branch)
        )
          throw invalid(
            "Os campos cobr.recebedor.conta e cobr.recebedor.agencia correspondem a uma conta que não pertence a este usuário recebedor.",
          );
        const due = body.calendario.dataDeVencimento;
        const ahead = (Date.parse(`${due}T00:00:00Z`) - Date.parse(`${today()}T00:00:00Z`)) / 86_400_000;
        if (ahead < 2 || ahead > 10)
          throw invalid(
            "O campo cobr.calendario.dataDeVencimento deve estar de 2 a 10 dias à frente da criação da cobrança.",
          );
        const live = [...this.cobrs.values()].find(
          (c) =>
            c.idRec === rec.idRec && c.dataDeVencimento === due && c.status !== "REJEITADA" && c.status !== "CANCELADA",
        );
        if (live)
          throw invalid(
            "Existe uma CobR com status diferente de REJEITADA e CANCELADA referente ao mesmo cobr.idRec no mesmo ciclo.",
          );
        const original = cents(body.valor.original);
        if (!(original > 0)) throw invalid("O valor da cobrança não pode ser 0.00.");
        if (rec.valor?.valorRec !== undefined && cents(rec.valor.valorRec) !== original)
          throw invalid("O campo cobr.valor não corresponde ao valor da recorrência.");
        const now = new Date().toISOString();
        const first = body.ajusteDiaUtil ? businessDay(due) : due;
        const cobr: CobrRecord = {
          clientId: customer.clientId,
          txid,
          idRec: rec.idRec,
          criacao: now.slice(0, 10),
          dataDeVencimento: due,
          original,
          ajusteDiaUtil: body.ajusteDiaUtil,
          recebedor: body.recebedor,
          ...(body.infoAdicional === undefined ? {} : { infoAdicional: body.infoAdicional }),
          ...(body.devedor === undefined ? {} : { devedor: body.devedor }),
          status: "ATIVA",
          atualizacao: [
            { status: "CRIADA", data: now },
            { status: "ATIVA", data: now },
          ],
          tentativas: [this.attempt(first, "AGND")],
          pix: [],
        };
        this.cobrs.set(txid, cobr);
        res.status(201).json(this.cobrAnswer(cobr, customer));
      }),
    );

    router.get(
      "/cobr/:txid",
      handle((req, res, customer) => {
        res.json(this.cobrComplete(this.ownCobr(customer, String(req.params.txid ?? "")), customer));
      }),
    );

    router.get(
      "/cobr",
      handle((req, res, customer) => {
        const listing = listingOf(req);
        const { idRec, cpf, cnpj, status } = req.query as Record<string, string | undefined>;
        const cobrs = [...this.cobrs.values()]
          .filter((cobr) => cobr.clientId === customer.clientId && listing.covers(cobr.atualizacao[0]?.data))
          .filter((cobr) => idRec === undefined || cobr.idRec === idRec)
          .filter((cobr) => {
            const devedor = this.recs.get(cobr.idRec)?.vinculo.devedor;
            if (cpf !== undefined) return devedor !== undefined && "cpf" in devedor && devedor.cpf === cpf;
            if (cnpj !== undefined) return devedor !== undefined && "cnpj" in devedor && devedor.cnpj === cnpj;
            return true;
          })
          .filter((cobr) => status === undefined || cobr.status === status)
          .sort((a, b) => (a.atualizacao[0]?.data ?? "").localeCompare(b.atualizacao[0]?.data ?? ""));
        const page = listing.page(cobrs);
        const answer: Schemas["CobsRConsultadas"] = {
          parametros: {
            inicio: listing.inicio,
            fim: listing.fim,
            ...(idRec === undefined ? {} : { idRec }),
            ...(cpf === undefined ? {} : { cpf }),
            ...(cnpj === undefined ? {} : { cnpj }),
            ...(status === undefined ? {} : { status }),
            paginacao: page.paginacao,
          },
          cobsr: page.items.map((cobr) => this.cobrComplete(cobr, customer)),
        };
        res.json(answer);
      }),
    );

    router.patch(
      "/cobr/:txid",
      handle((req, res, customer) => {
        const cobr = this.ownCobr(customer, String(req.params.txid ?? ""));
        const first = cobr.tentativas[0]?.dataLiquidacao ?? cobr.dataDeVencimento;
        if (cobr.status !== "ATIVA" || today() >= first)
          throw new RecError(
            400,
            "CobROperacaoInvalida",
            "Não é possível cancelar uma cobrança em uma data igual ou maior que a data prevista da primeira tentativa de liquidação.",
          );
        this.cancelCobr(cobr, "USUARIO_RECEBEDOR", "SLCR", "Cancelamento solicitado pelo usuário recebedor");
        res.status(200).json(this.cobrAnswer(cobr, customer));
      }),
    );

    router.post(
      "/cobr/:txid/retentativa/:data",
      handle((req, res, customer) => {
        const cobr = this.ownCobr(customer, String(req.params.txid ?? ""));
        const date = String(req.params.data ?? "");
        const invalid = (detail: string) => new RecError(400, "CobROperacaoInvalida", detail);
        const rec = this.recs.get(cobr.idRec);
        if (rec?.politicaRetentativa !== "PERMITE_3R_7D")
          throw invalid("A política configurada na recorrência não permite retentativa de cobrança.");
        if (cobr.status !== "ATIVA") throw invalid(`A cobrança está ${cobr.status}.`);
        if (cobr.tentativas.some((t) => t.status === "SOLICITADA" || t.status === "AGENDADA"))
          throw invalid("Existe uma tentativa com status SOLICITADA ou AGENDADA.");
        if (date <= today()) throw invalid("O parâmetro data não corresponde a uma data futura.");
        const first = cobr.tentativas[0]?.dataLiquidacao ?? cobr.dataDeVencimento;
        const retries = cobr.tentativas.filter((t) => t.tipo !== "AGND").length;
        if (retries >= 3 || date > addDays(first, 7))
          throw invalid("A retentativa passa de três ou da janela de sete dias após a primeira tentativa.");
        cobr.tentativas.push(this.attempt(date, "NTAG"));
        this.notifyCobr(cobr);
        res.status(201).json(this.cobrComplete(cobr, customer));
      }),
    );

    for (const kind of ["rec", "cobr"] as const) {
      router.put(`/webhook${kind}`, (req, res) => {
        const { customer } = res.locals as { customer: Customer };
        const url = String((req.body as { webhookUrl: string }).webhookUrl);
        if (!/^https:\/\//i.test(url)) {
          res
            .status(400)
            .type("application/problem+json")
            .json(problem(400, "WebhookOperacaoInvalida", "Requisição inválida", "A URL do webhook deve ser https."));
          return;
        }
        this.webhooks.set(`${customer.clientId}\u0000${kind}`, { url, criacao: new Date().toISOString() });
        res.status(200).end();
      });
      router.get(`/webhook${kind}`, (_req, res) => {
        const { customer } = res.locals as { customer: Customer };
        const webhook = this.webhooks.get(`${customer.clientId}\u0000${kind}`);
        if (!webhook) {
          res
            .status(404)
            .type("application/problem+json")
            .json(problem(404, "WebhookNaoEncontrado", "Não encontrado"));
          return;
        }
        res.json({ webhookUrl: webhook.url, criacao: webhook.criacao });
      });
      router.delete(`/webhook${kind}`, (_req, res) => {
        const { customer } = res.locals as { customer: Customer };
        if (!this.webhooks.delete(`${customer.clientId}\u0000${kind}`)) {
          res
            .status(404)
            .type("application/problem+json")
            .json(problem(404, "WebhookNaoEncontrado", "Não encontrado"));
          return;
        }
        res.status(204).end();
      });
    }
  }

  // ---- The payer's side.

  /** A cob was paid with `code`: a journey 3 composite QR approves its recurrence. */
  cobPaid(cob: CobRecord, code: string): void {
    let location: string | null;
    try {
      location = recurrenceLocation(code);
    } catch {
      return;
    }
    const prefix = `${this.locationHost()}/qr/v2/rec/`;
    if (location === null || !location.startsWith(prefix)) return;
    const loc = this.locsByToken.get(location.slice(prefix.length));
    const rec = loc?.idRec === undefined ? undefined : this.recs.get(loc.idRec);
    if (rec && rec.status === "CRIADA" && rec.txid === cob.txid && rec.clientId === cob.clientId) {
      this.move(rec, "APROVADA");
    }
  }

  approve(idRec: string): void {
    const rec = this.payerRec(idRec);
    if (rec.tipoJornada === "JORNADA_3")
      throw new FakeBankError("Na jornada 3 a recorrência é aprovada pelo pagamento do QR composto.");
    rec.tipoJornada = "JORNADA_2";
    this.move(rec, "APROVADA");
  }

  reject(idRec: string, code: "AP13" | "AP14" = "AP13"): void {
    const rec = this.payerRec(idRec);
    rec.encerramento = {
      rejeicao: {
        codigo: code,
        descricao: code === "AP13" ? "Rejeitada pelo usuário pagador" : "Rejeitada pelo PSP do pagador",
      },
    };
    this.move(rec, "REJEITADA");
  }

  cancelByPayer(idRec: string): void {
    const rec = this.recs.get(idRec);
    if (!rec) throw new FakeBankError(`A recorrência ${idRec} não existe.`);
    if (rec.status !== "CRIADA" && rec.status !== "APROVADA")
      throw new FakeBankError(`A recorrência está ${rec.status}.`);
    this.cancel(rec, "USUARIO_PAGADOR", "SLDB", "Cancelamento solicitado pelo usuário pagador");
  }

  setPayerFunds(funds: PayerFunds): void {
    this.funds = { ...funds };
  }

  runDate(date = today()): number {
    let count = 0;
    for (const cobr of this.cobrs.values()) {
      if (cobr.status !== "ATIVA") continue;
      const attempt = cobr.tentativas.find((t) => t.status === "AGENDADA" && t.dataLiquidacao <= date);
      if (!attempt) continue;
      const rec = this.recs.get(cobr.idRec);
      const at = new Date().toISOString();
      count += 1;
      if (rec?.status !== "APROVADA") {
        this.attemptMoves(attempt, "CANCELADA", at);
      } else if (this.funds.insufficient) {
        attempt.rejeicao = { codigo: "AM04", descricao: "Saldo insuficiente na conta do usuário pagador" };
        this.attemptMoves(attempt, "REJEITADA", at);
      } else {
        this.attemptMoves(attempt, "PAGA", at);
        cobr.pix.push({ endToEndId: attempt.endToEndId, valor: valor(cobr.original), horario: at });
        cobr.status = "CONCLUIDA";
        cobr.atualizacao.push({ status: "CONCLUIDA", data: at });
      }
      this.notifyCobr(cobr);
    }
    return count;
  }

  list() {
    return {
      recs: [...this.recs.values()].map((rec) => this.recComplete(rec)),
      cobrs: [...this.cobrs.values()].map((cobr) => {
        const customer = this.ledger.customers.get(cobr.clientId) as Customer;
        return this.cobrComplete(cobr, customer);
      }),
    };
  }

  // ---- Inside.

  private ownRec(customer: Customer, idRec: string): RecRecord {
    const rec = this.recs.get(idRec);
    if (!rec || rec.clientId !== customer.clientId)
      throw new RecError(404, "RecNaoEncontrada", "Recorrência não encontrada para o idRec informado.");
    return rec;
  }

  private ownCobr(customer: Customer, txid: string): CobrRecord {
    const cobr = this.cobrs.get(txid);
    if (!cobr || cobr.clientId !== customer.clientId)
      throw new RecError(404, "CobRNaoEncontrado", "Cobrança não encontrada para o txid informado.");
    return cobr;
  }

  private payerRec(idRec: string): RecRecord {
    const rec = this.recs.get(idRec);
    if (!rec) throw new FakeBankError(`A recorrência ${idRec} não existe.`);
    if (rec.status !== "CRIADA") throw new FakeBankError(`A recorrência está ${rec.status}.`);
    return rec;
  }

  private move(rec: RecRecord, status: RecStatus): void {
    rec.status = status;
    rec.atualizacao.push({ status, data: new Date().toISOString() });
    this.notifyRec(rec);
  }

  private cancel(
    rec: RecRecord,
    solicitante: "PSP_PAGADOR" | "USUARIO_PAGADOR" | "PSP_RECEBEDOR" | "USUARIO_RECEBEDOR",
    codigo: "SLCR" | "SLDB",
    descricao: string,
  ): void {
    rec.encerramento = { cancelamento: { solicitante, codigo, descricao } };
    for (const cobr of this.cobrs.values()) {
      if (cobr.idRec === rec.idRec && (cobr.status === "ATIVA" || cobr.status === "CRIADA")) {
        this.cancelCobr(cobr, solicitante, codigo === "SLDB" ? "SLBD" : "SLCR", descricao);
      }
    }
    this.move(rec, "CANCELADA");
  }

  private cancelCobr(
    cobr: CobrRecord,
    solicitante: "PSP_PAGADOR" | "USUARIO_PAGADOR" | "PSP_RECEBEDOR" | "USUARIO_RECEBEDOR",
    codigo: "SLCR" | "SLBD",
    descricao: string,
  ): void {
    const at = new Date().toISOString();
    cobr.status = "CANCELADA";
    cobr.atualizacao.push({ status: "CANCELADA", data: at });
    cobr.encerramento = { cancelamento: { solicitante, codigo, descricao } };
    for (const attempt of cobr.tentativas) {
      if (attempt.status === "AGENDADA" || attempt.status === "SOLICITADA") this.attemptMoves(attempt, "CANCELADA", at);
    }
    this.notifyCobr(cobr);
  }

  private attempt(date: string, tipo: Attempt["tipo"]): Attempt {
    const at = new Date().toISOString();
    return {
      dataLiquidacao: date,
      tipo,
      status: "AGENDADA",
      endToEndId: endToEndId(PAYER_ISPB),
      atualizacao: [
        { status: "SOLICITADA", data: at },
        { status: "AGENDADA", data: at },
      ],
    };
  }

  private attemptMoves(attempt: Attempt, status: Attempt["status"], at: string): void {
    attempt.status = status;
    attempt.atualizacao.push({ status, data: at });
  }

  private locAnswer(loc: LocRec): Schemas["PayloadLocationRecCompleta"] {
    return {
      id: loc.id,
      location: loc.location,
      criacao: loc.criacao,
      ...(loc.idRec === undefined ? {} : { idRec: loc.idRec }),
    };
  }

  private recAnswer(rec: RecRecord): Schemas["RecGerada"] {
    const customer = this.ledger.customers.get(rec.clientId) as Customer;
    const loc = rec.locId === undefined ? undefined : this.locs.get(rec.locId);
    return {
      idRec: rec.idRec,
      vinculo: rec.vinculo,
      calendario: rec.calendario,
      ...(rec.valor === undefined ? {} : { valor: rec.valor }),
      recebedor: { cnpj: customer.cnpj, nome: customer.name },
      status: rec.status,
      ...(loc === undefined ? {} : { loc: this.locAnswer(loc) }),
      atualizacao: rec.atualizacao,
      ...(rec.encerramento === undefined ? {} : { encerramento: rec.encerramento }),
      ativacao: {
        tipoJornada: rec.tipoJornada,
        ...(rec.txid === undefined ? {} : { dadosJornada: { txid: rec.txid } }),
      },
    } as Schemas["RecGerada"];
  }

  private recComplete(rec: RecRecord, txid?: string): Schemas["RecCompleta"] {
    const customer = this.ledger.customers.get(rec.clientId) as Customer;
    const loc = rec.locId === undefined ? undefined : this.locs.get(rec.locId);
    let dadosQR: Schemas["RecCompleta"]["dadosQR"];
    if (loc !== undefined && txid !== undefined) {
      const cob = this.ledger.cobs.get(this.ledger.cobKey(rec.clientId, txid));
      if (cob) dadosQR = { jornada: "JORNADA_3", pixCopiaECola: withRecurrence(cob.pixCopiaECola, loc.location) };
    } else if (loc !== undefined) {
      dadosQR = {
        jornada: "JORNADA_2",
        pixCopiaECola: buildRecurrenceBrCode({
          merchantName: customer.name,
          merchantCity: customer.city,
          location: loc.location,
        }),
      };
    }
    return {
      ...this.recAnswer(rec),
      politicaRetentativa: rec.politicaRetentativa,
      ...(dadosQR === undefined ? {} : { dadosQR }),
    } as Schemas["RecCompleta"];
  }

  /** A recurrence as a listing shows it (`RecCompletaPesquisada`: no QR code). */
  private recListed(rec: RecRecord): Schemas["RecCompletaPesquisada"] {
    return {
      ...this.recAnswer(rec),
      politicaRetentativa: rec.politicaRetentativa,
    } as Schemas["RecCompletaPesquisada"];
  }

  private cobrAnswer(cobr: CobrRecord, customer: Customer): Schemas["CobRGerada"] {
    return {
      idRec: cobr.idRec,
      txid: cobr.txid,
      ...(cobr.infoAdicional === undefined ? {} : { infoAdicional: cobr.infoAdicional }),
      calendario: { dataDeVencimento: cobr.dataDeVencimento, criacao: cobr.criacao },
      valor: { original: valor(cobr.original) },
      ajusteDiaUtil: cobr.ajusteDiaUtil,
      recebedor: { ...cobr.recebedor, cnpj: customer.cnpj, nome: customer.name },
      status: cobr.status,
      ...(cobr.devedor === undefined ? {} : { devedor: cobr.devedor }),
    } as Schemas["CobRGerada"];
  }

  private cobrComplete(cobr: CobrRecord, customer: Customer): Schemas["CobRCompleta"] {
    const rec = this.recs.get(cobr.idRec);
    return {
      ...this.cobrAnswer(cobr, customer),
      politicaRetentativa: rec?.politicaRetentativa ?? "NAO_PERMITE",
      atualizacao: cobr.atualizacao,
      ...(cobr.encerramento === undefined ? {} : { encerramento: cobr.encerramento }),
      tentativas: cobr.tentativas,
      ...(cobr.pix.length === 0 ? {} : { pix: cobr.pix.map((p) => ({ ...p, txid: cobr.txid })) }),
    } as Schemas["CobRCompleta"];
  }

  private notifyRec(rec: RecRecord): void {
    const webhook = this.webhooks.get(`${rec.clientId}\u0000rec`);
    if (!webhook) return;
    const notification: Schemas["RecNotification"] = {
      idRec: rec.idRec,
      status: rec.status,
      atualizacao: rec.atualizacao,
      ...(rec.encerramento === undefined ? {} : { encerramento: rec.encerramento }),
      ativacao: {
        tipoJornada: rec.tipoJornada,
        ...(rec.txid === undefined ? {} : { dadosJornada: { txid: rec.txid } }),
      },
    } as Schemas["RecNotification"];
    this.callbacks.notifyRecurrence(webhook.url, "rec", [notification], [rec.idRec]);
  }

  private notifyCobr(cobr: CobrRecord): void {
    const webhook = this.webhooks.get(`${cobr.clientId}\u0000cobr`);
    if (!webhook) return;
    const notification = {
      idRec: cobr.idRec,
      txid: cobr.txid,
      status: cobr.status,
      atualizacao: cobr.atualizacao,
      ...(cobr.encerramento === undefined ? {} : { encerramento: cobr.encerramento }),
      tentativas: cobr.tentativas,
      ...(cobr.pix.length === 0 ? {} : { pix: cobr.pix.map((p) => ({ ...p, txid: cobr.txid })) }),
    } as Schemas["CobRNotification"];
    this.callbacks.notifyRecurrence(webhook.url, "cobr", [notification], [cobr.txid]);
  }
}
