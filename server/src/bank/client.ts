/**
 * The domain's `PixBank` port spoken to a bank through the Central Bank's API Pix
 * (spec/bank/pix-api, vendored; types generated into generated/bank/pix-api.d.ts): openapi-fetch
 * typed by the document, over an undici Agent holding the bank's client certificate (mutual TLS)
 * and the bank's CA, with OAuth2 client credentials fetched over that same connection (the Manual
 * de Padrões binds the token to the certificate). Nothing of the wire format is typed by hand.
 *
 * Every call has one bounded wait (`timeoutMs`, token included): no answer in time is
 * `BankUnavailableError` (the bank is slow: the outcome is unknown); a 5xx, a refused or reset
 * connection, a TLS failure, or a token endpoint that gives no token (its 5xx, 401 for a client
 * it does not know, 404, 429) is `BankDownError` (the bank is down for us); a 4xx is
 * `BankRefusedError` with the bank's problem detail, and so is the token endpoint's 400 or 403 (a
 * scope not granted: the bank answered no to that call, and the breaker does not count it). The Agent bounds the sockets
 * per bank (`connections`); a request waiting for one is bounded by the same deadline. A circuit
 * breaker (breaker.ts) answers `BankDownError` at once, without a call, while the bank is down.
 */
import createClient from "openapi-fetch";
import { createSecureContext, type SecureContext, type SecureContextOptions } from "node:tls";
import { Agent, fetch as undiciFetch, type Dispatcher } from "undici";
import * as z from "zod";
import type { components, paths } from "../../../generated/bank/pix-api.js";
import {
  BankDownError,
  BankRefusedError,
  BankUnavailableError,
  type BankCharge,
  type BankChargeRequest,
  type BankAmountComponents,
  type BankDueDateChargeRequest,
  type BankRefund,
  type DueDateChargesAtBank,
  type PixBank,
  type ReceivedPix,
} from "../domain/ports/pix-bank.js";
import type { BankCredentials, ClientCertificateMaterial } from "../domain/bank/index.js";
import { breaker, type BreakerOptions } from "./breaker.js";
import { dialects, type Dialect } from "./dialects.js";
import { centsFromValor, valorFromCents } from "./money.js";
import { TokenCache, type IssuedToken } from "./token.js";

type Schemas = components["schemas"];

/** A `PixBank` that holds sockets: `close()` lets in-flight calls finish, then frees them. */
export interface BankClient extends PixBank {
  close(): Promise<void>;
  /** When the cached access token expires, for the connection's health (null: none yet). */
  tokenExpiresAt(): Date | null;
  /**
   * The connection's mutual-TLS agent and tokens, for the bank's other APIs (the payouts of
   * server/src/bank/payouts.ts): the same sockets and the same bounded wait.
   */
  readonly transport: BankTransport;
}

/**
 * What every call to the bank goes through: one undici Agent with the client certificate and the
 * bank's CA (mutual TLS), the `fetch` openapi-fetch sends with, and OAuth2 tokens cached per set
 * of scopes (`TokenCache`: until shortly before expiry, renewed once for all concurrent callers).
 * The API Pix's scopes are one set; another API of the bank (its payouts) asks its own token, so
 * an account without those scopes still receives charges.
 */
export interface BankTransport {
  /** The API's base URL (the connection's). */
  readonly baseUrl: string;
  /** openapi-fetch's `fetch`: the Request, sent through the mutual-TLS Agent. */
  fetch(request: Request): Promise<Response>;
  /**
   * openapi-fetch's `Request` for the clients over this transport (`createClient`'s option): the
   * call's parts as `fetch` reads them, its body kept as the text openapi-fetch serialised.
   */
  readonly Request: typeof Request;
  /**
   * One call within the bounded wait, with a token for `scopes` (space-separated) in front; a 401
   * drops that token and the call is sent once more with a new one. Whatever fails before an
   * answer is `BankUnavailableError`.
   */
  authorized<R extends { response: Response }>(
    scopes: string,
    call: (init: { headers: { authorization: string }; signal: AbortSignal }) => Promise<R>,
  ): Promise<R>;
  /** When the API Pix's cached token expires (null: none yet). */
  tokenExpiresAt(): Date | null;
  /** While the breaker is open, the seconds it has left; null when calls go through. */
  downForSeconds(): number | null;
  close(): Promise<void>;
}

