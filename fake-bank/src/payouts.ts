/**
 * The bank's payouts (issue 36 §1): sending Pix from a customer's account and its balance, in the
 * dialect's own API — Efí's `PUT /v3/gn/pix/{idEnvio}`, `GET /v2/gn/pix/enviados/id-envio/{idEnvio}`,
 * `GET /v2/gn/saldo`; Inter's `POST /banking/v2/pix` (x-id-idempotente),
 * `GET /banking/v2/pix/{codigoSolicitacao}`, `GET /banking/v2/saldo`. Every request and answer is
 * checked by express-openapi-validator against our documents of those APIs
 * (generated/bank/efi-payouts.yaml, generated/bank/inter-payouts.yaml), as the API Pix is against
 * the Central Bank's.
 *
 * An id never pays twice (Efí refuses a used idEnvio with 409; Inter answers a repeated key with
 * the transfer already made). What becomes of a transfer is the control API's to say: paid, failed
 * or left pending by a policy (after a delay), or one by one; above Inter's approval threshold a
 * transfer waits for a person's approval. The amount leaves the balance when the transfer is
 * accepted and returns when it fails.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { parse as parseYaml } from "yaml";
import type { components as EfiComponents } from "../../generated/bank/efi-payouts.js";
import type { components as InterComponents } from "../../generated/bank/inter-payouts.js";
import { BANK_ISPB, documentValidator, requireToken, type Dialect, type RequestLogEntry } from "./api.js";
import type { Customer, Ledger, Token } from "./state.js";
import { cents, endToEndId, valor } from "./wire.js";

type Efi = EfiComponents["schemas"];
type Inter = InterComponents["schemas"];

/** How transfers end by themselves: paid, failed, or left pending for the control API. */
export interface PayoutPolicy {
  mode: "pay" | "fail" | "pending";
  /** After this long (ms) from acceptance (or approval). */
  delayMs: number;
  /** Inter: a transfer above this many cents waits for a person's approval; null: none does. */
  approvalAboveCents: number | null;
}

export type PayoutState = "PENDING" | "AWAITING_APPROVAL" | "PAID" | "FAILED";

/** One transfer the bank accepted. */
export interface PayoutRecord {
  clientId: string;
  /** The customer's id: Efí's idEnvio, or Inter's idempotency key. */
  id: string;
  /** The bank's own code (Inter's codigoSolicitacao). */
  code: string;
  amount: number;
  payerKey: string | null;
  key: string;
  description?: string;
  state: PayoutState;
  endToEndId: string;
  requestedAt: string;
  settledAt?: string;
  reason?: string;
  /** Inter's answer to the POST, repeated for a repeated key. */
  returned: Inter["TipoRetorno"];
  /** Inter's history of statuses. */
  history: { status: Inter["StatusPix"]; at: string }[];
}

/** A refusal of the control API (answered 400 with its message). */
class FakeBankError extends Error {
  override name = "FakeBankError";
}

const documents: Partial<Record<Dialect, URL>> = {
  efi: new URL("../../generated/bank/efi-payouts.yaml", import.meta.url),
  inter: new URL("../../generated/bank/inter-payouts.yaml", import.meta.url),
};

/** The routes of each dialect's payouts (what the router takes; the rest goes on to the API Pix). */
const payoutPaths: Partial<Record<Dialect, RegExp>> = {
  efi: /^\/v[23]\/gn\/(pix\/|saldo)/,
  inter: /^\/banking\/v2\//,
};

/** The balance each customer starts with: R$ 1.000.000,00. */
const INITIAL_BALANCE_CENTS = 100_000_000;

export class PayoutBook {
  private readonly records = new Map<string, PayoutRecord>();
  private readonly byCode = new Map<string, PayoutRecord>();
  private readonly balances = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Sends made whose answer is lost (the connection dropped instead). */
  private lost = 0;
  policy: PayoutPolicy;

