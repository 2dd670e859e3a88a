import type { DocumentType } from "../core/model.js";

/**
 * The platform's account at a bank, in the domain's terms (issue 35; docs/decisions, "Production
 * charges through the bank"). The adapter (server/src/bank/) speaks the Central Bank's API Pix
 * (spec/bank/pix-api, types generated from it) in the connection's dialect; the domain never sees
 * the wire format. Every method may throw `BankUnavailableError` (no answer within the bounded
 * wait, a 5xx, a refused connection, a token the bank would not give): the outcome is then
 * unknown, and the caller reads back before it tries again. Amounts are integer cents here; the
 * adapter writes the standard's "123.45" strings.
 */
export interface PixBank {
  /**
   * The connection's receiving Pix key (the `chave` of every cob): a received Pix to any other key
   * is not the platform's, whatever a callback says (`confirmReceived`).
   */
  readonly pixKey: string;
  /**
   * `PUT /cob/{txid}`: registers (or, with the same txid and body, re-registers: idempotent) an
   * immediate charge; answers its dynamic BR Code.
   */
  registerCharge(charge: BankChargeRequest): Promise<BankCharge>;
  /** `PATCH /cob/{txid}` to `REMOVIDA_PELO_USUARIO_RECEBEDOR`; a charge already removed is no error. */
  removeCharge(txid: string): Promise<void>;
  /** `GET /cob/{txid}`; null when the bank does not know it (404). */
  readCharge(txid: string): Promise<BankCharge | null>;
  /** `GET /pix/{e2eid}`; null when the bank does not know it (404). */
  readReceived(endToEndId: string): Promise<ReceivedPix | null>;
  /** `GET /pix?inicio&fim` (one page; `page` from 0). */
  listReceived(window: { from: string; to: string }, page: number): Promise<{ items: ReceivedPix[]; pages: number }>;
  /** `PUT /pix/{e2eid}/devolucao/{id}`: idempotent on `refundId` (≤ 35 characters). */
  requestRefund(request: {
    endToEndId: string;
    refundId: string;
    amountCents: number;
    description?: string;
  }): Promise<BankRefund>;
  /** `GET /pix/{e2eid}/devolucao/{id}`; null when the bank does not know it. */
  readRefund(endToEndId: string, refundId: string): Promise<BankRefund | null>;
  /** `PUT /webhook/{chave}`: where the bank calls with received Pix. */
  registerWebhook(url: string): Promise<void>;
  /**
   * While the bank is known to be down (the adapter's circuit breaker is open after consecutive
   * `BankDownError`s), the seconds until a call is let through again; null when calls go through.
   * A caller that must reach the bank at once refuses before it writes anything.
   */
  downForSeconds?(): number | null;
  /**
   * Charges with a due date (`cobv`, issue 38), with a token of their own scopes (`cobv.write`,
   * `cobv.read`). Absent: this adapter does not register them, and a production charge with a
   * due date is refused.
   */
  readonly dueDateCharges?: DueDateChargesAtBank;
}

/** `PUT`, `PATCH` and `GET /cobv/{txid}`: charges whose amount the bank computes for the payer's date. */
export interface DueDateChargesAtBank {
  /** `PUT /cobv/{txid}`: registers (idempotent with the same txid and body); answers its dynamic BR Code. */
  register(charge: BankDueDateChargeRequest): Promise<BankCharge>;
  /** `PATCH /cobv/{txid}` to `REMOVIDA_PELO_USUARIO_RECEBEDOR`; one already removed is no error. */
  remove(txid: string): Promise<void>;
  /** `GET /cobv/{txid}`; null when the bank does not know it (404). */
  read(txid: string): Promise<BankCharge | null>;
}

/**
 * A value of a due-date charge's terms in the standard's `modalidade` and `valorPerc`, the latter
 * in hundredths: cents for an amount, basis points for a percentage (both are the standard's
 * two-decimal string times 100).
 */
export interface BankTermValue {
  modality: number;
  hundredths: number;
}