export interface BankClientOptions {
  /** The bounded wait of one call, token included (default 5 000 ms). */
  timeoutMs?: number;
  /**
   * Sockets to the bank at most (default 256: issue 35's bench sends 200 creates at once to a bank
   * answering in 50 ms, and each waiting for a socket would add to the bank's latency); further
   * calls queue within their deadline.
   */
  connections?: number;
  /** Items per page of `GET /pix` (default 100; the standard's maximum is 1000). */
  pageSize?: number;
  /** Milliseconds since the epoch (the token cache's and the breaker's clock). */
  now?: () => number;
  /** When calls stop reaching a bank that is down (default: 3 failures in a row, 5 000 ms). */
  breaker?: BreakerOptions;
}

/**
 * The scope each call needs, as the document's `security` states it (a test compares this table
 * with generated/bank/pix-api.yaml). One token is asked with all of them.
 */
export const scopesByOperation = {
  "PUT /cob/{txid}": "cob.write",
  "PATCH /cob/{txid}": "cob.write",
  "GET /cob/{txid}": "cob.read",
  "GET /pix/{e2eid}": "pix.read",
  "GET /pix": "pix.read",
  "PUT /pix/{e2eid}/devolucao/{id}": "pix.write",
  "GET /pix/{e2eid}/devolucao/{id}": "pix.read",
  "PUT /webhook/{chave}": "webhook.write",
} as const;

const scope = [...new Set(Object.values(scopesByOperation))].join(" ");

/**
 * The calls of charges with a due date (issue 38), with a token of their own: an account whose bank
 * grants no `cobv` scope still receives immediate charges (a test compares this table with the
 * document too).
 */
export const dueDateScopesByOperation = {
  "PUT /cobv/{txid}": "cobv.write",
  "PATCH /cobv/{txid}": "cobv.write",
  "GET /cobv/{txid}": "cobv.read",
} as const;

const dueDateScope = [...new Set(Object.values(dueDateScopesByOperation))].join(" ");

/** RFC 6749 §5.1's answer (OAuth2, not the API Pix document): what we read of it. */
const tokenAnswer = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().positive(),
});

/** The client certificate as Node's TLS options take it. */
function tlsIdentity(certificate: ClientCertificateMaterial) {
  return certificate.format === "pem"
    ? { cert: certificate.certPem, key: certificate.keyPem }
    : { pfx: Buffer.from(certificate.pfxBase64, "base64"), passphrase: certificate.passphrase ?? undefined };
}

/**
 * The TLS options of every socket to the bank as one secure context, built once: given the
 * certificate, key and CA instead, each new socket parsed them again (its own context, a key
 * parsed and a CA store built: a millisecond or more of the server's CPU per connection, and a
 * burst of 100 withdrawals opens 100). Material Node refuses stays as it was given, so each
 * connection fails as before (the connection's certificate is checked when it is set).
 */
function secureContextOf(options: SecureContextOptions): { secureContext: SecureContext } | SecureContextOptions {
  try {
    return { secureContext: createSecureContext(options) };
  } catch {
    return options;
  }
}

/** The Basic credentials of RFC 6749 §2.3.1: each part form-encoded, then base64. */
function basicAuthorization(clientId: string, clientSecret: string): string {
  const encoded = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
  return `Basic ${Buffer.from(encoded).toString("base64")}`;
}

/** The token request in the dialect's form, asking `scope` where the dialect sends scopes. */
function tokenRequest(
  dialect: Dialect,
  credentials: BankCredentials,
  scope: string,
): { headers: Record<string, string>; body: string } {
  const basic = basicAuthorization(credentials.clientId, credentials.clientSecret);
  switch (dialect.token) {
    case "basic-json":
      return {
        headers: { authorization: basic, "content-type": "application/json" },
        body: JSON.stringify({ grant_type: "client_credentials" }),
      };
    case "post-form":
      return {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: credentials.clientId,
          client_secret: credentials.clientSecret,
          scope,
        }).toString(),
      };
    case "basic-form":
      return {
        headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "client_credentials", scope }).toString(),
      };
  }
}

/** An OAuth2 error answer (RFC 6749 §5.2) as one sentence: its description, else its code. */
function oauthErrorOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
    if (typeof body.error_description === "string" && body.error_description !== "") {
      return typeof body.error === "string" ? `${body.error_description} (${body.error})` : body.error_description;
    }
    if (typeof body.error === "string") return body.error;
  } catch {
    // Not JSON: said by its status alone.
  }
  return "sem descrição";
}