  constructor(
    readonly dialect: Dialect,
    policy: Partial<PayoutPolicy> = {},
    /** Told of each transfer as it ends (Efí's callback on the payer key's webhook). */
    private readonly onEnd?: (record: PayoutRecord) => void,
  ) {
    this.policy = { mode: "pay", delayMs: 50, approvalAboveCents: null, ...policy };
  }

  balanceOf(clientId: string): number {
    return this.balances.get(clientId) ?? INITIAL_BALANCE_CENTS;
  }

  setBalance(clientId: string, amountCents: number): void {
    if (!Number.isSafeInteger(amountCents) || amountCents < 0)
      throw new FakeBankError("O saldo deve ser um número inteiro de centavos, zero ou mais.");
    this.balances.set(clientId, amountCents);
  }

  setPolicy(policy: Partial<PayoutPolicy>): PayoutPolicy {
    const next = { ...this.policy, ...policy };
    if (!["pay", "fail", "pending"].includes(next.mode)) throw new FakeBankError("mode deve ser pay, fail ou pending.");
    if (!(Number.isFinite(next.delayMs) && next.delayMs >= 0)) throw new FakeBankError("delayMs deve ser 0 ou mais.");
    if (
      next.approvalAboveCents !== null &&
      !(Number.isSafeInteger(next.approvalAboveCents) && next.approvalAboveCents >= 0)
    )
      throw new FakeBankError("approvalAboveCents deve ser um número inteiro de centavos ou null.");
    this.policy = next;
    return next;
  }

  /** The next `count` sends are made, but their answer never arrives. */
  loseAnswers(count: number): void {
    this.lost += Math.max(0, Math.trunc(count));
  }

  takeLostAnswer(): boolean {
    if (this.lost === 0) return false;
    this.lost -= 1;
    return true;
  }

  get(clientId: string, id: string): PayoutRecord | undefined {
    return this.records.get(`${clientId}\u0000${id}`);
  }

  byBankCode(code: string): PayoutRecord | undefined {
    return this.byCode.get(code);
  }

  /** Every transfer, oldest first. */
  list(): PayoutRecord[] {
    return [...this.records.values()].map((record) => structuredClone(record));
  }

  /** Accepts a transfer: the amount leaves the balance; the policy (or the control API) ends it. */
  accept(input: {
    clientId: string;
    id: string;
    amount: number;
    payerKey: string | null;
    key: string;
    description?: string;
  }): PayoutRecord {
    const balance = this.balanceOf(input.clientId);
    const now = new Date().toISOString();
    const awaiting =
      this.dialect === "inter" &&
      this.policy.approvalAboveCents !== null &&
      input.amount > this.policy.approvalAboveCents;
    const record: PayoutRecord = {
      ...input,
      code: randomUUID(),
      state: awaiting ? "AWAITING_APPROVAL" : "PENDING",
      endToEndId: endToEndId(BANK_ISPB),
      requestedAt: now,
      returned: awaiting ? "APROVACAO" : "PROCESSADO",
      history: [
        { status: "CRIADO", at: now },
        ...(awaiting ? [{ status: "AGUARDANDO_APROVACAO" as const, at: now }] : []),
      ],
    };
    this.balances.set(input.clientId, balance - input.amount);
    this.records.set(`${input.clientId}\u0000${input.id}`, record);
    this.byCode.set(record.code, record);
    if (!awaiting) this.follow(record);
    return record;
  }

  /** The control API's word on one transfer (by the customer's id or the bank's code). */
  find(id: string): PayoutRecord {
    const record = this.byCode.get(id) ?? [...this.records.values()].find((r) => r.id === id);
    if (record === undefined) throw new FakeBankError(`Nenhuma transferência com o id ${id}.`);
    return record;
  }

  settle(id: string, outcome: "pay" | "fail", reason?: string): PayoutRecord {
    const record = this.find(id);
    if (record.state === "PAID" || record.state === "FAILED")
      throw new FakeBankError(`A transferência já terminou (${record.state}).`);
    this.end(record, outcome, reason);
    return structuredClone(record);
  }

