/**
 * The bank's API Pix (the Central Bank's standard, version 2.9.0) behind mutual TLS and OAuth2
 * client credentials: the token URL, `cob`, `pix`, `devolucao` and `webhook`. Every request and
 * every answer is checked by express-openapi-validator against generated/bank/pix-api.yaml (the
 * vendored document with its overlay), so the fake cannot drift from the standard: an invalid
 * request gets the standard's problem+json, an invalid answer is recorded in the request log.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { TLSSocket } from "node:tls";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { parse as parseYaml } from "yaml";
import type { Customer, Ledger, PixRecord, RefundRecord, CobRecord, Token } from "./state.js";
import { dynamicBrCode } from "./brcode.js";
import {
  cents,
  endToEndId,
  problem,
  valor,
  type CobGerada,
  type CobCompleta,
  type CobRevisada,
  type CobSolicitada,
  type CobsConsultadas,
  type Devolucao,
  type DevolucaoSolicitada,
  type Pix,
  type PixConsultados,
  type WebhookCompleto,
  type WebhookSolicitado,
} from "./wire.js";

/** Where a bank deviates from the standard. */
export type Dialect = "standard" | "efi" | "inter";

/** The paths of each dialect: the API's base path and the token URL's path. */
export const DIALECT_PATHS: Record<Dialect, { basePath: string; tokenPath: string }> = {
  standard: { basePath: "/api/v2", tokenPath: "/oauth/token" },
  efi: { basePath: "/v2", tokenPath: "/oauth/token" },
  inter: { basePath: "/pix/v2", tokenPath: "/oauth/v2/token" },
};

/** The fake bank's ISPB (participant code) in the return ids it writes. */
export const BANK_ISPB = "99999999";

/** One request the bank answered, as the control API lists it. */
export interface RequestLogEntry {
  at: string;
  method: string;
  path: string;
  clientId: string | null;
  status: number;
  /** False when the request broke the document (it was answered with the standard's 400). */
  requestValid: boolean;
  /** False when the bank's answer broke the document (a defect of the fake); null when not checked. */
  responseValid: boolean | null;
  errors: string[];
  /** A fault answered it instead of the bank (`status`, `timeout`). */
  fault?: string;
  /** Milliseconds from the request's arrival to the end of its answer (the latency included); absent until answered. */
  ms?: number;
}

/** The body of a `malformed` fault: an answer cut short, as a token answer's first characters would be. */
export const malformedAnswer = '{"access_token":"eyJhbGciOiJSUzI1NiJ9.segredo-cortado';

/** A fault on the next `count` calls whose `METHOD /path` (path after the base) matches `route`. */
export interface CallFault {
  /**
   * `status`: an error answer; `timeout`: no answer; `reset`: the connection dropped unanswered
   * (refused); `delay`: handled as usual after `delayMs` (the caller may be gone by then);
   * `malformed`: a 200 whose JSON is cut short (`malformedAnswer`: a token answer's first characters).
   */
  kind: "status" | "timeout" | "reset" | "delay" | "malformed";
  /** For `status`: the answer (default 503). */
  status?: number;
  /** For `delay`: how long (ms). */
  delayMs?: number;
  count: number;
  /** A regular expression over `METHOD /path`, e.g. `^PUT /cob/`; absent: every call. */
  route?: string;
}

export interface ApiContext {
  ledger: Ledger;
  dialect: Dialect;
  tokenTtlSeconds: number;
  latencyMs: number;
  callFaults: CallFault[];
  requestLog: RequestLogEntry[];
  /** `localhost:PORT` as payload locations name the bank (the standard's location has no scheme). */
  locationHost: () => string;
  /** A devolução was asked for: the bank settles it later (see the control API). */
  refundRequested: (pix: PixRecord, refund: RefundRecord) => void;
  /** Responses held open by a `timeout` fault; ended when the bank closes. */
  held: Set<Response>;
  /**
   * The bank's routes outside the API Pix (its payouts, fake-bank/src/payouts.ts), mounted after
   * the log, the latency, the faults and the token URL, before the API Pix.
   */
  routes?: RequestHandler;
  /**
   * More of the API Pix (Pix Automático, fake-bank/src/rec.ts), on its router: after the token,
   * the validator and the scopes, before the answer for what this bank does not implement.
   */
  apiRoutes?: (router: express.Router) => void;
}

const documentPath = new URL("../../generated/bank/pix-api.yaml", import.meta.url);
/** Paths a payer's bank reads at the payload location (not the receiving customer's API). */
const PAYER_PATHS = ["/{pixUrlAccessToken}", "/cobv/{pixUrlAccessToken}", "/rec/{recUrlAccessToken}"];

