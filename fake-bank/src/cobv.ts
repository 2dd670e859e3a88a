/**
 * Charges with a due date in the fake bank (issue 38): the receiving customer's `PUT`, `PATCH` and
 * `GET /cobv/{txid}` of the Central Bank's API Pix, and the payer's side a test or a person plays
 * through the control API and the page: pay a cobv's code on a date, for the amount this bank
 * computes for that date (cobv-amount.ts, its own implementation of the rules), with the received
 * Pix's `componentesValor`. Requests and answers pass the same validator as the rest of the API
 * (api.ts: generated/bank/pix-api.yaml with its overlay); the checks the document's text lists
 * under `CobVOperacaoInvalida` that a schema cannot say are made here.
 */
import { randomBytes } from "node:crypto";
import type { Request, Response, Router } from "express";
import type { components } from "../../generated/bank/pix-api.js";
import { pixWire } from "./api.js";
import { dynamicBrCode } from "./brcode.js";
import { type CobvAmount, type CobvTerms, lastDay, owedOn } from "./cobv-amount.js";
import type { Customer, Ledger } from "./state.js";
import { cents, problem, valor } from "./wire.js";

type Schemas = components["schemas"];
type CobVSolicitada = Schemas["CobVSolicitada"];
type CobVRevisada = Schemas["CobVRevisada"];
type CobVGerada = Schemas["CobVGerada"];
type CobVCompleta = Schemas["CobVCompleta"];
type CobsVConsultadas = Schemas["CobsVConsultadas"];
type Status = Schemas["CobrancaStatus"];
type Devedor = NonNullable<CobVGerada["devedor"]>;

export interface CobvRecord {
  clientId: string;
  txid: string;
  revisao: number;
  criacao: string;
  status: Status;
  terms: CobvTerms;
  /** The terms as the request wrote them (answered back as sent). */
  valor: CobVSolicitada["valor"];
  chave: string;
  solicitacaoPagador?: string;
  devedor: Devedor;
  locId: number;
  location: string;
  locCriacao: string;
  pixCopiaECola: string;
  /** e2eids of the Pix that paid it. */
  pix: string[];
}

/** A request the standard refuses (its `CobVOperacaoInvalida` or `CobVNaoEncontrada`). */
class CobvError extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
    readonly property?: string,
  ) {
    super(message);
  }
}

/** The txid of the path. */
const txidParam = (req: Request): string => String(req.params.txid ?? "");

/** Today in Brasília (UTC−3, no daylight saving since 2019). */
export const brasiliaDateOf = (at: Date) => new Date(at.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);

/** `valorPerc` as an integer of hundredths (cents or basis points). */
const hundredths = (text: string, property: string): number => {
  const value = cents(text);
  if (!Number.isSafeInteger(value)) throw invalid(`${property} não respeita o schema.`, property);
  return value;
};

const invalid = (message: string, property: string) => new CobvError(400, "CobVOperacaoInvalida", message, property);