/** Rejects when `signal` aborts, whatever `promise` does (a shared renewal outlives one caller). */
function within<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error as Error);
      },
    );
  });
}

/**
 * A call's bounded wait: a signal that aborts as `AbortSignal.timeout(ms)`'s does (a
 * `TimeoutError`), and `done` to drop it once the call ended. `AbortSignal.timeout`'s timer cannot
 * be cleared: every call's fired `ms` later, long after its answer, making a `DOMException` and
 * dispatching an abort nobody waits for (a profile of 100 withdrawals had it at 2 % of the
 * server's time).
 */
function deadline(ms: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
    ms,
  );
  timer.unref();
  return { signal: controller.signal, done: () => clearTimeout(timer) };
}

/** Seconds a client is told to wait after the bank was found down (the breaker's default open time). */
const downRetryAfterSeconds = 5;

/** Errors that prove the request never reached the bank (nothing to read back). */
const notSentCodes =
  /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/;

/**
 * Whatever went wrong before an answer, as the port says it: no answer in time is the bank slow
 * (`BankUnavailableError`); a refused or reset connection or a TLS failure is the bank down
 * (`BankDownError`).
 */
function unavailable(error: unknown): BankUnavailableError {
  if (error instanceof BankUnavailableError) return error;
  const cause = error instanceof Error ? ((error.cause as Error | undefined) ?? error) : undefined;
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return new BankUnavailableError("o banco não respondeu a tempo", { cause: error });
  }
  const code = (cause as { code?: unknown } | undefined)?.code;
  const sent = !(typeof code === "string" && notSentCodes.test(code));
  return new BankDownError(
    `falha ao falar com o banco: ${cause?.message ?? String(error)}`,
    sent,
    downRetryAfterSeconds,
    {
      cause: error,
    },
  );
}

/**
 * A removal (cob or cobv) the bank refused: a charge no longer ATIVA cannot be revised, so one the
 * bank shows removed already is what we asked; anything else is the refusal, thrown.
 */
async function unlessRemovedAlready(
  refused: Error,
  response: Response,
  read: () => Promise<BankCharge | null>,
): Promise<void> {
  if (refused instanceof BankRefusedError && response.status !== 404) {
    const now = await read();
    if (now && (now.status === "REMOVIDA_PELO_USUARIO_RECEBEDOR" || now.status === "REMOVIDA_PELO_PSP")) return;
  }
  throw refused;
}

/** A 5xx's `Retry-After` in seconds (1 to 60), or the default. */
function retryAfterOf(response: Response): number {
  const header = Number(response.headers.get("retry-after"));
  return Number.isInteger(header) && header > 0 ? Math.min(header, 60) : downRetryAfterSeconds;
}

/** A non-2xx answer: 5xx, 429 and an unending 401 are unavailability; any other 4xx a refusal. */
function failure(response: Response, problem: unknown): Error {
  const parsed = problem as Partial<Schemas["Problema"]> | undefined;
  const detail = typeof parsed === "object" && parsed !== null ? (parsed.detail ?? parsed.title) : undefined;
  return answerFailure(response, detail || undefined);
}

/**
 * A non-2xx answer with the bank's own words (`detail`, whatever its API calls it): a 5xx is the
 * bank down (the request reached it: outcome unknown), 429 and an unending 401 unavailability;
 * any other 4xx a refusal.
 */
export function answerFailure(response: Response, bankDetail: string | undefined): Error {
  const detail = bankDetail ?? `o banco respondeu ${response.status}`;
  if (response.status >= 500) {
    return new BankDownError(`o banco respondeu ${response.status}: ${detail}`, true, retryAfterOf(response));
  }
  if (response.status === 429 || response.status === 401) {
    return new BankUnavailableError(`o banco respondeu ${response.status}: ${detail}`);
  }
  return new BankRefusedError(response.status, detail);
}

/** An answer that does not say what the standard says it must: the outcome is unknown. */
export function malformed(what: string, cause?: unknown): BankUnavailableError {
  return new BankUnavailableError(`resposta do banco fora do padrão: ${what}`, { cause });
}

function cents(valor: string, where: string): number {
  try {
    return centsFromValor(valor);
  } catch (error) {
    throw malformed(where, error);
  }
}

