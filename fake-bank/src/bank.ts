/**
 * A bank you can run: `startFakeBank()` starts the API Pix over HTTPS with mutual TLS (port
 * `port`, 127.0.0.1) and its control API with the "bank app" page (plain HTTP, 127.0.0.1, port
 * `controlPort`), with a throwaway CA made at start. Tests use the returned functions; the CLI
 * (`npm run bank`, fake-bank/src/main.ts) prints what an operator needs.
 */
import { randomUUID, randomBytes } from "node:crypto";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createHttpsServer, request as httpsRequest, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Response } from "express";
import { appMessageClasses } from "../../server/src/http/kit/app-server.js";
import {
  createCertificateAuthority,
  thumbprintS256,
  toPkcs12,
  type CertificateAuthority,
  type IssuedCertificate,
} from "./certs.js";
import { Ledger, type Customer, type PixRecord, type RefundRecord } from "./state.js";
import {
  BANK_ISPB,
  createApiApp,
  DIALECT_PATHS,
  pixWire,
  refundWire,
  type ApiContext,
  type CallFault,
  type Dialect,
  type RequestLogEntry,
} from "./api.js";
import { CallbackSender, type CallbackConnections, type CallbackFault, type CallbackRecord } from "./callbacks.js";
import { readBrCode } from "./brcode.js";
import { createControlApp } from "./control.js";
import { PayoutBook, efiSentNotice, payoutRoutes, type PayoutPolicy } from "./payouts.js";
import { alnum, endToEndId, type Devolucao, type Pix } from "./wire.js";
import { RecurrenceBook, type FakeRecurrences } from "./rec.js";
import { brasiliaDateOf, componentesValor, DueDateBook, type CobvRecord } from "./cobv.js";

export type { Dialect, CallFault, RequestLogEntry, CallbackFault, CallbackRecord };

const HOST = "127.0.0.1";
/** The payer's PSP in the end-to-end ids of Pix the page pays ("another bank"). */
const PAYER_ISPB = "12345678";
/** Every scope the bank grants a customer unless it is made with fewer (`CustomerOptions.scopes`). */
export const SCOPES = [
  "cob.write",
  "cob.read",
  "pix.write",
  "pix.read",
  "webhook.write",
  "webhook.read",
  // The payouts (fake-bank/src/payouts.ts): Efí's, then Inter's.
  "pix.send",
  "gn.pix.send.read",
  "gn.balance.read",
  "pagamento-pix.write",
  "pagamento-pix.read",
  "extrato.read",
  // Pix Automático (fake-bank/src/rec.ts).
  "payloadlocationrec.write",
  "payloadlocationrec.read",
  "rec.write",
  "rec.read",
  "cobr.write",
  "cobr.read",
  "webhookrec.write",
  "webhookrec.read",
  "webhookcobr.write",
  "webhookcobr.read",
  // Charges with a due date (fake-bank/src/cobv.ts).
  "cobv.write",
  "cobv.read",
];

export interface CustomerOptions {
  clientId?: string;
  clientSecret?: string;
  /** The account's Pix keys (default: one random EVP key). */
  keys?: string[];
  cnpj?: string;
  name?: string;
  city?: string;
  scopes?: string[];
}

/** What the bank hands a customer: credentials and the client certificate it issued. */
export interface CustomerCredentials {
  clientId: string;
  clientSecret: string;
  keys: string[];
  cnpj: string;
  /** PEM certificate and key (mutual TLS). */
  certPem: string;
  keyPem: string;
  /** The same as PKCS#12, protected by `p12Passphrase`. */
  p12: Buffer;
  p12Passphrase: string;
  certificateExpiresAt: string;
}

export type RefundPolicy = { mode: "complete" | "fail" | "manual"; delayMs: number };

export interface FakeBankOptions {
  /** HTTPS port of the API (0: any free port). */
  port?: number;
  /** HTTP port of the control API and the page (0: any free port). */
  controlPort?: number;
  dialect?: Dialect;
  /** Added before every answer of the API. */
  latencyMs?: number;
  tokenTtlSeconds?: number;
  /** The first customer. */
  customer?: CustomerOptions;
  /** CAs trusted for the webhook receivers' server certificates. */
  webhookCa?: string | string[];
  refunds?: RefundPolicy;
  callbackRetries?: number;
  callbackTimeoutMs?: number;
  /** Whether a callback's connection serves the next ones (`kept`, the default) or each opens its own (`new`). */
  callbackConnections?: CallbackConnections;
  /** How payouts end by themselves (Efí and Inter dialects; default paid after 50 ms, no approval). */
  payouts?: Partial<PayoutPolicy>;
}