/** The API Pix's document as the fake's validator reads it: its paths from the router's mount point. */
function loadDocument(): Record<string, unknown> {
  const document = parseYaml(readFileSync(documentPath, "utf8")) as {
    servers: unknown;
    paths: Record<string, unknown>;
  };
  document.servers = [{ url: "/" }];
  for (const path of PAYER_PATHS) delete document.paths[path];
  return document as unknown as Record<string, unknown>;
}

/** The operation's kind of error for an invalid request and for an unknown entity (the standard's names). */
function errorKinds(method: string, route: string): { invalid: string; notFound: string } {
  const at = `${method} ${route}`;
  if (/^(PUT|PATCH) \/cob\//.test(at)) return { invalid: "CobOperacaoInvalida", notFound: "CobNaoEncontrado" };
  if (/^GET \/cob\//.test(at)) return { invalid: "RequisicaoInvalida", notFound: "CobNaoEncontrado" };
  if (/^GET \/cob$/.test(at)) return { invalid: "CobConsultaInvalida", notFound: "NaoEncontrado" };
  if (/\/devolucao\//.test(at)) return { invalid: "PixDevolucaoInvalida", notFound: "PixDevolucaoNaoEncontrada" };
  if (/^GET \/pix$/.test(at)) return { invalid: "PixConsultaInvalida", notFound: "NaoEncontrado" };
  if (/^GET \/pix\//.test(at)) return { invalid: "RequisicaoInvalida", notFound: "PixNaoEncontrado" };
  if (/\/webhook\//.test(at)) return { invalid: "WebhookOperacaoInvalida", notFound: "WebhookNaoEncontrado" };
  if (/^GET \/rec/.test(at)) return { invalid: "RecConsultaInvalida", notFound: "RecNaoEncontrada" };
  if (/ \/rec/.test(at)) return { invalid: "RecOperacaoInvalida", notFound: "RecNaoEncontrada" };
  if (/^GET \/cobr/.test(at)) return { invalid: "CobRConsultaInvalida", notFound: "CobRNaoEncontrado" };
  if (/ \/cobr/.test(at)) return { invalid: "CobROperacaoInvalida", notFound: "CobRNaoEncontrado" };
  if (/ \/webhook(rec|cobr)$/.test(at)) return { invalid: "WebhookOperacaoInvalida", notFound: "WebhookNaoEncontrado" };
  return { invalid: "RequisicaoInvalida", notFound: "NaoEncontrado" };
}

interface Locals {
  customer: Customer;
  token: Token;
  log: RequestLogEntry;
  routePath: string;
}

const locals = (res: Response): Locals => res.locals as unknown as Locals;

/** Each request's client certificate thumbprint, read when it arrived (`rememberPeer`). */
const arrivedWith = new WeakMap<Request, string | null>();

/** The connection's client certificate's `x5t#S256`, or null (none, or the connection is gone). */
function connectionThumbprint(req: Request): string | null {
  const socket = req.socket as TLSSocket;
  const peer = typeof socket.getPeerCertificate === "function" ? socket.getPeerCertificate() : null;
  if (peer === null || peer.raw === undefined) return null;
  return createHash("sha256").update(peer.raw).digest("base64url");
}

/**
 * Keeps the certificate a request came with, read on its arrival: a bank carries out a request it
 * received even when its client has gone by the time it answers (a client killed while its call
 * was at the bank), and a closed connection no longer shows its certificate.
 */
function rememberPeer(req: Request): void {
  arrivedWith.set(req, connectionThumbprint(req));
}

/** The presented client certificate's `x5t#S256`, or null (mutual TLS already refused a missing one). */
function peerThumbprint(req: Request): string | null {
  return arrivedWith.has(req) ? (arrivedWith.get(req) ?? null) : connectionThumbprint(req);
}

function sameSecret(a: string, b: string): boolean {
  const left = createHash("sha256").update(a).digest();
  const right = createHash("sha256").update(b).digest();
  return timingSafeEqual(left, right);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends the standard's problem+json (through res.json, so the answer is checked too). */
function sendProblem(
  res: Response,
  status: number,
  kind: string,
  title: string,
  detail?: string,
  violacoes?: { razao: string; propriedade: string }[],
): void {
  res
    .status(status)
    .type("application/problem+json")
    .json(problem(status, kind, title, detail, violacoes));
}

/**
 * The bearer token of the bank's APIs: present, unexpired, and bound to the certificate of this
 * connection (RFC 8705); sets the customer and the token in `res.locals`.
 */
export function requireToken(ledger: Ledger): RequestHandler {
  return (req, res, next) => {
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "");
    const token = bearer === null ? undefined : ledger.tokens.get(bearer[1] ?? "");
    const refuse = (description: string) => {
      res.setHeader("WWW-Authenticate", `Bearer error="invalid_token", error_description="${description}"`);
      res.status(401).json({ error: "invalid_token", error_description: description });
    };
    if (token === undefined) return refuse("Token ausente ou desconhecido.");
    if (token.expiresAt <= Date.now()) return refuse("Token expirado.");
    if (token.thumbprint !== peerThumbprint(req)) return refuse("Token emitido para outro certificado.");
    const customer = ledger.customers.get(token.clientId);
    if (customer === undefined) return refuse("Cliente removido.");
    locals(res).customer = customer;
    locals(res).token = token;
    locals(res).log.clientId = customer.clientId;
    next();
  };
}

/** Builds the API Pix application (mounted on the bank's HTTPS server). */
export function createApiApp(context: ApiContext): express.Express {
  const { basePath, tokenPath } = DIALECT_PATHS[context.dialect];
  const { ledger } = context;
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  app.use(express.json({ type: ["application/json", "application/*+json"], limit: "1mb" }));
  app.use(express.urlencoded({ extended: false, limit: "64kb" }));

  // The request log, the configured latency and the call faults come first: a fault answers
  // whatever the request.
  app.use(async (req, res, next) => {
    const path = req.path.startsWith(basePath) ? req.path.slice(basePath.length) || "/" : req.path;
    const log: RequestLogEntry = {
      at: new Date().toISOString(),
      method: req.method,
      path: req.originalUrl,
      clientId: null,
      status: 0,
      requestValid: true,
      responseValid: null,
      errors: [],
    };
    rememberPeer(req);
    context.requestLog.push(log);
    if (context.requestLog.length > 10_000) context.requestLog.splice(0, context.requestLog.length - 10_000);
    res.locals.log = log;
    res.locals.routePath = path;
    const arrived = performance.now();
    res.on("finish", () => {
      log.status = res.statusCode;
      log.ms = performance.now() - arrived;
    });
    if (context.latencyMs > 0) await sleep(context.latencyMs);
    // A route matches the path within the standard's base path (`^PUT /cob/`) or the whole path
    // (`^GET /v2/gn/pix/enviados/`: a dialect's own routes under the same prefix).
    const fault = context.callFaults.find((f) => {
      if (f.count <= 0) return false;
      if (f.route === undefined) return true;
      const route = new RegExp(f.route);
      return route.test(`${req.method} ${path}`) || route.test(`${req.method} ${req.path}`);
    });
    if (fault !== undefined) {
      fault.count -= 1;
      log.fault = fault.kind;
      if (fault.kind === "timeout") {
        context.held.add(res);
        res.on("close", () => context.held.delete(res));
        return;
      }
      if (fault.kind === "reset") {
        res.socket?.destroy();
        return;
      }
      if (fault.kind === "malformed") {
        res.status(200).type("application/json").send(malformedAnswer);
        return;
      }
      if (fault.kind === "delay") {
        await sleep(fault.delayMs ?? 1000);
        next();
        return;
      }
      const status = fault.status ?? 503;
      res.setHeader("Retry-After", "1");
      sendProblem(res, status, status === 503 ? "ServicoIndisponivel" : "ErroInternoDoServidor", "Falha simulada");
      return;
    }
    next();
  });

  // OAuth2 client credentials (RFC 6749 §4.4) over mutual TLS; the token is bound to the
  // certificate it was asked with (RFC 8705). Credentials by Basic auth (the standard, efi) or in
  // the form body (inter).
  app.post(tokenPath, (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    let clientId = typeof body.client_id === "string" ? body.client_id : "";
    let clientSecret = typeof body.client_secret === "string" ? body.client_secret : "";
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "");
    if (basic !== null) {
      const decoded = Buffer.from(basic[1] ?? "", "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      clientId = decodeURIComponent(decoded.slice(0, colon));
      clientSecret = decodeURIComponent(decoded.slice(colon + 1));
    }
    const oauthError = (status: number, error: string, description: string) => {
      if (status === 401) res.setHeader("WWW-Authenticate", 'Basic realm="fake-bank"');
      res.status(status).json({ error, error_description: description });
    };
    if (body.grant_type !== "client_credentials") {
      oauthError(400, "unsupported_grant_type", "Apenas grant_type=client_credentials é aceito.");
      return;
    }
    const customer = ledger.customers.get(clientId);
    const thumbprint = peerThumbprint(req);
    if (customer === undefined || !sameSecret(customer.clientSecret, clientSecret)) {
      oauthError(401, "invalid_client", "Client id ou client secret inválido.");
      return;
    }
    if (thumbprint !== customer.thumbprint) {
      oauthError(401, "invalid_client", "O certificado apresentado não é o emitido para este client id.");
      return;
    }
    const asked = typeof body.scope === "string" && body.scope.trim() !== "" ? body.scope.trim().split(/\s+/) : null;
    const scopes = asked ?? customer.scopes;
    const outside = scopes.filter((scope) => !customer.scopes.includes(scope));
    if (outside.length > 0) {
      oauthError(400, "invalid_scope", `Escopos não concedidos a este cliente: ${outside.join(" ")}`);
      return;
    }
    const token = ledger.issueToken(customer.clientId, thumbprint, scopes, context.tokenTtlSeconds);
    locals(res).log.clientId = customer.clientId;
    res.setHeader("Cache-Control", "no-store");
    res.json({
      access_token: token.accessToken,
      token_type: "Bearer",
      expires_in: context.tokenTtlSeconds,
      scope: scopes.join(" "),
    });
  });

  if (context.routes !== undefined) app.use(context.routes);

  // The bearer token: present, unexpired, and bound to the certificate of this connection.
  app.use(basePath, requireToken(ledger));

  // Mounted at the dialect's base path and matching the path below it (`useRequestUrl`): one
  // validator for the three dialects' base paths, each operation's checks compiled once a process
  // (a fifth of the component tests' CPU is this library compiling them) where each base path had
  // compiled them again.
  app.use(basePath, documentValidator("pix-api", loadDocument, { useRequestUrl: true }));

  // Scopes, from the operation's `security` in the document.
  app.use(basePath, (req, res, next) => {
    const operation = (req as { openapi?: { schema?: { security?: { OAuth2?: string[] }[] } } }).openapi?.schema;
    const log = locals(res).log;
    if (log.responseValid === null) log.responseValid = true;
    const needed = operation?.security?.flatMap((requirement) => requirement.OAuth2 ?? []) ?? [];
    const missing = needed.filter((scope) => !locals(res).token.scopes.includes(scope));
    if (needed.length > 0 && missing.length === needed.length) {
      sendProblem(res, 403, "AcessoNegado", "Acesso negado", `O token não tem o escopo ${needed.join(" ou ")}.`);
      return;
    }
    next();
  });

  const router = express.Router();
  app.use(basePath, router);

  const cobAnswer = (cob: Omit<CobRecord, "revisions" | "pix">): CobGerada => ({
    calendario: { criacao: cob.criacao, expiracao: cob.expiracao },
    txid: cob.txid,
    revisao: cob.revisao,
    // The loc also names its charge's txid: the vendored CobGerada required it without declaring it
    // (the generated type leaves it out); harmless where the overlay drops that requirement.
    loc: { id: cob.locId, location: cob.location, tipoCob: "cob", criacao: cob.locCriacao, ...{ txid: cob.txid } },
    location: cob.location,
    status: cob.status,
    ...(cob.devedor === undefined ? {} : { devedor: cob.devedor }),
    valor: { original: valor(cob.original), modalidadeAlteracao: cob.modalidadeAlteracao },
    chave: cob.chave,
    ...(cob.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: cob.solicitacaoPagador }),
    ...(cob.infoAdicionais === undefined ? {} : { infoAdicionais: cob.infoAdicionais }),
    pixCopiaECola: cob.pixCopiaECola,
  });

  const cobComplete = (cob: CobRecord): CobCompleta => ({
    ...cobAnswer(cob),
    ...(cob.pix.length === 0
      ? {}
      : { pix: cob.pix.flatMap((id) => ledger.pix.get(id) ?? []).map(pixAnswer) as CobCompleta["pix"] }),
  });

  const snapshot = (cob: CobRecord): Omit<CobRecord, "revisions" | "pix"> => {
    const { revisions: _r, pix: _p, ...rest } = cob;
    return structuredClone(rest);
  };

  const invalid = (res: Response, detail: string, propriedade: string) => {
    const kinds = errorKinds(res.req.method, locals(res).routePath);
    sendProblem(res, 400, kinds.invalid, "Requisição inválida", detail, [{ razao: detail, propriedade }]);
  };
  const notFound = (res: Response, detail: string) => {
    const kinds = errorKinds(res.req.method, locals(res).routePath);
    sendProblem(res, 404, kinds.notFound, "Não encontrado", detail);
  };

  router.put("/cob/:txid", (req, res) => {
    const { customer } = locals(res);
    const body = req.body as CobSolicitada;
    const txid = req.params.txid ?? "";
    if (!customer.keys.includes(body.chave)) {
      invalid(res, "A chave não pertence a este usuário recebedor.", "cob.chave");
      return;
    }
    const original = cents(body.valor.original ?? "");
    if (!(original > 0)) {
      invalid(res, "O valor da cobrança não pode ser 0.00.", "cob.valor.original");
      return;
    }
    const expiracao = Number(body.calendario.expiracao ?? 86400);
    if (!(expiracao > 0)) {
      invalid(res, "A expiração deve ser maior que zero.", "cob.calendario.expiracao");
      return;
    }
    if (body.loc?.id !== undefined) {
      invalid(res, "O location referenciado por loc.id inexiste.", "cob.loc.id");
      return;
    }
    const fields = {
      expiracao,
      original,
      modalidadeAlteracao: body.valor.modalidadeAlteracao ?? 0,
      chave: body.chave,
      solicitacaoPagador: body.solicitacaoPagador,
      infoAdicionais: body.infoAdicionais,
      devedor: body.devedor,
    };
    const key = ledger.cobKey(customer.clientId, txid);
    const existing = ledger.cobs.get(key);
    if (existing !== undefined) {
      if (existing.status !== "ATIVA") {
        invalid(res, `A cobrança já existe e está ${existing.status}.`, "cob.status");
        return;
      }
      const same = (Object.keys(fields) as (keyof typeof fields)[]).every(
        (name) => JSON.stringify(existing[name]) === JSON.stringify(fields[name]),
      );
      if (!same) {
        Object.assign(existing, withoutUndefined(fields));
        existing.revisao += 1;
        existing.revisions.push(snapshot(existing));
      }
      res.status(201).json(cobAnswer(existing));
      return;
    }
    const locId = ledger.takeLocId();
    const locToken = randomBytes(16).toString("hex");
    const location = `${context.locationHost()}/qr/v2/${locToken}`;
    const now = new Date().toISOString();
    const cob: CobRecord = {
      clientId: customer.clientId,
      txid,
      revisao: 0,
      criacao: now,
      locId,
      location,
      locCriacao: now,
      status: "ATIVA",
      pixCopiaECola: dynamicBrCode({ location, merchantName: customer.name, merchantCity: customer.city }),
      pix: [],
      revisions: [],
      ...withoutUndefined(fields),
    } as CobRecord;
    cob.revisions.push(snapshot(cob));
    ledger.cobs.set(key, cob);
    ledger.locations.set(locToken, cob);
    res.status(201).json(cobAnswer(cob));
  });

  router.patch("/cob/:txid", (req, res) => {
    const { customer } = locals(res);
    const cob = ledger.cobs.get(ledger.cobKey(customer.clientId, req.params.txid ?? ""));
    if (cob === undefined) {
      notFound(res, "Cobrança não encontrada para o txid informado.");
      return;
    }
    const body = req.body as CobRevisada;
    if (cob.status !== "ATIVA") {
      invalid(res, `A cobrança não está ATIVA (está ${cob.status}).`, "cob.status");
      return;
    }
    const changes = Object.keys(body).filter((name) => name !== "status");
    if (body.status === "REMOVIDA_PELO_USUARIO_RECEBEDOR" && changes.length > 0) {
      invalid(res, "Não se remove uma cobrança ao mesmo tempo em que se alteram outros campos.", "cob.status");
      return;
    }
    if (body.chave !== undefined && !customer.keys.includes(body.chave)) {
      invalid(res, "A chave não pertence a este usuário recebedor.", "cob.chave");
      return;
    }
    if (body.valor?.original !== undefined && !(cents(body.valor.original) > 0)) {
      invalid(res, "O valor da cobrança não pode ser 0.00.", "cob.valor.original");
      return;
    }
    if (body.calendario?.expiracao !== undefined && !(Number(body.calendario.expiracao) > 0)) {
      invalid(res, "A expiração deve ser maior que zero.", "cob.calendario.expiracao");
      return;
    }
    if (body.loc?.id !== undefined) {
      invalid(res, "O location referenciado por loc.id inexiste.", "cob.loc.id");
      return;
    }
    if (body.status !== undefined) cob.status = body.status;
    if (body.chave !== undefined) cob.chave = body.chave;
    if (body.valor?.original !== undefined) cob.original = cents(body.valor.original);
    if (body.valor?.modalidadeAlteracao !== undefined) cob.modalidadeAlteracao = body.valor.modalidadeAlteracao;
    if (body.calendario?.expiracao !== undefined) cob.expiracao = Number(body.calendario.expiracao);
    if (body.devedor !== undefined) cob.devedor = body.devedor;
    if (body.solicitacaoPagador !== undefined) cob.solicitacaoPagador = body.solicitacaoPagador;
    if (body.infoAdicionais !== undefined) cob.infoAdicionais = body.infoAdicionais;
    cob.revisao += 1;
    cob.revisions.push(snapshot(cob));
    res.status(200).json(cobAnswer(cob));
  });

  router.get("/cob/:txid", (req, res) => {
    const { customer } = locals(res);
    const cob = ledger.cobs.get(ledger.cobKey(customer.clientId, req.params.txid ?? ""));
    if (cob === undefined) {
      notFound(res, "Cobrança não encontrada para o txid informado.");
      return;
    }
    const revisao = req.query.revisao === undefined ? undefined : Number(req.query.revisao);
    if (revisao !== undefined) {
      const at = cob.revisions.find((r) => r.revisao === revisao);
      if (at === undefined) {
        notFound(res, `A cobrança não tem a revisão ${revisao}.`);
        return;
      }
      res.json({ ...cobAnswer(at) } satisfies CobCompleta);
      return;
    }
    res.json(cobComplete(cob));
  });

  router.get("/cob", (req, res) => {
    const { customer } = locals(res);
    const window = timeWindow(req, res, invalid);
    if (window === null) return;
    const { cpf, cnpj, status, locationPresente } = req.query as Record<string, string | undefined>;
    if (cpf !== undefined && cnpj !== undefined) {
      invalid(res, "CPF e CNPJ não podem ser usados ao mesmo tempo.", "cpf");
      return;
    }
    const cobs = [...ledger.cobs.values()]
      .filter((cob) => cob.clientId === customer.clientId)
      .filter((cob) => inWindow(cob.criacao, window))
      .filter(
        (cob) => cpf === undefined || (cob.devedor !== undefined && "cpf" in cob.devedor && cob.devedor.cpf === cpf),
      )
      .filter(
        (cob) =>
          cnpj === undefined || (cob.devedor !== undefined && "cnpj" in cob.devedor && cob.devedor.cnpj === cnpj),
      )
      .filter((cob) => status === undefined || cob.status === status)
      // Every cob of this bank has a location (made with it).
      .filter(() => locationPresente === undefined || String(locationPresente) === "true")
      .sort((a, b) => a.criacao.localeCompare(b.criacao));
    const page = paginate(cobs, window);
    const answer: CobsConsultadas = {
      parametros: {
        inicio: window.inicio,
        fim: window.fim,
        ...(cpf === undefined ? {} : { cpf }),
        ...(cnpj === undefined ? {} : { cnpj }),
        ...(status === undefined ? {} : { status }),
        paginacao: page.paginacao,
      },
      cobs: page.items.map(cobComplete),
    };
    res.json(answer);
  });

  const pixAnswer = pixWire;
  const refundAnswer = refundWire;

  router.get("/pix/:e2eid", (req, res) => {
    const { customer } = locals(res);
    const pix = ledger.pix.get(req.params.e2eid ?? "");
    if (pix === undefined || pix.clientId !== customer.clientId) {
      notFound(res, "Pix não encontrado para o e2eid informado.");
      return;
    }
    res.json(pixAnswer(pix));
  });

  router.get("/pix", (req, res) => {
    const { customer } = locals(res);
    const window = timeWindow(req, res, invalid);
    if (window === null) return;
    const query = req.query as Record<string, string | undefined>;
    if (query.cpf !== undefined && query.cnpj !== undefined) {
      invalid(res, "CPF e CNPJ não podem ser usados ao mesmo tempo.", "cpf");
      return;
    }
    const flag = (name: string) => (query[name] === undefined ? undefined : String(query[name]) === "true");
    const txIdPresente = flag("txIdPresente");
    const devolucaoPresente = flag("devolucaoPresente");
    const items = [...ledger.pix.values()]
      .filter((pix) => pix.clientId === customer.clientId)
      .filter((pix) => inWindow(pix.horario, window))
      .filter((pix) => query.txid === undefined || pix.txid === query.txid)
      .filter((pix) => txIdPresente === undefined || (pix.txid !== undefined) === txIdPresente)
      .filter((pix) => devolucaoPresente === undefined || pix.devolucoes.length > 0 === devolucaoPresente)
      .filter((pix) => query.cpf === undefined || pix.payer.cpf === query.cpf)
      .filter((pix) => query.cnpj === undefined || pix.payer.cnpj === query.cnpj)
      .sort((a, b) => a.horario.localeCompare(b.horario) || a.endToEndId.localeCompare(b.endToEndId));
    const page = paginate(items, window);
    const answer: PixConsultados = {
      parametros: {
        inicio: window.inicio,
        fim: window.fim,
        ...(query.txid === undefined ? {} : { txid: query.txid }),
        ...(txIdPresente === undefined ? {} : { txIdPresente }),
        ...(devolucaoPresente === undefined ? {} : { devolucaoPresente }),
        ...(query.cpf === undefined ? {} : { cpf: query.cpf }),
        ...(query.cnpj === undefined ? {} : { cnpj: query.cnpj }),
        paginacao: page.paginacao,
      },
      pix: page.items.map(pixAnswer),
    };
    res.json(answer);
  });

  router.put("/pix/:e2eid/devolucao/:id", (req, res) => {
    const { customer } = locals(res);
    const pix = ledger.pix.get(req.params.e2eid ?? "");
    if (pix === undefined || pix.clientId !== customer.clientId) {
      sendProblem(res, 404, "PixNaoEncontrado", "Não encontrado", "Pix não encontrado para o e2eid informado.");
      return;
    }
    const body = req.body as DevolucaoSolicitada;
    const amount = cents(body.valor);
    const natureza = body.natureza ?? "ORIGINAL";
    const id = req.params.id ?? "";
    const existing = pix.devolucoes.find((refund) => refund.id === id);
    if (existing !== undefined) {
      // A repeat of the same request answers the same devolução; another one with this id is refused.
      if (existing.amount === amount && existing.natureza === natureza) {
        res.status(201).json(refundAnswer(existing));
        return;
      }
      invalid(res, "Este id já foi usado por outra devolução deste Pix.", "id");
      return;
    }
    if (natureza === "RETIRADA") {
      invalid(res, "Este Pix não é de saque nem de troco.", "devolucao.natureza");
      return;
    }
    if (!(amount > 0)) {
      invalid(res, "O valor da devolução deve ser maior que zero.", "devolucao.valor");
      return;
    }
    const refunded = pix.devolucoes.filter((r) => r.status !== "NAO_REALIZADO").reduce((sum, r) => sum + r.amount, 0);
    if (refunded + amount > pix.amount) {
      invalid(res, "As devoluções excederiam o valor do Pix.", "devolucao.valor");
      return;
    }
    const refund: RefundRecord = {
      id,
      rtrId: endToEndId(BANK_ISPB, new Date(), "D"),
      amount,
      natureza,
      ...(body.descricao === undefined ? {} : { descricao: body.descricao }),
      solicitacao: new Date().toISOString(),
      status: "EM_PROCESSAMENTO",
    };
    pix.devolucoes.push(refund);
    res.status(201).json(refundAnswer(refund));
    context.refundRequested(pix, refund);
  });

  router.get("/pix/:e2eid/devolucao/:id", (req, res) => {
    const { customer } = locals(res);
    const pix = ledger.pix.get(req.params.e2eid ?? "");
    const refund = pix?.clientId === customer.clientId ? pix.devolucoes.find((r) => r.id === req.params.id) : undefined;
    if (refund === undefined) {
      notFound(res, "Devolução não encontrada para o e2eid e o id informados.");
      return;
    }
    res.json(refundAnswer(refund));
  });

  router.put("/webhook/:chave", (req, res) => {
    const { customer } = locals(res);
    const chave = req.params.chave ?? "";
    if (!customer.keys.includes(chave)) {
      invalid(res, "A chave não pertence a este usuário recebedor.", "chave");
      return;
    }
    const body = req.body as WebhookSolicitado;
    if (!/^https:\/\//i.test(body.webhookUrl)) {
      invalid(res, "A URL do webhook deve ser https.", "webhook.webhookUrl");
      return;
    }
    ledger.webhooks.set(ledger.cobKey(customer.clientId, chave), {
      clientId: customer.clientId,
      chave,
      webhookUrl: body.webhookUrl,
      criacao: new Date().toISOString(),
    });
    res.status(200).end();
  });

  router.get("/webhook/:chave", (req, res) => {
    const { customer } = locals(res);
    const webhook = ledger.webhooks.get(ledger.cobKey(customer.clientId, req.params.chave ?? ""));
    if (webhook === undefined) {
      notFound(res, "Nenhum webhook para esta chave.");
      return;
    }
    const answer: WebhookCompleto = {
      webhookUrl: webhook.webhookUrl,
      chave: webhook.chave,
      cnpj: customer.cnpj,
      criacao: webhook.criacao,
    };
    res.json(answer);
  });

  router.delete("/webhook/:chave", (req, res) => {
    const { customer } = locals(res);
    if (!ledger.webhooks.delete(ledger.cobKey(customer.clientId, req.params.chave ?? ""))) {
      notFound(res, "Nenhum webhook para esta chave.");
      return;
    }
    res.status(204).end();
  });

  context.apiRoutes?.(router);

  router.use((_req, res) => {
    sendProblem(res, 404, "NaoEncontrado", "Não encontrado", "Recurso não implementado por este banco.");
  });

  app.use((_req: Request, res: Response) => {
    res.status(404).json({ error: "not_found" });
  });

  // The validator's verdicts (and anything thrown) as the standard's problem+json.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const failure = error as { status?: number; message?: string; errors?: { path?: string; message?: string }[] };
    const status =
      typeof failure.status === "number" && failure.status >= 400 && failure.status < 500 ? failure.status : 500;
    const log = (res.locals as unknown as Partial<Locals>).log;
    const errors = (failure.errors ?? []).map((e) => ({
      razao: e.message ?? "inválido",
      propriedade: (e.path ?? "").replace(/^\/?(body\/)?/, "").replaceAll("/", "."),
    }));
    if (log !== undefined) {
      if (status === 400) log.requestValid = false;
      log.errors.push(...errors.map((e) => `${e.propriedade}: ${e.razao}`));
    }
    if (res.headersSent) return;
    const route = (res.locals as unknown as Partial<Locals>).routePath ?? req.path;
    if (status === 400 || status === 415) {
      sendProblem(res, 400, errorKinds(req.method, route).invalid, "Requisição inválida", failure.message, errors);
    } else if (status === 404 || status === 405) {
      sendProblem(res, 404, "NaoEncontrado", "Não encontrado", failure.message);
    } else if (status === 500) {
      sendProblem(res, 500, "ErroInternoDoServidor", "Erro interno", String(failure.message ?? error));
    } else {
      sendProblem(res, status, "RequisicaoInvalida", "Requisição inválida", failure.message);
    }
  });
  return app;
}

/** A devolução in the standard's terms. */
export function refundWire(refund: RefundRecord): Devolucao {
  return {
    id: refund.id,
    rtrId: refund.rtrId,
    valor: valor(refund.amount),
    natureza: refund.natureza,
    ...(refund.descricao === undefined ? {} : { descricao: refund.descricao }),
    horario: {
      solicitacao: refund.solicitacao,
      ...(refund.liquidacao === undefined ? {} : { liquidacao: refund.liquidacao }),
    },
    status: refund.status,
    ...(refund.motivo === undefined ? {} : { motivo: refund.motivo }),
  };
}

/** A Pix in the standard's terms (the API and the callbacks write the same). */
export function pixWire(pix: PixRecord): Pix {
  return {
    endToEndId: pix.endToEndId,
    ...(pix.txid === undefined ? {} : { txid: pix.txid }),
    valor: valor(pix.amount),
    ...(pix.componentesValor === undefined ? {} : { componentesValor: pix.componentesValor }),
    chave: pix.chave,
    horario: pix.horario,
    ...(pix.infoPagador === undefined ? {} : { infoPagador: pix.infoPagador }),
    ...(pix.devolucoes.length === 0 ? {} : { devolucoes: pix.devolucoes.map(refundWire) }),
  };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

interface Window {
  inicio: string;
  fim: string;
  from: number;
  to: number;
  paginaAtual: number;
  itensPorPagina: number;
}

function timeWindow(
  req: Request,
  res: Response,
  invalid: (res: Response, detail: string, propriedade: string) => void,
): Window | null {
  const query = req.query as Record<string, string | number | undefined>;
  const inicio = String(query.inicio);
  const fim = String(query.fim);
  const from = Date.parse(inicio);
  const to = Date.parse(fim);
  if (to < from) {
    invalid(res, "O fim é anterior ao início.", "fim");
    return null;
  }
  return {
    inicio,
    fim,
    from,
    to,
    paginaAtual: Number(query["paginacao.paginaAtual"] ?? 0),
    itensPorPagina: Number(query["paginacao.itensPorPagina"] ?? 100),
  };
}

function inWindow(at: string, window: Window): boolean {
  const time = Date.parse(at);
  return time >= window.from && time <= window.to;
}

function paginate<T>(items: T[], window: Window) {
  const pages = Math.max(1, Math.ceil(items.length / window.itensPorPagina));
  const start = window.paginaAtual * window.itensPorPagina;
  return {
    items: items.slice(start, start + window.itensPorPagina),
    paginacao: {
      paginaAtual: window.paginaAtual,
      itensPorPagina: window.itensPorPagina,
      quantidadeDePaginas: pages,
      quantidadeTotalDeItens: items.length,
    },
  };
}

/** The validators made in this process, by document (see documentValidator). */
const validators = new Map<string, RequestHandler[]>();

/**
 * express-openapi-validator over one of the bank's documents (the Central Bank's, or a payout
 * document): a request outside it is refused as the document says, an answer outside it is flagged
 * in the request log and on stderr, so the fake cannot drift from the document.
 *
 * Made once per process for each `key` (a document) and shared by every bank
 * started in it: compiling the document's schemas costs 2 to 3 s of CPU, and the test suites start
 * dozens of banks in one process. The validator keeps no bank's state (each answer's verdict goes to
 * that request's own log entry), so sharing it changes nothing a bank does.
 */
export function documentValidator(
  key: string,
  load: () => unknown,
  options: { useRequestUrl?: boolean } = {},
): RequestHandler[] {
  const made = validators.get(key);
  if (made !== undefined) return made;
  const handlers = newDocumentValidator(load(), options.useRequestUrl === true);
  validators.set(key, handlers);
  return handlers;
}

function newDocumentValidator(apiSpec: unknown, useRequestUrl: boolean): RequestHandler[] {
  const OpenApiValidator = createRequire(import.meta.url)(
    "express-openapi-validator",
  ) as typeof import("express-openapi-validator");
  return OpenApiValidator.middleware({
    apiSpec: apiSpec as never,
    validateRequests: { allErrors: true, removeAdditional: false },
    validateResponses: {
      removeAdditional: false,
      onError: (error, _body, req) => {
        const log = (req.res as Response | undefined)?.locals.log as RequestLogEntry | undefined;
        if (log === undefined) return;
        log.responseValid = false;
        log.errors.push(...(error.errors ?? []).map((e) => `resposta ${e.path}: ${e.message}`));
        process.stderr.write(
          `fake-bank: resposta fora do documento em ${log.method} ${log.path}: ${JSON.stringify(error.errors)}\n`,
        );
      },
    },
    validateSecurity: false,
    validateApiSpec: false,
    validateFormats: true,
    useRequestUrl,
    fileUploader: false,
  }) as unknown as RequestHandler[];
}