/** The terms of a `CobVSolicitada`, checked as the document's text asks. */
function termsOf(body: Pick<CobVSolicitada, "valor" | "calendario">, criacao: string): CobvTerms {
  const valorBody = body.valor as CobVSolicitada["valor"] & {
    desconto?: { modalidade: number; valorPerc?: string; descontoDataFixa?: { data: string; valorPerc: string }[] };
  };
  const original = cents(valorBody.original ?? "");
  if (!(original > 0)) throw invalid("O campo cobv.valor.original apresenta o valor zero.", "cobv.valor.original");
  const dataDeVencimento = body.calendario.dataDeVencimento;
  if (dataDeVencimento < brasiliaDateOf(new Date(criacao))) {
    throw invalid(
      "O campo cobv.calendario.dataDeVencimento é anterior à data de criação da cobrança.",
      "cobv.calendario.dataDeVencimento",
    );
  }
  const validadeAposVencimento = body.calendario.validadeAposVencimento ?? 30;
  if (validadeAposVencimento < 0) {
    throw invalid(
      "O campo cobv.calendario.validadeAposVencimento é menor do que zero.",
      "cobv.calendario.validadeAposVencimento",
    );
  }
  const flat = (part: { modalidade: number; valorPerc: string } | undefined, name: string) =>
    part === undefined
      ? undefined
      : { modalidade: part.modalidade, v: hundredths(part.valorPerc, `cobv.valor.${name}.valorPerc`) };
  const terms: CobvTerms = { original, dataDeVencimento, validadeAposVencimento };
  const multa = flat(valorBody.multa, "multa");
  const juros = flat(valorBody.juros, "juros");
  const abatimento = flat(valorBody.abatimento as { modalidade: number; valorPerc: string } | undefined, "abatimento");
  if (multa) terms.multa = multa;
  if (juros) terms.juros = juros;
  if (abatimento) {
    terms.abatimento = abatimento;
    const rebate = abatimento.modalidade === 1 ? abatimento.v : Math.round((original * abatimento.v) / 10_000);
    if (rebate >= original) {
      throw invalid(
        "O objeto cobv.valor.abatimento representa um valor maior ou igual ao valor da cobrança original.",
        "cobv.valor.abatimento",
      );
    }
  }
  const desconto = valorBody.desconto;
  if (desconto !== undefined) {
    const byDate = desconto.modalidade === 1 || desconto.modalidade === 2;
    if (byDate && desconto.valorPerc !== undefined) {
      throw invalid("Modalidade 1 ou 2 com cobv.valor.desconto.valorPerc preenchido.", "cobv.valor.desconto.valorPerc");
    }
    if (byDate && !desconto.descontoDataFixa?.length) {
      throw invalid(
        "Modalidade 1 ou 2 sem cobv.valor.desconto.descontoDataFixa.",
        "cobv.valor.desconto.descontoDataFixa",
      );
    }
    if (!byDate && (desconto.valorPerc === undefined || desconto.descontoDataFixa !== undefined)) {
      throw invalid(
        "Modalidade de 3 a 6 exige cobv.valor.desconto.valorPerc, sem descontoDataFixa.",
        "cobv.valor.desconto",
      );
    }
    if (byDate) {
      const datas = (desconto.descontoDataFixa ?? []).map((entry, i) => ({
        data: entry.data,
        v: hundredths(entry.valorPerc, `cobv.valor.desconto.descontoDataFixa.${i}.valorPerc`),
      }));
      for (const entry of datas) {
        if (entry.data > dataDeVencimento) {
          throw invalid(
            "Um elemento de cobv.valor.desconto tem data posterior à data de vencimento.",
            "cobv.valor.desconto",
          );
        }
        const off = desconto.modalidade === 1 ? entry.v : Math.round((original * entry.v) / 10_000);
        if (off >= original) {
          throw invalid(
            "Um elemento de cobv.valor.desconto representa um valor maior ou igual ao da cobrança.",
            "cobv.valor.desconto",
          );
        }
      }
      terms.desconto = { modalidade: desconto.modalidade, datas };
    } else {
      terms.desconto = {
        modalidade: desconto.modalidade,
        v: hundredths(desconto.valorPerc ?? "", "cobv.valor.desconto.valorPerc"),
      };
    }
  }
  return terms;
}

/** `componentesValor` of a Pix paying a cobv (only the parts present, as the standard's example writes them). */
export function componentesValor(amount: CobvAmount): NonNullable<Schemas["Pix"]["componentesValor"]> {
  const part = (cents: number) => ({ valor: valor(cents) });
  return {
    original: part(amount.original),
    ...(amount.multa > 0 ? { multa: part(amount.multa) } : {}),
    ...(amount.juros > 0 ? { juros: part(amount.juros) } : {}),
    ...(amount.abatimento > 0 ? { abatimento: part(amount.abatimento) } : {}),
    ...(amount.desconto > 0 ? { desconto: part(amount.desconto) } : {}),
  } as NonNullable<Schemas["Pix"]["componentesValor"]>;
}

/** The cobvs of every customer, their locations, and what a payer owes on a date. */
export class DueDateBook {
  /** By `${clientId}\u0000${txid}`. */
  readonly cobvs = new Map<string, CobvRecord>();
  /** By the location's token (the path after `/qr/v2/cobv/`). */
  private readonly byToken = new Map<string, CobvRecord>();

  constructor(
    private readonly ledger: Ledger,
    private readonly locationHost: () => string,
  ) {}

  private key(clientId: string, txid: string) {
    return `${clientId}\u0000${txid}`;
  }

  /** The cobv a payload location names, if it is one of this bank's. */
  atLocation(location: string): CobvRecord | undefined {
    const prefix = `${this.locationHost()}/qr/v2/cobv/`;
    return location.startsWith(prefix) ? this.byToken.get(location.slice(prefix.length)) : undefined;
  }

  /** What a payer owes on `date`, and whether the cobv can be paid then. */
  owed(cobv: CobvRecord, date: string): { amount: CobvAmount; payable: boolean; lastDay: string } {
    const last = lastDay(cobv.terms);
    return {
      amount: owedOn(cobv.terms, date),
      payable: date >= cobv.criacao.slice(0, 10) && date <= last,
      lastDay: last,
    };
  }