export interface PayOptions {
  /** Cents; default: the code's amount (the cob's `valor.original`). Any amount is accepted. */
  amountCents?: number;
  payer?: { name: string; cpf?: string; cnpj?: string };
  infoPagador?: string;
  /** Pay even a cob that is no longer ATIVA or has expired (a payment after removal). */
  force?: boolean;
  /**
   * A cobv (charge with a due date): the payer's date, `YYYY-MM-DD` (default today in Brasília).
   * The amount is what this bank computes for that date (unless `amountCents`), the Pix's
   * `horario` noon of that date in Brasília, and its `componentesValor` the breakdown.
   */
  date?: string;
}

export interface FakeBank {
  dialect: Dialect;
  /** The API's base URL (`https://127.0.0.1:PORT/api/v2` for the standard dialect). */
  baseUrl: string;
  tokenUrl: string;
  controlUrl: string;
  pageUrl: string;
  /** The bank's CA: verifies its server certificate and the client certificate of its callbacks. */
  caPem: string;
  /** The first customer's credentials. */
  customer: CustomerCredentials;
  /** The certificate the bank presents on its callbacks. */
  callbackCertificate: () => IssuedCertificate;
  /** The server certificate now presented (see `rotateServerCertificate`). */
  serverCertificate: () => IssuedCertificate;
  addCustomer(options?: CustomerOptions): CustomerCredentials;
  credentials(clientId: string): CustomerCredentials | null;
  /** Pays a BR Code as a payer of another bank; answers the Pix as the receiver's bank reports it. */
  pay(code: string, options?: PayOptions): Pix;
  /** Charges with a due date (fake-bank/src/cobv.ts): the cobvs, and what a payer owes on a date. */
  dueDates: DueDateBook;
  /**
   * Pays many codes at once, each as `pay` would (its own callback): what a test or the bench needs
   * to set up thousands of payments fast. A code the bank refuses is listed with its reason; the
   * others are paid.
   */
  payMany(
    codes: readonly string[],
    options?: Omit<PayOptions, "amountCents">,
  ): { paid: Pix[]; refused: { index: number; error: string }[] };
  /** A Pix without a charge to `key` (no txid unless given). */
  sendPix(input: { key: string; amountCents: number; txid?: string } & Omit<PayOptions, "amountCents" | "force">): Pix;
  completeRefund(endToEndId: string, refundId: string): void;
  failRefund(endToEndId: string, refundId: string, reason?: string): void;
  setRefundPolicy(policy: RefundPolicy): void;
  /** A MED devolução on a received Pix (the payer's bank asked for the money back). */
  raiseMed(input: {
    endToEndId: string;
    natureza: "MED_OPERACIONAL" | "MED_FRAUDE";
    amountCents?: number;
    status?: "EM_PROCESSAMENTO" | "DEVOLVIDO";
    motivo?: string;
  }): { id: string; rtrId: string };
  faultCalls(fault: CallFault): void;
  faultCallbacks(fault: CallbackFault): void;
  /** From now on, callbacks keep their connections (`kept`) or open one each, a full handshake each (`new`). */
  setCallbackConnections(connections: CallbackConnections): void;
  clearFaults(): void;
  /** Sends what a `reorder` fault holds now (last first). */
  releaseReordered(): void;
  expireTokens(): void;
  /** A new server key and certificate (same CA unless `newCa`); new connections see it. */
  rotateServerCertificate(options?: { newCa?: boolean }): IssuedCertificate;
  trustWebhookCa(pem: string): void;
  setLatency(ms: number): void;
  received(clientId?: string): Pix[];
  refunds(): (Devolucao & { endToEndId: string })[];
  callbacks(): CallbackRecord[];
  requests(): RequestLogEntry[];
  /** Resolves when no callback is being delivered. */
  settled(): Promise<void>;
  /**
   * The payouts of the Efí and Inter dialects (null for the standard, which has no payout API):
   * their policy, each transfer's outcome, the customers' balances, lost answers.
   */
  payouts: PayoutBook | null;
  /**
   * Pix Automático (fake-bank/src/rec.ts): the payer's answers (approve, reject, cancel), each
   * cycle charge debited on its date or refused for want of balance, the customers' accounts.
   */
  recurrences: FakeRecurrences;
  close(): Promise<void>;
}