  approve(id: string): PayoutRecord {
    const record = this.find(id);
    if (record.state !== "AWAITING_APPROVAL")
      throw new FakeBankError(`A transferência não aguarda aprovação (${record.state}).`);
    record.state = "PENDING";
    record.history.push({ status: "APROVADO", at: new Date().toISOString() });
    this.follow(record);
    return structuredClone(record);
  }

  reject(id: string, reason?: string): PayoutRecord {
    const record = this.find(id);
    if (record.state !== "AWAITING_APPROVAL")
      throw new FakeBankError(`A transferência não aguarda aprovação (${record.state}).`);
    this.end(record, "fail", reason ?? "Reprovado na aprovação", "REPROVADO");
    return structuredClone(record);
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** Sends it on: the policy ends it after its delay, unless it is to stay pending. */
  private follow(record: PayoutRecord): void {
    record.history.push({ status: "ENVIADO", at: new Date().toISOString() });
    const { mode, delayMs } = this.policy;
    if (mode === "pending") return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (record.state === "PENDING")
        this.end(record, mode, mode === "fail" ? "Conta do recebedor encerrada" : undefined);
    }, delayMs);
    this.timers.add(timer);
  }

  private end(
    record: PayoutRecord,
    outcome: "pay" | "fail",
    reason?: string,
    status: Inter["StatusPix"] = outcome === "pay" ? "PAGO" : "FALHA",
  ): void {
    const now = new Date().toISOString();
    record.state = outcome === "pay" ? "PAID" : "FAILED";
    record.settledAt = now;
    record.history.push({ status, at: now });
    if (outcome === "fail") {
      record.reason = (reason ?? "Falha no envio").slice(0, 140);
      this.balances.set(record.clientId, this.balanceOf(record.clientId) + record.amount);
    }
    this.onEnd?.(structuredClone(record));
  }
}

/**
 * Efí's notice of a transfer's outcome on the payer key's webhook (`POST {webhookUrl}/pix`, an entry
 * of `pix` with `gnExtras.idEnvio`), as its webhooks page shows "Pix enviado" and "Pix rejeitado".
 */
export function efiSentNotice(record: PayoutRecord): Efi["PixEnviadoNotificado"] {
  const paid = record.state === "PAID";
  return {
    endToEndId: record.endToEndId,
    ...(record.payerKey === null ? {} : { chave: record.payerKey }),
    tipo: "SOLICITACAO",
    status: efiStatus(record.state),
    valor: valor(record.amount),
    horario: paid ? (record.settledAt ?? null) : null,
    ...(record.description === undefined ? {} : { infoPagador: record.description }),
    gnExtras: {
      idEnvio: record.id,
      ...(record.state === "FAILED"
        ? { erro: { codigo: "AC03", origem: "PSP do usuário recebedor", motivo: record.reason ?? "Falha no envio" } }
        : {}),
    },
  };
}

interface Locals {
  customer: Customer;
  token: Token;
  log: RequestLogEntry;
}

const locals = (res: Response): Locals => res.locals as unknown as Locals;

function loadDocument(dialect: Dialect): Record<string, unknown> {
  const url = documents[dialect];
  if (url === undefined) throw new Error(`O dialeto ${dialect} não tem API de envio de Pix.`);
  const document = parseYaml(readFileSync(url, "utf8")) as Record<string, unknown>;
  document.servers = [{ url: "/" }];
  return document;
}

function efiStatus(state: PayoutState): Efi["EnvioStatus"] {
  if (state === "PAID") return "REALIZADO";
  if (state === "FAILED") return "NAO_REALIZADO";
  return "EM_PROCESSAMENTO";
}

function efiSent(record: PayoutRecord): Efi["PixEnviado"] {
  return {
    endToEndId: record.endToEndId,
    idEnvio: record.id,
    valor: valor(record.amount),
    ...(record.payerKey === null ? {} : { chave: record.payerKey }),
    status: efiStatus(record.state),
    ...(record.description === undefined ? {} : { infoPagador: record.description }),
    horario: {
      solicitacao: record.requestedAt,
      ...(record.state === "PAID" && record.settledAt !== undefined ? { liquidacao: record.settledAt } : {}),
    },
    favorecido: { chave: record.key },
  };
}