export interface BankDueDateChargeRequest {
  /** 26–35 letters and digits, derived from our charge id (the same on every retry). */
  txid: string;
  /** `valor.original`. */
  amountCents: number;
  /** `calendario.dataDeVencimento` (YYYY-MM-DD, as agreed: the bank moves it to a business day). */
  dueDate: string;
  /** `calendario.validadeAposVencimento`. */
  daysPayableAfterDue: number;
  payer: {
    name: string;
    documentType: DocumentType;
    document: string;
    email: string;
  };
  /** solicitacaoPagador, ≤ 140 characters. */
  description: string;
  fine?: BankTermValue | undefined;
  interest?: BankTermValue | undefined;
  rebate?: BankTermValue | undefined;
  /** Modes 1–2: `dates` (the standard's `descontoDataFixa`); modes 3–6: `hundredths` per day. */
  discount?: { modality: number; hundredths?: number; dates?: { date: string; hundredths: number }[] } | undefined;
}

/** The received Pix's `componentesValor` (a due-date charge's breakdown), in cents. */
export interface BankAmountComponents {
  originalCents: number;
  rebateCents: number;
  discountCents: number;
  fineCents: number;
  interestCents: number;
}

export interface BankChargeRequest {
  /** 26–35 letters and digits, derived from our charge id (the same on every retry). */
  txid: string;
  amountCents: number;
  /** Seconds from the bank's `criacao` (calendario.expiracao). */
  expiresInSeconds: number;
  payer: { name: string; documentType: DocumentType; document: string };
  /** solicitacaoPagador, ≤ 140 characters. */
  description: string;
}

export type BankChargeStatus = "ATIVA" | "CONCLUIDA" | "REMOVIDA_PELO_USUARIO_RECEBEDOR" | "REMOVIDA_PELO_PSP";

export interface BankCharge {
  txid: string;
  status: BankChargeStatus;
  amountCents: number;
  /** The dynamic BR Code (pixCopiaECola), with the bank's payload location. */
  copyPaste: string;
  /** The revision the bank gives the cob. */
  revision: number;
}

/** A Pix the platform's account received, as the bank reports it. */
export interface ReceivedPix {
  endToEndId: string;
  /** The receiving key (the platform's); a Pix to another key is not ours. */
  key: string;
  /** Absent on a Pix sent without a charge (a static key). */
  txid: string | null;
  amountCents: number;
  /** horario. */
  paidAt: string;
  payer: { name: string | null; documentType: DocumentType | null; document: string | null };
  refunds: BankRefund[];
  /** `componentesValor`, when the bank gives it (absent components are 0); null when it does not. */
  components?: BankAmountComponents | null;
}

export type BankRefundNature = "ORIGINAL" | "RETIRADA" | "MED_OPERACIONAL" | "MED_FRAUDE";

export interface BankRefund {
  /** Our id (the devolução's `id` in the path). */
  refundId: string;
  /** The return's end-to-end id (rtrId). */
  returnId: string;
  amountCents: number;
  nature: BankRefundNature;
  status: "EM_PROCESSAMENTO" | "DEVOLVIDO" | "NAO_REALIZADO";
  reason: string | null;
}

/** The bank did not answer in time, answered 5xx, or refused the connection: the outcome is unknown. */
export class BankUnavailableError extends Error {
  override name = "BankUnavailableError";
}

/**
 * The bank is down, not slow: the connection was refused or reset, TLS failed, the bank answered
 * 5xx, its token endpoint would not give a token, or the circuit breaker is open after such
 * failures (no call made). `reached`: whether the request may have reached the bank (a 5xx: its
 * outcome is unknown); false when nothing was sent. `retryAfterSeconds`: when to try again.
 */
export class BankDownError extends BankUnavailableError {
  override name = "BankDownError";
  constructor(
    message: string,
    readonly reached: boolean,
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The bank refused the request (4xx): its problem type and detail, in its words. */
export class BankRefusedError extends Error {
  override name = "BankRefusedError";
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}