  private answer(cobv: CobvRecord, customer: Customer | undefined): CobVGerada {
    return {
      calendario: {
        criacao: cobv.criacao,
        dataDeVencimento: cobv.terms.dataDeVencimento,
        validadeAposVencimento: cobv.terms.validadeAposVencimento,
      },
      txid: cobv.txid,
      revisao: cobv.revisao,
      loc: { id: cobv.locId, location: cobv.location, tipoCob: "cobv", criacao: cobv.locCriacao },
      status: cobv.status,
      devedor: cobv.devedor,
      recebedor: {
        cnpj: customer?.cnpj ?? "12345678000195",
        nome: customer?.name ?? "Recebedor",
        logradouro: "Avenida Paulista, 1000",
        cidade: customer?.city ?? "Sao Paulo",
        uf: "SP",
        cep: "01310100",
      },
      valor: cobv.valor,
      chave: cobv.chave,
      ...(cobv.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: cobv.solicitacaoPagador }),
      pixCopiaECola: cobv.pixCopiaECola,
    } as CobVGerada;
  }

  /** A cobv as read: with the Pix that paid it. */
  private complete(cobv: CobvRecord, customer: Customer): CobVCompleta {
    const paid = cobv.pix.flatMap((id) => this.ledger.pix.get(id) ?? []);
    return {
      ...this.answer(cobv, customer),
      ...(paid.length === 0 ? {} : { pix: paid.map(pixWire) as CobVCompleta["pix"] }),
    };
  }

  routes(router: Router): void {
    const handle =
      (work: (req: Request, res: Response, customer: Customer) => void) => (req: Request, res: Response) => {
        const customer = (res.locals as { customer: Customer }).customer;
        try {
          work(req, res, customer);
        } catch (error) {
          if (!(error instanceof CobvError)) throw error;
          res
            .status(error.status)
            .type("application/problem+json")
            .json(
              problem(
                error.status,
                error.kind,
                error.status === 404 ? "Não encontrado" : "Requisição inválida",
                error.message,
                error.property === undefined ? undefined : [{ razao: error.message, propriedade: error.property }],
              ),
            );
        }
      };
    const find = (customer: Customer, txid: string | undefined) => {
      const cobv = this.cobvs.get(this.key(customer.clientId, txid ?? ""));
      if (cobv === undefined) throw new CobVNotFound();
      return cobv;
    };

    router.put(
      "/cobv/:txid",
      handle((req, res, customer) => {
        const body = req.body as CobVSolicitada;
        const txid = txidParam(req);
        if (!customer.keys.includes(body.chave)) {
          throw invalid(
            "O campo cobv.chave corresponde a uma conta que não pertence a este usuário recebedor.",
            "cobv.chave",
          );
        }
        if (body.loc?.id !== undefined)
          throw invalid("O location referenciado por cobv.loc.id inexiste.", "cobv.loc.id");
        const now = new Date().toISOString();
        const existing = this.cobvs.get(this.key(customer.clientId, txid));
        const terms = termsOf(body, existing?.criacao ?? now);
        const fields = {
          terms,
          valor: body.valor,
          chave: body.chave,
          devedor: body.devedor,
          ...(body.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: body.solicitacaoPagador }),
        };
        if (existing !== undefined) {
          // The same txid again: the same body answers the same cobv; another one revises it while ATIVA.
          if (existing.status !== "ATIVA")
            throw invalid(`A cobrança já existe e está ${existing.status}.`, "cobv.status");
          const same = (Object.keys(fields) as (keyof typeof fields)[]).every(
            (name) => JSON.stringify(existing[name]) === JSON.stringify(fields[name]),
          );
          if (!same) {
            Object.assign(existing, fields);
            existing.revisao += 1;
          }
          res.status(201).json(this.answer(existing, customer));
          return;
        }
        const token = randomBytes(16).toString("hex");
        const location = `${this.locationHost()}/qr/v2/cobv/${token}`;
        const cobv: CobvRecord = {
          clientId: customer.clientId,
          txid,
          revisao: 0,
          criacao: now,
          status: "ATIVA",
          locId: this.ledger.takeLocId(),
          location,
          locCriacao: now,
          // A cobv's code carries no amount (field 54): the payer's bank reads it at the location for its date.
          pixCopiaECola: dynamicBrCode({ location, merchantName: customer.name, merchantCity: customer.city }),
          pix: [],
          ...fields,
        };
        this.cobvs.set(this.key(customer.clientId, txid), cobv);
        this.byToken.set(token, cobv);
        res.status(201).json(this.answer(cobv, customer));
      }),
    );

    router.patch(
      "/cobv/:txid",
      handle((req, res, customer) => {
        const cobv = find(customer, txidParam(req));
        const body = req.body as CobVRevisada;
        if (cobv.status !== "ATIVA") throw invalid(`A cobrança não está ATIVA (está ${cobv.status}).`, "cobv.status");
        if (body.status !== undefined) {
          const others = Object.keys(body).filter((name) => name !== "status");
          if (others.length > 0) {
            throw invalid("Não se remove uma cobrança ao mesmo tempo em que se alteram outros campos.", "cobv.status");
          }
          cobv.status = body.status;
        } else {
          if (body.chave !== undefined && !customer.keys.includes(body.chave)) {
            throw invalid(
              "O campo cobv.chave corresponde a uma conta que não pertence a este usuário recebedor.",
              "cobv.chave",
            );
          }
          const merged = {
            valor: { ...cobv.valor, ...(body.valor ?? {}) } as CobVSolicitada["valor"],
            calendario: {
              ...{
                dataDeVencimento: cobv.terms.dataDeVencimento,
                validadeAposVencimento: cobv.terms.validadeAposVencimento,
              },
              ...(body.calendario ?? {}),
            },
          };
          cobv.terms = termsOf(merged, cobv.criacao);
          cobv.valor = merged.valor;
          if (body.chave !== undefined) cobv.chave = body.chave;
          if (body.devedor !== undefined) cobv.devedor = body.devedor as Devedor;
          if (body.solicitacaoPagador !== undefined) cobv.solicitacaoPagador = body.solicitacaoPagador;
        }
        cobv.revisao += 1;
        res.status(200).json(this.answer(cobv, customer));
      }),
    );

    // The list by creation instant (`inicio`, `fim`), filtered by the debtor's CPF or CNPJ and the
    // status, paged as the other lists.
    router.get(
      "/cobv",
      handle((req, res, customer) => {
        const query = req.query as Record<string, string | undefined>;
        const inicio = String(query.inicio);
        const fim = String(query.fim);
        if (Date.parse(fim) < Date.parse(inicio)) {
          throw new CobvError(400, "CobVConsultaInvalida", "O fim é anterior ao início.", "fim");
        }
        if (query.cpf !== undefined && query.cnpj !== undefined) {
          throw new CobvError(400, "CobVConsultaInvalida", "CPF e CNPJ não podem ser usados ao mesmo tempo.", "cpf");
        }
        const page = Number(query["paginacao.paginaAtual"] ?? 0);
        const size = Number(query["paginacao.itensPorPagina"] ?? 100);
        const within = (at: string) => Date.parse(at) >= Date.parse(inicio) && Date.parse(at) <= Date.parse(fim);
        const found = [...this.cobvs.values()]
          .filter((cobv) => cobv.clientId === customer.clientId && within(cobv.criacao))
          .filter((cobv) => query.cpf === undefined || ("cpf" in cobv.devedor && cobv.devedor.cpf === query.cpf))
          .filter((cobv) => query.cnpj === undefined || ("cnpj" in cobv.devedor && cobv.devedor.cnpj === query.cnpj))
          .filter((cobv) => query.status === undefined || cobv.status === query.status)
          .sort((a, b) => a.criacao.localeCompare(b.criacao) || a.txid.localeCompare(b.txid));
        const answer: CobsVConsultadas = {
          parametros: {
            inicio,
            fim,
            ...(query.cpf === undefined ? {} : { cpf: query.cpf }),
            ...(query.cnpj === undefined ? {} : { cnpj: query.cnpj }),
            ...(query.status === undefined ? {} : { status: query.status }),
            paginacao: {
              paginaAtual: page,
              itensPorPagina: size,
              quantidadeDePaginas: Math.max(1, Math.ceil(found.length / size)),
              quantidadeTotalDeItens: found.length,
            },
          },
          cobs: found.slice(page * size, (page + 1) * size).map((cobv) => this.complete(cobv, customer)),
        };
        res.json(answer);
      }),
    );

    router.get(
      "/cobv/:txid",
      handle((req, res, customer) => {
        res.json(this.complete(find(customer, txidParam(req)), customer));
      }),
    );
  }
}

class CobVNotFound extends CobvError {
  constructor() {
    super(404, "CobVNaoEncontrada", "Cobrança não encontrada para o txid informado.");
  }
}
