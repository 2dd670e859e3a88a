/**
 * The fake bank's books, in memory: its customers (each with a client id, a secret, the client
 * certificate the bank issued and the Pix keys of its account), their tokens, charges (cob),
 * received Pix, devoluções and webhooks. Every record belongs to one customer: the API shows a
 * customer only its own.
 */
import { randomBytes } from "node:crypto";
import type { IssuedCertificate } from "./certs.js";
import type { CobrancaStatus, Devedor, DevolucaoNatureza, Pix } from "./wire.js";

export interface Customer {
  clientId: string;
  clientSecret: string;
  /** The account holder's CNPJ (webhooks report it). */
  cnpj: string;
  name: string;
  city: string;
  /** The Pix keys of its account. */
  keys: string[];
  /** The client certificate the bank issued it (mutual TLS), and its PKCS#12 form. */
  certificate: IssuedCertificate;
  /** `x5t#S256` of its certificate: tokens are bound to it. */
  thumbprint: string;
  p12: Buffer;
  p12Passphrase: string;
  /** Scopes it may ask for. */
  scopes: string[];
}

export interface Token {
  accessToken: string;
  clientId: string;
  /** The certificate the token was issued to (RFC 8705): any other certificate is refused. */
  thumbprint: string;
  scopes: string[];
  expiresAt: number;
}

export interface CobRecord {
  clientId: string;
  txid: string;
  revisao: number;
  criacao: string;
  expiracao: number;
  status: CobrancaStatus;
  /** Cents. */
  original: number;
  modalidadeAlteracao: number;
  chave: string;
  solicitacaoPagador?: string;
  infoAdicionais?: { nome: string; valor: string }[];
  devedor?: Devedor;
  locId: number;
  location: string;
  locCriacao: string;
  pixCopiaECola: string;
  /** e2eids of the Pix that paid it. */
  pix: string[];
  /** Each revision as it was answered, for `GET /cob/{txid}?revisao=n`. */
  revisions: Omit<CobRecord, "revisions" | "pix">[];
}

export type RefundStatus = "EM_PROCESSAMENTO" | "DEVOLVIDO" | "NAO_REALIZADO";

export interface RefundRecord {
  /** The devolução's id in the path (the customer's for ORIGINAL; the bank's for MED). */
  id: string;
  rtrId: string;
  /** Cents. */
  amount: number;
  natureza: DevolucaoNatureza;
  descricao?: string;
  solicitacao: string;
  liquidacao?: string;
  status: RefundStatus;
  motivo?: string;
}

export interface PixRecord {
  endToEndId: string;
  /** The receiving customer (owner of `chave`). */
  clientId: string;
  chave: string;
  txid?: string;
  /** Cents. */
  amount: number;
  horario: string;
  infoPagador?: string;
  payer: { name: string; cpf?: string; cnpj?: string };
  devolucoes: RefundRecord[];
  /** A cobv's payment: `componentesValor` as the bank computed it for the payer's date (cobv.ts). */
  componentesValor?: NonNullable<Pix["componentesValor"]>;
}

export interface WebhookRecord {
  clientId: string;
  chave: string;
  webhookUrl: string;
  criacao: string;
}

/** The books. Maps keyed so that one customer's key never reaches another's record. */
export class Ledger {
  readonly customers = new Map<string, Customer>();
  readonly tokens = new Map<string, Token>();
  /** By `${clientId}\u0000${txid}`. */
  readonly cobs = new Map<string, CobRecord>();
  /** By location id: what a payer's bank reads. */
  readonly locations = new Map<string, CobRecord>();
  readonly pix = new Map<string, PixRecord>();
  /** By `${clientId}\u0000${chave}`. */
  readonly webhooks = new Map<string, WebhookRecord>();
  private nextLocId = 1;

  cobKey(clientId: string, txid: string): string {
    return `${clientId}\u0000${txid}`;
  }

  takeLocId(): number {
    return this.nextLocId++;
  }

  /** The customer that owns Pix key `chave`, if any. */
  ownerOf(chave: string): Customer | undefined {
    for (const customer of this.customers.values()) if (customer.keys.includes(chave)) return customer;
    return undefined;
  }

  /** A new bearer token for `clientId`, bound to `thumbprint`. */
  issueToken(clientId: string, thumbprint: string, scopes: string[], ttlSeconds: number): Token {
    const token: Token = {
      accessToken: randomBytes(24).toString("base64url"),
      clientId,
      thumbprint,
      scopes,
      expiresAt: Date.now() + ttlSeconds * 1000,
    };
    this.tokens.set(token.accessToken, token);
    return token;
  }

  expireAllTokens(): void {
    for (const token of this.tokens.values()) token.expiresAt = 0;
  }
}