function listen(server: HttpServer | HttpsServer, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, HOST, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * The CA of the banks started in this process, made at the first start: a bank's CA outlives its
 * API servers, and the test suites start dozens of banks in one process, where a new CA's RSA key
 * was about 0.15 s of CPU each (12 s of the component tests' CPU). Each bank still issues its own
 * server, callback and customer certificates, and binds each customer's to its client id; a rotation
 * to a new CA (`rotateServerCertificate({ newCa })`) gives that bank a CA of its own. A stranger's
 * certificate in a test comes from a CA the test makes (`createCertificateAuthority`).
 */
let processCa: CertificateAuthority | undefined;

export async function startFakeBank(options: FakeBankOptions = {}): Promise<FakeBank> {
  const dialect = options.dialect ?? "standard";
  const { basePath, tokenPath } = DIALECT_PATHS[dialect];
  let ca: CertificateAuthority = (processCa ??= createCertificateAuthority("Fake Bank CA"));
  let serverCertificate = ca.issueServer(["localhost", HOST]);
  /** Every CA the bank has had: customers' certificates issued before a CA rotation stay valid. */
  const issuers = [ca.certPem];
  const callbackCertificate = ca.issueClient("fake-bank-callbacks");
  const ledger = new Ledger();
  const trust: string[] = [options.webhookCa ?? []].flat();
  let refundPolicy: RefundPolicy = options.refunds ?? { mode: "complete", delayMs: 50 };
  const timers = new Set<NodeJS.Timeout>();
  let httpsPort = 0;

  const callbacks = new CallbackSender({
    dialect,
    certificate: () => callbackCertificate,
    trust: () => trust,
    timeoutMs: options.callbackTimeoutMs ?? 5000,
    retries: options.callbackRetries ?? 2,
    connections: options.callbackConnections ?? "kept",
  });

  const wire = pixWire;
  // Efí tells each transfer's outcome on the webhook of the key that paid it (issue 36 §1); Inter's
  // payout webhooks are not played (the service reads its transfers back).
  const payouts =
    dialect === "standard"
      ? null
      : new PayoutBook(dialect, options.payouts, (record) => {
          if (dialect !== "efi" || record.payerKey === null) return;
          const webhook = ledger.webhooks.get(ledger.cobKey(record.clientId, record.payerKey));
          if (webhook !== undefined) callbacks.notify(webhook.webhookUrl, [efiSentNotice(record)]);
        });

  /** Calls the receiver's webhook, if any, for a Pix with a txid (the standard notifies only those). */
  const notify = (pix: PixRecord) => {
    if (pix.txid === undefined) return;
    const webhook = ledger.webhooks.get(ledger.cobKey(pix.clientId, pix.chave));
    if (webhook !== undefined) callbacks.notify(webhook.webhookUrl, [wire(pix)]);
  };

  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  const settle = (pix: PixRecord, refund: RefundRecord, status: "DEVOLVIDO" | "NAO_REALIZADO", motivo?: string) => {
    if (refund.status !== "EM_PROCESSAMENTO") return;
    refund.status = status;
    if (status === "DEVOLVIDO") refund.liquidacao = new Date().toISOString();
    if (motivo !== undefined) refund.motivo = motivo.slice(0, 140);
    notify(pix);
  };

  const findRefund = (e2eid: string, id: string) => {
    const pix = ledger.pix.get(e2eid);
    const refund = pix?.devolucoes.find((r) => r.id === id);
    if (pix === undefined || refund === undefined)
      throw new FakeBankError(`Devolução ${id} do Pix ${e2eid} não existe.`);
    return { pix, refund };
  };

  const recurrences = new RecurrenceBook(ledger, callbacks, () => `localhost:${httpsPort}`);
  const dueDates = new DueDateBook(ledger, () => `localhost:${httpsPort}`);
  const context: ApiContext = {
    apiRoutes: (router) => {
      recurrences.routes(router);
      dueDates.routes(router);
    },
    ledger,
    dialect,
    tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
    latencyMs: options.latencyMs ?? 0,
    callFaults: [],
    requestLog: [],
    locationHost: () => `localhost:${httpsPort}`,
    held: new Set<Response>(),
    ...(payouts === null ? {} : { routes: payoutRoutes(ledger, payouts) }),
    refundRequested: (pix, refund) => {
      const policy = refundPolicy;
      if (policy.mode === "manual") return;
      later(policy.delayMs, () =>
        settle(
          pix,
          refund,
          policy.mode === "complete" ? "DEVOLVIDO" : "NAO_REALIZADO",
          policy.mode === "fail" ? "Conta do pagador encerrada" : undefined,
        ),
      );
    },
  };

  const credentialsOf = (customer: Customer): CustomerCredentials => ({
    clientId: customer.clientId,
    clientSecret: customer.clientSecret,
    keys: [...customer.keys],
    cnpj: customer.cnpj,
    certPem: customer.certificate.certPem,
    keyPem: customer.certificate.keyPem,
    p12: customer.p12,
    p12Passphrase: customer.p12Passphrase,
    certificateExpiresAt: customer.certificate.expiresAt,
  });

  const addCustomer = (input: CustomerOptions = {}): CustomerCredentials => {
    const clientId = input.clientId ?? `Client_Id_${alnum(16)}`;
    if (ledger.customers.has(clientId)) throw new FakeBankError(`O client id ${clientId} já existe.`);
    const keys = input.keys ?? [randomUUID()];
    for (const key of keys)
      if (ledger.ownerOf(key) !== undefined) throw new FakeBankError(`A chave ${key} já pertence a outro cliente.`);
    const name = input.name ?? "Loja Exemplo Ltda";
    const certificate = ca.issueClient(clientId, { organization: name });
    const p12Passphrase = randomBytes(9).toString("base64url");
    const customer: Customer = {
      clientId,
      clientSecret: input.clientSecret ?? `Client_Secret_${randomBytes(24).toString("base64url")}`,
      cnpj: input.cnpj ?? "12345678000195",
      name,
      city: input.city ?? "Sao Paulo",
      keys,
      certificate,
      thumbprint: thumbprintS256(certificate.certPem),
      p12: toPkcs12(certificate, p12Passphrase, [ca.certPem]),
      p12Passphrase,
      scopes: input.scopes ?? SCOPES,
    };
    ledger.customers.set(clientId, customer);
    return credentialsOf(customer);
  };

  const record = (input: {
    clientId: string;
    chave: string;
    txid?: string;
    amountCents: number;
    payer?: PayOptions["payer"];
    infoPagador?: string;
    horario?: string;
    componentesValor?: PixRecord["componentesValor"];
  }): PixRecord => {
    if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0 || input.amountCents > 999_999_999_999)
      throw new FakeBankError("O valor deve ser um número inteiro positivo de centavos.");
    const pix: PixRecord = {
      endToEndId: endToEndId(PAYER_ISPB),
      clientId: input.clientId,
      chave: input.chave,
      ...(input.txid === undefined ? {} : { txid: input.txid }),
      amount: input.amountCents,
      horario: input.horario ?? new Date().toISOString(),
      ...(input.infoPagador === undefined ? {} : { infoPagador: input.infoPagador.slice(0, 140) }),
      ...(input.componentesValor === undefined ? {} : { componentesValor: input.componentesValor }),
      payer: input.payer ?? { name: "Pagador de Teste", cpf: "12345678909" },
      devolucoes: [],
    };
    ledger.pix.set(pix.endToEndId, pix);
    return pix;
  };

  /** A cobv paid on the payer's date, for what this bank computes it owes then (cobv-amount.ts). */
  const payDueDate = (cobv: CobvRecord, payOptions: PayOptions): PixRecord => {
    const date = payOptions.date ?? brasiliaDateOf(new Date());
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new FakeBankError("A data de pagamento deve ser AAAA-MM-DD.");
    const owed = dueDates.owed(cobv, date);
    if (!payOptions.force && cobv.status !== "ATIVA") throw new FakeBankError(`A cobrança está ${cobv.status}.`);
    if (!payOptions.force && !owed.payable) {
      throw new FakeBankError(`A cobrança não pode ser paga em ${date} (último dia: ${owed.lastDay}).`);
    }
    const pix = record({
      clientId: cobv.clientId,
      chave: cobv.chave,
      txid: cobv.txid,
      amountCents: payOptions.amountCents ?? owed.amount.total,
      payer: payOptions.payer,
      infoPagador: payOptions.infoPagador,
      // Noon in Brasília of the payer's date (today: now).
      horario: payOptions.date === undefined ? new Date().toISOString() : `${date}T15:00:00.000Z`,
      componentesValor: componentesValor(owed.amount),
    });
    cobv.pix.push(pix.endToEndId);
    if (cobv.status === "ATIVA") cobv.status = "CONCLUIDA";
    notify(pix);
    return pix;
  };

  const pay = (code: string, payOptions: PayOptions = {}): Pix => {
    let read;
    try {
      read = readBrCode(code.trim());
    } catch (error) {
      throw new FakeBankError(`Código Pix inválido: ${(error as Error).message}`);
    }
    if (!read.crcValid) throw new FakeBankError("Código Pix inválido: o CRC não confere.");
    const cobv = read.location === null ? undefined : dueDates.atLocation(read.location);
    if (cobv !== undefined) return wire(payDueDate(cobv, payOptions));
    if (payOptions.date !== undefined)
      throw new FakeBankError("Uma data de pagamento só vale para uma cobrança com vencimento.");
    if (read.location !== null) {
      const prefix = `${context.locationHost()}/qr/v2/`;
      const cob = read.location.startsWith(prefix)
        ? ledger.locations.get(read.location.slice(prefix.length))
        : undefined;
      if (cob === undefined) throw new FakeBankError(`Nenhuma cobrança neste banco no location ${read.location}.`);
      const expired = Date.parse(cob.criacao) + cob.expiracao * 1000 < Date.now();
      if (!payOptions.force && cob.status !== "ATIVA") throw new FakeBankError(`A cobrança está ${cob.status}.`);
      if (!payOptions.force && expired) throw new FakeBankError("A cobrança expirou.");
      const pix = record({
        clientId: cob.clientId,
        chave: cob.chave,
        txid: cob.txid,
        amountCents: payOptions.amountCents ?? cob.original,
        payer: payOptions.payer,
        infoPagador: payOptions.infoPagador,
      });
      cob.pix.push(pix.endToEndId);
      if (cob.status === "ATIVA") cob.status = "CONCLUIDA";
      notify(pix);
      // A composite QR (journey 3): paying it also approves the recurrence it carries.
      recurrences.cobPaid(cob, code.trim());
      return wire(pix);
    }
    const owner = read.pixKey === null ? undefined : ledger.ownerOf(read.pixKey);
    if (owner === undefined || read.pixKey === null)
      throw new FakeBankError(`A chave ${read.pixKey} não é deste banco.`);
    const amountCents = payOptions.amountCents ?? read.amountCents;
    if (amountCents === null) throw new FakeBankError("Informe o valor: o código não traz um.");
    const pix = record({
      clientId: owner.clientId,
      chave: read.pixKey,
      ...(read.txid === null || read.txid === "***" ? {} : { txid: read.txid }),
      amountCents,
      payer: payOptions.payer,
      infoPagador: payOptions.infoPagador,
    });
    notify(pix);
    return wire(pix);
  };

  const bank: FakeBank = {
    dialect,
    baseUrl: "",
    tokenUrl: "",
    controlUrl: "",
    pageUrl: "",
    caPem: ca.certPem,
    customer: undefined as unknown as CustomerCredentials,
    callbackCertificate: () => callbackCertificate,
    serverCertificate: () => serverCertificate,
    addCustomer,
    credentials: (clientId) => {
      const customer = ledger.customers.get(clientId);
      return customer === undefined ? null : credentialsOf(customer);
    },
    pay,
    dueDates,
    payMany: (codes, payOptions = {}) => {
      const paid: Pix[] = [];
      const refused: { index: number; error: string }[] = [];
      codes.forEach((code, index) => {
        try {
          paid.push(pay(code, payOptions));
        } catch (error) {
          if (!(error instanceof FakeBankError)) throw error;
          refused.push({ index, error: error.message });
        }
      });
      return { paid, refused };
    },
    sendPix: (input) => {
      const owner = ledger.ownerOf(input.key);
      if (owner === undefined) throw new FakeBankError(`A chave ${input.key} não é deste banco.`);
      const pix = record({ clientId: owner.clientId, chave: input.key, ...input });
      notify(pix);
      return wire(pix);
    },
    completeRefund: (e2eid, id) => {
      const { pix, refund } = findRefund(e2eid, id);
      if (refund.status !== "EM_PROCESSAMENTO") throw new FakeBankError(`A devolução já está ${refund.status}.`);
      settle(pix, refund, "DEVOLVIDO");
    },
    failRefund: (e2eid, id, reason) => {
      const { pix, refund } = findRefund(e2eid, id);
      if (refund.status !== "EM_PROCESSAMENTO") throw new FakeBankError(`A devolução já está ${refund.status}.`);
      settle(pix, refund, "NAO_REALIZADO", reason ?? "Devolução recusada pelo banco do pagador");
    },
    setRefundPolicy: (policy) => {
      refundPolicy = policy;
    },
    raiseMed: (input) => {
      const pix = ledger.pix.get(input.endToEndId);
      if (pix === undefined) throw new FakeBankError(`O Pix ${input.endToEndId} não existe.`);
      const refunded = pix.devolucoes.filter((r) => r.status !== "NAO_REALIZADO").reduce((sum, r) => sum + r.amount, 0);
      const amount = input.amountCents ?? pix.amount - refunded;
      if (amount <= 0 || refunded + amount > pix.amount) throw new FakeBankError("O valor excede o que resta do Pix.");
      const refund: RefundRecord = {
        id: `MED${alnum(20)}`,
        rtrId: endToEndId(BANK_ISPB, new Date(), "D"),
        amount,
        natureza: input.natureza,
        descricao:
          input.natureza === "MED_FRAUDE"
            ? "Devolução MED: fundada suspeita de fraude"
            : "Devolução MED: falha operacional",
        solicitacao: new Date().toISOString(),
        status: "EM_PROCESSAMENTO",
        ...(input.motivo === undefined ? {} : { motivo: input.motivo.slice(0, 140) }),
      };
      pix.devolucoes.push(refund);
      if ((input.status ?? "DEVOLVIDO") === "DEVOLVIDO") settle(pix, refund, "DEVOLVIDO");
      else notify(pix);
      return { id: refund.id, rtrId: refund.rtrId };
    },
    faultCalls: (fault) => {
      if (fault.route !== undefined) new RegExp(fault.route); // refuse a bad pattern now
      context.callFaults.push({ ...fault });
    },
    faultCallbacks: (fault) => {
      callbacks.faults.push({ ...fault });
    },
    setCallbackConnections: (connections) => callbacks.setConnections(connections),
    clearFaults: () => {
      context.callFaults.length = 0;
      callbacks.faults.length = 0;
      callbacks.releaseReordered();
      for (const res of context.held) res.destroy();
    },
    releaseReordered: () => callbacks.releaseReordered(),
    expireTokens: () => ledger.expireAllTokens(),
    rotateServerCertificate: (rotation = {}) => {
      if (rotation.newCa) {
        ca = createCertificateAuthority("Fake Bank CA");
        bank.caPem = ca.certPem;
        issuers.push(ca.certPem);
      }
      serverCertificate = ca.issueServer(["localhost", HOST]);
      api.setSecureContext(secureOptions());
      return serverCertificate;
    },
    trustWebhookCa: (pem) => {
      trust.push(pem);
    },
    setLatency: (ms) => {
      context.latencyMs = ms;
    },
    received: (clientId) =>
      [...ledger.pix.values()].filter((pix) => clientId === undefined || pix.clientId === clientId).map(wire),
    refunds: () =>
      [...ledger.pix.values()].flatMap((pix) =>
        pix.devolucoes.map((refund) => ({ endToEndId: pix.endToEndId, ...refundWire(refund) })),
      ),
    callbacks: () => [...callbacks.log],
    requests: () => [...context.requestLog],
    settled: () => callbacks.settled(),
    payouts,
    recurrences,
    close: async () => {
      callbacks.close();
      payouts?.close();
      for (const timer of timers) clearTimeout(timer);
      for (const res of context.held) res.destroy();
      api.closeAllConnections();
      control.closeAllConnections();
      await Promise.all([
        new Promise((resolve) => api.close(resolve)),
        new Promise((resolve) => control.close(resolve)),
      ]);
    },
  };

  // Every client certificate the bank issued passes the handshake; the API then binds each
  // customer to its own (a certificate from anywhere else never gets that far).
  const secureOptions = () => ({
    key: serverCertificate.keyPem,
    cert: serverCertificate.certPem,
    ca: issuers,
  });
  // Requests and responses made as the apps' own, as the server's are (record 0065: Express's
  // per-request `setPrototypeOf` otherwise gives each a hidden class of its own in V8, which made
  // every property read of them a cache miss). The bank runs in the tests' and the bench's load
  // processes.
  const apiApp = createApiApp(context);
  const api = createHttpsServer(
    {
      ...secureOptions(),
      requestCert: true,
      rejectUnauthorized: true,
      minVersion: "TLSv1.2",
      ...appMessageClasses(apiApp),
    },
    apiApp,
  );
  const controlApp = createControlApp(bank);
  const control = createHttpServer(appMessageClasses(controlApp), controlApp);
  httpsPort = await listen(api, options.port ?? 0);
  const controlPort = await listen(control, options.controlPort ?? 0);
  bank.baseUrl = `https://${HOST}:${httpsPort}${basePath}`;
  bank.tokenUrl = `https://${HOST}:${httpsPort}${tokenPath}`;
  bank.controlUrl = `http://${HOST}:${controlPort}/control`;
  bank.pageUrl = `http://${HOST}:${controlPort}/`;
  bank.customer = addCustomer(options.customer);
  await warmUp(bank, ledger, context);
  return bank;
}

/**
 * Touches every operation once, so the validator compiles its schemas at start and not on a
 * client's first call (a few hundred milliseconds each on a busy machine, enough to trip a
 * client's bounded wait). Each request is refused or finds nothing: no state is made, and the
 * warm-up leaves neither its token nor its lines in the request log.
 */
async function warmUp(bank: FakeBank, ledger: Ledger, context: ApiContext): Promise<void> {
  const customer = bank.customer;
  const token = ledger.issueToken(customer.clientId, thumbprintS256(customer.certPem), SCOPES, 60);
  const txid = "WarmUp000000000000000000000000";
  const e2eid = "E00000000202001010000WarmUp00000";
  const window = `inicio=2020-01-01T00:00:00Z&fim=2020-01-02T00:00:00Z`;
  const notOurs = "warm-up-key-of-nobody";
  const calls: [string, string, unknown?][] = [
    ["PUT", `/cob/${txid}`, { calendario: { expiracao: 60 }, valor: { original: "1.00" }, chave: notOurs }],
    ["PATCH", `/cob/${txid}`, { solicitacaoPagador: "aquecimento" }],
    ["GET", `/cob/${txid}`],
    ["GET", `/cob?${window}`],
    ["GET", `/pix/${e2eid}`],
    ["GET", `/pix?${window}`],
    ["PUT", `/pix/${e2eid}/devolucao/WarmUp`, { valor: "1.00" }],
    ["GET", `/pix/${e2eid}/devolucao/WarmUp`],
    ["PUT", `/webhook/${notOurs}`, { webhookUrl: "https://127.0.0.1/" }],
    ["GET", `/webhook/${notOurs}`],
    ["DELETE", `/webhook/${notOurs}`],
    ["GET", `/locrec/0`],
    ["POST", `/rec`, { calendario: {} }],
    ["GET", `/rec/RN9999999920200101WarmUp00000`],
    ["PATCH", `/rec/RN9999999920200101WarmUp00000`, { status: "CANCELADA" }],
    ["PUT", `/cobr/${txid}`, { idRec: "RN9999999920200101WarmUp00000" }],
    ["GET", `/cobr/${txid}`],
    ["PATCH", `/cobr/${txid}`, { status: "CANCELADA" }],
    ["POST", `/cobr/${txid}/retentativa/2020-01-01`],
    ["PUT", `/webhookrec`, { webhookUrl: "notaurl" }],
    ["PUT", `/webhookcobr`, { webhookUrl: "notaurl" }],
  ];
  try {
    for (const [method, path, body] of calls) await internalCall(bank, method, path, token.accessToken, body);
  } finally {
    ledger.tokens.delete(token.accessToken);
    context.requestLog.length = 0;
  }
}

function internalCall(bank: FakeBank, method: string, path: string, token: string, body?: unknown): Promise<void> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const req = httpsRequest(`${bank.baseUrl}${path}`, {
      method,
      ca: bank.caPem,
      cert: bank.customer.certPem,
      key: bank.customer.keyPem,
      agent: false,
      timeout: 30_000,
      headers: {
        authorization: `Bearer ${token}`,
        ...(payload === undefined ? {} : { "content-type": "application/json" }),
      },
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve());
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve());
      res.on("error", () => resolve());
    });
    req.end(payload);
  });
}

/** A control action the bank refuses (the control API answers it as 400 with its message). */
class FakeBankError extends Error {
  override name = "FakeBankError";
}