function chargeFrom(cob: Schemas["CobGerada"]): BankCharge {
  return {
    txid: cob.txid,
    status: cob.status,
    amountCents: cents(cob.valor.original, "valor.original"),
    copyPaste: cob.pixCopiaECola ?? "",
    revision: cob.revisao,
  };
}

function refundFrom(devolucao: Schemas["Devolucao"]): BankRefund {
  const natureza = devolucao.natureza ?? "ORIGINAL";
  return {
    refundId: devolucao.id,
    returnId: devolucao.rtrId,
    amountCents: cents(devolucao.valor, "devolucao.valor"),
    // MED_PIX_AUTOMATICO is a MED on a Pix Automático charge (part 2): a dispute like MED_OPERACIONAL.
    nature: natureza === "MED_PIX_AUTOMATICO" ? "MED_OPERACIONAL" : natureza,
    status: devolucao.status,
    reason: devolucao.motivo ?? null,
  };
}

/**
 * `componentesValor` in cents (a missing part is 0), or null when the bank gave none or only the
 * parts of a Pix Saque or Troco.
 */
function componentsFrom(pix: Schemas["Pix"]): BankAmountComponents | null {
  const parts = pix.componentesValor as
    Partial<Record<"original" | "abatimento" | "desconto" | "multa" | "juros", { valor: string }>> | undefined;
  if (!parts?.original) return null;
  const part = (name: keyof typeof parts) => {
    const valor = parts[name]?.valor;
    return valor === undefined ? 0 : cents(valor, `componentesValor.${name}.valor`);
  };
  return {
    originalCents: part("original"),
    rebateCents: part("abatimento"),
    discountCents: part("desconto"),
    fineCents: part("multa"),
    interestCents: part("juros"),
  };
}

function receivedFrom(pix: Schemas["Pix"]): ReceivedPix {
  return {
    endToEndId: pix.endToEndId,
    key: pix.chave ?? "",
    txid: pix.txid ?? null,
    amountCents: cents(pix.valor, "pix.valor"),
    paidAt: pix.horario,
    // The standard's Pix carries no payer (only `infoPagador`, the payer's message).
    payer: { name: null, documentType: null, document: null },
    refunds: (pix.devolucoes ?? []).map(refundFrom),
    components: componentsFrom(pix),
  };
}

function dueDateChargeFrom(cobv: Schemas["CobVGerada"]): BankCharge {
  return {
    txid: cobv.txid,
    status: cobv.status,
    amountCents: cents(cobv.valor.original ?? "", "valor.original"),
    copyPaste: cobv.pixCopiaECola ?? "",
    revision: cobv.revisao,
  };
}

/** The domain's charge with a due date as the standard's `CobVSolicitada`. */
function cobvFrom(charge: BankDueDateChargeRequest, pixKey: string): Schemas["CobVSolicitada"] {
  const { payer } = charge;
  const who = payer.documentType === "CPF" ? { cpf: payer.document } : { cnpj: payer.document };
  const hundredths = valorFromCents;
  const term = (value: { modality: number; hundredths: number } | undefined) =>
    value === undefined ? undefined : { modalidade: value.modality, valorPerc: hundredths(value.hundredths) };
  const { discount } = charge;
  const desconto =
    discount === undefined
      ? undefined
      : discount.dates !== undefined
        ? {
            modalidade: discount.modality,
            descontoDataFixa: discount.dates.map((d) => ({ data: d.date, valorPerc: hundredths(d.hundredths) })),
          }
        : { modalidade: discount.modality, valorPerc: hundredths(discount.hundredths ?? 0) };
  const valor = {
    original: valorFromCents(charge.amountCents),
    ...(charge.fine ? { multa: term(charge.fine) } : {}),
    ...(charge.interest ? { juros: term(charge.interest) } : {}),
    ...(charge.rebate ? { abatimento: term(charge.rebate) } : {}),
    ...(desconto ? { desconto } : {}),
  };
  const description = charge.description.slice(0, 140);
  return {
    calendario: { dataDeVencimento: charge.dueDate, validadeAposVencimento: charge.daysPayableAfterDue },
    devedor: { ...who, nome: payer.name, email: payer.email },
    valor: valor as Schemas["CobVSolicitada"]["valor"],
    chave: pixKey,
    ...(description ? { solicitacaoPagador: description } : {}),
  };
}