const today = () => new Date().toISOString().slice(0, 10);

function interSent(record: PayoutRecord): Inter["PixConsultado"] {
  const status = record.history.at(-1)?.status ?? "CRIADO";
  return {
    transacaoPix: {
      erros:
        record.state === "FAILED" ? [{ codigoErro: "AC04", descricaoErro: record.reason ?? "Falha no envio" }] : [],
      ...(record.state === "PAID" ? { endToEnd: record.endToEndId } : {}),
      valor: record.amount / 100,
      status,
      ...(record.settledAt === undefined ? {} : { dataHoraMovimento: record.settledAt }),
      dataHoraSolicitacao: record.requestedAt,
      chave: record.key,
      codigoSolicitacao: record.code,
    },
    historico: record.history.map((entry) => ({ status: entry.status, dataHoraEvento: entry.at })),
  };
}

/**
 * The payout routes of `book`'s dialect (null for the standard, which has none), to be mounted as
 * the API's `routes` (fake-bank/src/api.ts): after the request log, the latency, the faults and the
 * token URL.
 */
export function payoutRoutes(ledger: Ledger, book: PayoutBook): RequestHandler {
  const { dialect } = book;
  const paths = payoutPaths[dialect];
  const router = express.Router();
  if (paths === undefined) return router;
  const efi = dialect === "efi";

  /** An answer in the bank's own error format. */
  const refuse = (res: Response, status: number, name: string, message: string) => {
    if (efi) {
      if (status === 404 || status === 403 || status === 503)
        res
          .status(status)
          .type("application/problem+json")
          .json({ type: `https://pix.bcb.gov.br/api/v2/error/${name}`, title: message, status, detail: message });
      else res.status(status).json({ nome: name, mensagem: message } satisfies Efi["ErroEfi"]);
    } else {
      res.status(status).json({ title: name, detail: message } satisfies Inter["Erro"]);
    }
  };

  router.use((req, _res, next) => (paths.test(req.path) ? next() : next("router")));
  router.use(requireToken(ledger));

  router.use(documentValidator(`payouts ${dialect}`, () => loadDocument(dialect)));

  // Scopes, from the operation's `security` in the document.
  router.use((req, res, next) => {
    const operation = (req as { openapi?: { schema?: { security?: { OAuth2?: string[] }[] } } }).openapi?.schema;
    const log = locals(res).log;
    if (log.responseValid === null) log.responseValid = true;
    const needed = operation?.security?.flatMap((requirement) => requirement.OAuth2 ?? []) ?? [];
    const missing = needed.filter((scope) => !locals(res).token.scopes.includes(scope));
    if (needed.length > 0 && missing.length === needed.length) {
      refuse(res, 403, "AcessoNegado", `O token não tem o escopo ${needed.join(" ou ")}.`);
      return;
    }
    next();
  });

  /** Sends the answer, unless this send's answer is to be lost (the connection drops). */
  const answer = (res: Response, send: () => void) => {
    if (book.takeLostAnswer()) {
      locals(res).log.fault = "lost";
      res.socket?.destroy();
      return;
    }
    send();
  };

  const funded = (res: Response, clientId: string, amount: number): boolean => {
    if (amount <= book.balanceOf(clientId)) return true;
    if (efi) refuse(res, 422, "saldo_insuficiente", "Saldo insuficiente para o envio.");
    else refuse(res, 422, "Saldo insuficiente", "A conta não tem saldo para este pagamento.");
    return false;
  };

  // ---- Efí
  router.put("/v3/gn/pix/:idEnvio", (req, res) => {
    const { customer } = locals(res);
    const body = req.body as Efi["EnvioSolicitado"];
    const id = req.params.idEnvio ?? "";
    if (!customer.keys.includes(body.pagador.chave)) {
      refuse(res, 400, "chave_invalida", "A chave informada não faz referência à conta Efí autenticada");
      return;
    }
    const key = body.favorecido.chave;
    if (key === undefined) {
      // The bank account form is in the document; this bank pays keys only.
      refuse(res, 400, "valor_invalido", "Este banco envia Pix apenas para chaves (favorecido.chave).");
      return;
    }
    if (book.get(customer.clientId, id) !== undefined) {
      refuse(res, 409, "id_envio_duplicado", "O id de envio informado já foi utilizado em outro pagamento");
      return;
    }
    const amount = cents(body.valor);
    if (!(amount > 0)) {
      refuse(res, 400, "valor_invalido", "Campo valor deve ser maior que zero");
      return;
    }
    if (!funded(res, customer.clientId, amount)) return;
    const record = book.accept({
      clientId: customer.clientId,
      id,
      amount,
      payerKey: body.pagador.chave,
      key,
      ...(body.pagador.infoPagador === undefined ? {} : { description: body.pagador.infoPagador }),
    });
    answer(res, () =>
      res.status(201).json({
        idEnvio: record.id,
        e2eId: record.endToEndId,
        valor: valor(record.amount),
        horario: { solicitacao: record.requestedAt },
        status: efiStatus(record.state),
      } satisfies Efi["EnvioAceito"]),
    );
  });

  router.get("/v2/gn/pix/enviados/id-envio/:idEnvio", (req, res) => {
    const record = book.get(locals(res).customer.clientId, req.params.idEnvio ?? "");
    if (record === undefined) {
      refuse(res, 404, "PixEnviadoNaoEncontrado", "Pix enviado não encontrado para o idEnvio informado.");
      return;
    }
    res.json(efiSent(record));
  });

  router.get("/v2/gn/saldo", (req, res) => {
    const saldo = valor(book.balanceOf(locals(res).customer.clientId));
    const blocked = String(req.query.bloqueios) === "true";
    res.json({
      saldo,
      ...(blocked ? { bloqueios: { judicial: "0.00", med: "0.00", total: "0.00" } } : {}),
    } satisfies Efi["Saldo"]);
  });

  // ---- Inter
  router.post("/banking/v2/pix", (req, res) => {
    const { customer } = locals(res);
    const body = req.body as Inter["Pix"];
    const key = req.header("x-id-idempotente") ?? "";
    const amount = cents(body.valor);
    const existing = book.get(customer.clientId, key);
    if (existing !== undefined) {
      if (existing.amount !== amount || existing.key !== body.destinatario.chave) {
        refuse(res, 409, "Conflito", "A chave de idempotência já foi usada em outra requisição.");
        return;
      }
      answer(res, () => res.json(interReturned(existing)));
      return;
    }
    if (!(amount > 0)) {
      refuse(res, 400, "Requisição inválida", "O valor deve ser maior que zero.");
      return;
    }
    if (body.dataPagamento !== undefined && body.dataPagamento !== today()) {
      refuse(res, 400, "Requisição inválida", "Este banco não agenda Pix: envie sem dataPagamento.");
      return;
    }
    if (!funded(res, customer.clientId, amount)) return;
    const record = book.accept({
      clientId: customer.clientId,
      id: key,
      amount,
      payerKey: null,
      key: body.destinatario.chave,
      ...(body.descricao === undefined ? {} : { description: body.descricao }),
    });
    answer(res, () => res.json(interReturned(record)));
  });

  router.get("/banking/v2/pix/:codigoSolicitacao", (req, res) => {
    const record = book.byBankCode(req.params.codigoSolicitacao ?? "");
    if (record === undefined || record.clientId !== locals(res).customer.clientId) {
      refuse(res, 404, "Pix não encontrado", "Não há Pix com este código de solicitação.");
      return;
    }
    res.json(interSent(record));
  });

  router.get("/banking/v2/saldo", (_req, res) => {
    res.json({
      disponivel: book.balanceOf(locals(res).customer.clientId) / 100,
      bloqueadoCheque: 0,
      bloqueadoJudicialmente: 0,
      bloqueadoAdministrativo: 0,
      limite: 0,
    } satisfies Inter["Saldo"]);
  });

  router.use((_req, res) => refuse(res, 404, "NaoEncontrado", "Recurso não implementado por este banco."));

  // The validator's verdicts (and anything thrown) in the bank's own error format.
  router.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const failure = error as { status?: number; message?: string; errors?: { path?: string; message?: string }[] };
    const status =
      typeof failure.status === "number" && failure.status >= 400 && failure.status < 500 ? failure.status : 500;
    const log = (res.locals as Partial<Locals>).log;
    const violations = (failure.errors ?? []).map((e) => ({
      razao: e.message ?? "inválido",
      propriedade: (e.path ?? "").replace(/^\/?(body\/)?/, "").replaceAll("/", "."),
    }));
    if (log !== undefined) {
      if (status === 400) log.requestValid = false;
      log.errors.push(...violations.map((v) => `${v.propriedade}: ${v.razao}`));
    }
    if (res.headersSent) return;
    const message = String(failure.message ?? error);
    if (status === 400 || status === 415) {
      if (efi) refuse(res, 400, "valor_invalido", message);
      else res.status(400).json({ title: "Requisição inválida", detail: message, violacoes: violations });
    } else if (status === 404 || status === 405) refuse(res, 404, "NaoEncontrado", message);
    else if (efi) res.status(500).json({ nome: "erro_aplicacao", mensagem: message });
    else refuse(res, 500, "Erro interno", message);
  });
  return router;
}

function interReturned(record: PayoutRecord): Inter["PixIncluido"] {
  const day = record.requestedAt.slice(0, 10);
  return {
    tipoRetorno: record.returned,
    codigoSolicitacao: record.code,
    dataPagamento: day,
    dataOperacao: day,
  };
}

/**
 * The control API's payout routes (mounted under /control): the bank's back office deciding what
 * becomes of each transfer, the balance, and the lost answers.
 */
export function payoutControl(book: PayoutBook, firstClientId: () => string): express.Router {
  const control = express.Router();
  const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;
  const clientOf = (req: Request) => {
    const given = body(req).clientId ?? req.query.clientId;
    return typeof given === "string" && given !== "" ? given : firstClientId();
  };
  const reasonOf = (req: Request) => {
    const reason = body(req).reason;
    return typeof reason === "string" && reason !== "" ? reason : undefined;
  };

  control.get("/payouts", (_req, res) => res.json(book.list()));
  control.put("/payout-policy", (req, res) => {
    const input = body(req);
    res.json(
      book.setPolicy({
        ...(input.mode === undefined ? {} : { mode: input.mode as PayoutPolicy["mode"] }),
        ...(input.delayMs === undefined ? {} : { delayMs: Number(input.delayMs) }),
        ...(input.approvalAboveCents === undefined
          ? {}
          : { approvalAboveCents: input.approvalAboveCents === null ? null : Number(input.approvalAboveCents) }),
      }),
    );
  });
  control.post("/payouts/:id/pay", (req, res) => res.json(book.settle(req.params.id ?? "", "pay")));
  control.post("/payouts/:id/fail", (req, res) => res.json(book.settle(req.params.id ?? "", "fail", reasonOf(req))));
  control.post("/payouts/:id/approve", (req, res) => res.json(book.approve(req.params.id ?? "")));
  control.post("/payouts/:id/reject", (req, res) => res.json(book.reject(req.params.id ?? "", reasonOf(req))));
  control.get("/balance", (req, res) => res.json({ amountCents: book.balanceOf(clientOf(req)) }));
  control.put("/balance", (req, res) => {
    const clientId = clientOf(req);
    book.setBalance(clientId, Number(body(req).amountCents));
    res.json({ amountCents: book.balanceOf(clientId) });
  });
  control.post("/faults/payouts", (req, res) => {
    book.loseAnswers(Number(body(req).count ?? 1) || 1);
    res.status(204).end();
  });
  return control;
}