/** The domain's charge as the standard's `CobSolicitada`. */
function cobFrom(charge: BankChargeRequest, pixKey: string): Schemas["CobSolicitada"] {
  const { payer } = charge;
  const devedor =
    payer.documentType === "CPF"
      ? { cpf: payer.document, nome: payer.name }
      : { cnpj: payer.document, nome: payer.name };
  const description = charge.description.slice(0, 140);
  return {
    calendario: { expiracao: charge.expiresInSeconds },
    devedor,
    valor: { original: valorFromCents(charge.amountCents) },
    chave: pixKey,
    ...(description ? { solicitacaoPagador: description } : {}),
  };
}

/**
 * A call to the bank as openapi-fetch builds it (its `Request` option), holding only what `send`
 * reads: the URL, method, headers, signal and the body as the text openapi-fetch serialised. The
 * WHATWG Request around a stream, built and then read back for every call, cost more of the
 * server's CPU than the call's own work (docs/benchmarks.md, withdrawals).
 */
class BankRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly signal: AbortSignal | null;
  readonly text: string | null;
  constructor(url: string, init: RequestInit = {}) {
    this.url = url;
    this.method = init.method ?? "GET";
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.signal = init.signal ?? null;
    if (init.body !== undefined && init.body !== null && typeof init.body !== "string") {
      throw new TypeError("a call to the bank carries a JSON or form text body");
    }
    this.text = init.body ?? null;
  }
}

/** The headers of an answer, as openapi-fetch and the adapter read them (`get`). */
class AnswerHeaders {
  constructor(private readonly raw: Record<string, string | string[] | undefined>) {}
  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
  }
  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }
}

/**
 * The bank's answer, read whole, as openapi-fetch and the adapter read a Response (status, `ok`,
 * headers, the body as text or JSON): no stream around a body already in memory.
 */
class BankAnswer {
  readonly ok: boolean;
  readonly statusText = "";
  readonly redirected = false;
  readonly type = "basic";
  readonly bodyUsed = false;
  readonly body = null;
  constructor(
    readonly status: number,
    readonly headers: AnswerHeaders,
    private readonly bytes: Buffer,
    readonly url: string,
  ) {
    this.ok = status >= 200 && status < 300;
  }
  text(): Promise<string> {
    return Promise.resolve(this.bytes.toString("utf8"));
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.bytes;
    return Promise.resolve(buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer);
  }
}

/** The agent and tokens of one version of the connection. */
function bankTransport(credentials: BankCredentials, options: BankClientOptions = {}): BankTransport {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const dialect = dialects[credentials.dialect];
  const tlsOptions = {
    ...tlsIdentity(credentials.certificate),
    // No CA of its own: the system's trusted CAs verify the bank.
    ...(credentials.bankCaPem === null ? {} : { ca: credentials.bankCaPem }),
  };
  const agent = new Agent({
    connections: options.connections ?? 256,
    connectTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { ...secureContextOf(tlsOptions), rejectUnauthorized: true },
  });

  /**
   * openapi-fetch hands a Request; the Agent's own `request` sends it through the mutual-TLS
   * sockets and the whole answer becomes the Response openapi-fetch reads. Not undici's `fetch`:
   * its WHATWG machinery (streams, a second Request) was a tenth of the server's CPU per call to
   * the bank (docs/benchmarks.md, withdrawals), and every answer here is a small JSON read whole.
   * A redirect is refused, as `fetch` did with `redirect: "error"`: the bank's API never sends one.
   */
  const send = async (request: Request | BankRequest): Promise<Response> => {
    const url = new URL(request.url);
    const body =
      request instanceof BankRequest
        ? request.text
        : request.body === null
          ? null
          : Buffer.from(await request.arrayBuffer());
    const answer = await agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: request.method as Dispatcher.HttpMethod,
      headers: [...request.headers].flat(),
      body,
      signal: request.signal ?? undefined,
    });
    const bytes = Buffer.from(await answer.body.arrayBuffer());
    if (answer.statusCode >= 300 && answer.statusCode < 400 && answer.headers.location !== undefined) {
      throw new Error(`o banco respondeu com um redirecionamento (${answer.statusCode})`);
    }
    return new BankAnswer(
      answer.statusCode,
      new AnswerHeaders(answer.headers),
      bytes,
      request.url,
    ) as unknown as Response;
  };

  const issue = async (asked: string): Promise<IssuedToken> => {
    const { headers, body } = tokenRequest(dialect, credentials, asked);
    const response = await undiciFetch(credentials.tokenUrl, {
      method: "POST",
      headers: { ...headers, accept: "application/json" },
      body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
      dispatcher: agent,
    }).catch((error: unknown) => {
      throw unavailable(error);
    });
    const text = await response.text().catch((error: unknown) => {
      throw unavailable(error);
    });
    if (response.status === 400 || response.status === 403) {
      // The bank says no to what was asked (RFC 6749 §5.2's `invalid_scope`: a scope not granted
      // to this client): an answer, not the bank down, so not the breaker's to count (issue 35).
      // The call that needed the token is refused with the bank's words. Not a 401 (the client or
      // its secret unknown) nor a 404 (no token endpoint there): the connection itself is broken,
      // for every call, as before; and a refused 404 would read as "no such charge at the bank".
      throw new BankRefusedError(response.status, `o banco recusou o acesso (${asked}): ${oauthErrorOf(text)}`);
    }
    if (!response.ok) {
      // No token, no call: the bank is down for us (its token endpoint failing).
      throw new BankDownError(`o banco recusou o token (${response.status})`, false, downRetryAfterSeconds);
    }
    // Not JSON: said without JSON.parse's message, which quotes the answer (a token's first
    // characters) into the logs and the operator's view of the last failure.
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw malformed("resposta do token (não é JSON)");
    }
    let answer;
    try {
      answer = tokenAnswer.parse(parsed);
    } catch (error) {
      throw malformed("resposta do token", error);
    }
    return { accessToken: answer.access_token, expiresInSeconds: answer.expires_in };
  };
  /** One cache per set of scopes (the API Pix's, each other API's). */
  const caches = new Map<string, TokenCache>();
  const tokensFor = (asked: string): TokenCache => {
    let cache = caches.get(asked);
    if (cache === undefined) {
      cache = new TokenCache({ issue: () => issue(asked), ...(options.now ? { now: options.now } : {}) });
      caches.set(asked, cache);
    }
    return cache;
  };

  const circuit = breaker(options.breaker, options.now);

  return {
    baseUrl: credentials.baseUrl,
    fetch: send,
    Request: BankRequest as unknown as typeof Request,
    async authorized(scopes, call) {
      circuit.admit();
      const { signal, done } = deadline(timeoutMs);
      const tokens = tokensFor(scopes);
      let result;
      try {
        let token = await within(tokens.get(), signal);
        result = await call({ headers: { authorization: `Bearer ${token}` }, signal });
        if (result.response.status === 401) {
          tokens.invalidate(token);
          token = await within(tokens.get(), signal);
          result = await call({ headers: { authorization: `Bearer ${token}` }, signal });
        }
      } catch (error) {
        // The token endpoint said no: the bank answered.
        if (error instanceof BankRefusedError) {
          circuit.answered();
          throw error;
        }
        const failure = unavailable(error);
        if (failure instanceof BankDownError) circuit.down();
        else circuit.undecided();
        throw failure;
      } finally {
        done();
      }
      if (result.response.status >= 500) circuit.down();
      else circuit.answered();
      return result;
    },
    downForSeconds: () => circuit.downForSeconds(),
    tokenExpiresAt() {
      const at = caches.get(scope)?.expiresAt() ?? null;
      return at === null ? null : new Date(at);
    },
    close: () => agent.close(),
  };
}

/** Builds the client for one version of the connection. */
export function pixBankFrom(credentials: BankCredentials, options: BankClientOptions = {}): BankClient {
  const pageSize = options.pageSize ?? 100;
  const dialect = dialects[credentials.dialect];
  const transport = bankTransport(credentials, options);
  const api = createClient<paths>({
    baseUrl: credentials.baseUrl,
    fetch: (request) => transport.fetch(request),
    Request: transport.Request,
  });
  const authorized = <R extends { response: Response }>(
    call: (init: { headers: { authorization: string }; signal: AbortSignal }) => Promise<R>,
  ): Promise<R> => transport.authorized(scope, call);

  const dueDateAuthorized = <R extends { response: Response }>(
    call: (init: { headers: { authorization: string }; signal: AbortSignal }) => Promise<R>,
  ): Promise<R> => transport.authorized(dueDateScope, call);

  async function readCobv(txid: string): Promise<BankCharge | null> {
    const { data, error, response } = await dueDateAuthorized((init) =>
      api.GET("/cobv/{txid}", { params: { path: { txid } }, ...init }),
    );
    if (response.status === 404) return null;
    if (!data) throw failure(response, error);
    return dueDateChargeFrom(data);
  }

  const dueDateCharges: DueDateChargesAtBank = {
    async register(charge) {
      const body = cobvFrom(charge, credentials.pixKey);
      const { data, error, response } = await dueDateAuthorized((init) =>
        api.PUT("/cobv/{txid}", { params: { path: { txid: charge.txid } }, body, ...init }),
      );
      if (!data) throw failure(response, error);
      if (!data.pixCopiaECola) throw malformed("cobrança com vencimento sem pixCopiaECola");
      return dueDateChargeFrom(data);
    },
    async remove(txid) {
      const { data, error, response } = await dueDateAuthorized((init) =>
        api.PATCH("/cobv/{txid}", {
          params: { path: { txid } },
          body: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" },
          ...init,
        }),
      );
      if (data) return;
      await unlessRemovedAlready(failure(response, error), response, () => readCobv(txid));
    },
    read: readCobv,
  };

  async function readCob(txid: string): Promise<BankCharge | null> {
    const { data, error, response } = await authorized((init) =>
      api.GET("/cob/{txid}", { params: { path: { txid } }, ...init }),
    );
    if (response.status === 404) return null;
    if (!data) throw failure(response, error);
    return chargeFrom(data);
  }

  return {
    pixKey: credentials.pixKey,

    async registerCharge(charge) {
      const body = cobFrom(charge, credentials.pixKey);
      const { data, error, response } = await authorized((init) =>
        api.PUT("/cob/{txid}", { params: { path: { txid: charge.txid } }, body, ...init }),
      );
      if (!data) throw failure(response, error);
      if (!data.pixCopiaECola) throw malformed("cobrança sem pixCopiaECola");
      return chargeFrom(data);
    },

    async removeCharge(txid) {
      const { data, error, response } = await authorized((init) =>
        api.PATCH("/cob/{txid}", {
          params: { path: { txid } },
          body: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" },
          ...init,
        }),
      );
      if (data) return;
      await unlessRemovedAlready(failure(response, error), response, () => readCob(txid));
    },

    readCharge: readCob,

    dueDateCharges,

    async readReceived(endToEndId) {
      const { data, error, response } = await authorized((init) =>
        api.GET("/pix/{e2eid}", { params: { path: { e2eid: endToEndId } }, ...init }),
      );
      if (response.status === 404) return null;
      if (!data) throw failure(response, error);
      return receivedFrom(data);
    },

    async listReceived(window, page) {
      const { data, error, response } = await authorized((init) =>
        api.GET("/pix", {
          params: {
            query: {
              inicio: window.from,
              fim: window.to,
              "paginacao.paginaAtual": page,
              "paginacao.itensPorPagina": pageSize,
            },
          },
          ...init,
        }),
      );
      if (!data) throw failure(response, error);
      return { items: data.pix.map(receivedFrom), pages: data.parametros.paginacao.quantidadeDePaginas };
    },

    async requestRefund(request) {
      const body: Schemas["DevolucaoSolicitada"] = {
        valor: valorFromCents(request.amountCents),
        natureza: "ORIGINAL",
        ...(request.description ? { descricao: request.description.slice(0, 140) } : {}),
      };
      const { data, error, response } = await authorized((init) =>
        api.PUT("/pix/{e2eid}/devolucao/{id}", {
          params: { path: { e2eid: request.endToEndId, id: request.refundId } },
          body,
          ...init,
        }),
      );
      if (!data) throw failure(response, error);
      return refundFrom(data);
    },

    async readRefund(endToEndId, refundId) {
      const { data, error, response } = await authorized((init) =>
        api.GET("/pix/{e2eid}/devolucao/{id}", { params: { path: { e2eid: endToEndId, id: refundId } }, ...init }),
      );
      if (response.status === 404) return null;
      if (!data) throw failure(response, error);
      return refundFrom(data);
    },

    async registerWebhook(url) {
      const { error, response } = await authorized((init) =>
        api.PUT("/webhook/{chave}", {
          params: { path: { chave: credentials.pixKey } },
          body: { webhookUrl: url },
          parseAs: "text",
          ...init,
          headers: { ...dialect.webhookHeaders, ...init.headers },
        }),
      );
      if (!response.ok) throw failure(response, error);
    },

    close: () => transport.close(),

    tokenExpiresAt: () => transport.tokenExpiresAt(),

    downForSeconds: () => transport.downForSeconds(),

    transport,
  };
}
