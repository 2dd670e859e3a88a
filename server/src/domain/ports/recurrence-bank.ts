import type { DocumentType } from "../core/model.js";
import type { PixBank } from "./pix-bank.js";

/**
 * Pix Automático at the platform's bank (issue 36 §2), in the domain's terms: the recurrences
 * (`/locrec`, `/rec`), their cycle charges (`/cobr`) and the webhooks of both. The adapter
 * (server/src/bank/recurrences.ts) speaks the Central Bank's API Pix; the domain never sees the
 * wire format. As with `PixBank`, every method may throw `BankUnavailableError` (the outcome is
 * unknown: read back before asking again) or `BankRefusedError` (a 4xx, in the bank's words).
 * Amounts are integer cents; dates are `YYYY-MM-DD`.
 */
export interface RecurrenceBank {
  /** `POST /locrec`: a new location for a recurrence's payload (its QR code points at it). */
  createLocation(): Promise<{ id: number; location: string }>;
  /** `GET /locrec/{id}`: the location, with the recurrence made on it (`recId`) if any; null when unknown. */
  readLocation(id: number): Promise<{ id: number; recId: string | null } | null>;
  /**
   * `POST /rec`: registers the recurrence on location `locationId` (journey 3: with the txid of its
   * immediate cob, `ativacao.dadosJornada.txid`). Not idempotent: after an unknown outcome, read the
   * location first (`readLocation`).
   */
  createRecurrence(request: BankRecurrenceRequest): Promise<BankRecurrence>;
  /**
   * `GET /rec/{idRec}` (with `?txid=` for journey 3: the composite QR of the cob and the
   * recurrence); null when the bank does not know it.
   */
  readRecurrence(recId: string, txid?: string): Promise<BankRecurrence | null>;
  /** `PATCH /rec/{idRec}` `{ status: CANCELADA }`: the merchant cancels it. */
  cancelRecurrence(recId: string): Promise<BankRecurrence>;
  /** `PUT /cobr/{txid}`: a cycle charge (idempotent on its txid). */
  registerCycleCharge(request: BankCycleChargeRequest): Promise<BankCycleCharge>;
  /** `GET /cobr/{txid}`; null when the bank does not know it. */
  readCycleCharge(txid: string): Promise<BankCycleCharge | null>;
  /** `POST /cobr/{txid}/retentativa/{data}`: a retry on `date`, as the recurrence's policy allows. */
  retryCycleCharge(txid: string, date: string): Promise<BankCycleCharge>;
  /** `PATCH /cobr/{txid}` `{ status: CANCELADA }`. */
  cancelCycleCharge(txid: string): Promise<BankCycleCharge>;
  /**
   * `GET /rec?inicio&fim`: page `page` (from 0) of the recurrences the bank created in `window`
   * (the reconciler's read of many at once; without the QR code, `copyPaste` null).
   */
  listRecurrences(window: BankWindow, page: number): Promise<BankPage<BankRecurrence>>;
  /** `GET /cobr?inicio&fim`: page `page` (from 0) of the cycle charges the bank created in `window`. */
  listCycleCharges(window: BankWindow, page: number): Promise<BankPage<BankCycleCharge>>;
  /** `PUT /webhookrec` and `PUT /webhookcobr`: where the bank calls about recurrences and their charges. */
  registerWebhooks(url: string): Promise<void>;
}

/** A window of creation instants (ISO 8601), both ends included, as the standard's `inicio` and `fim`. */
export interface BankWindow {
  from: string;
  to: string;
}

/** One page of a listing, and how many pages the listing has (at least 1). */
export interface BankPage<T> {
  items: T[];
  pages: number;
}

export interface BankRecurrenceRequest {
  locationId: number;
  /** Journey 3: the txid of the immediate charge (a cob) whose payment starts the recurrence. */
  initialTxid: string | null;
  contract: string;
  description: string;
  payer: { name: string; documentType: DocumentType; document: string };
  periodicity: "WEEKLY" | "MONTHLY" | "QUARTERLY" | "SEMIANNUAL" | "ANNUAL";
  firstDate: string;
  lastDate: string | null;
  /** FIXED: the amount of every cycle; VARIABLE: null, with the merchant's minimum (or null). */
  amountCents: number | null;
  minimumAmountCents: number | null;
  retries: boolean;
}

export type BankRecurrenceStatus = "CRIADA" | "APROVADA" | "REJEITADA" | "EXPIRADA" | "CANCELADA";

/** A recurrence as the bank reports it. */
export interface BankRecurrence {
  recId: string;
  status: BankRecurrenceStatus;
  /** The QR code the bank composes (`dadosQR.pixCopiaECola`), when asked and available. */
  copyPaste: string | null;
  /** The payer's refusal (`encerramento.rejeicao`). */
  rejection: { code: "AP13" | "AP14"; reason: string } | null;
  /** Who cancelled it and why (`encerramento.cancelamento`). */
  cancellation: {
    by: "PSP_PAGADOR" | "USUARIO_PAGADOR" | "PSP_RECEBEDOR" | "USUARIO_RECEBEDOR";
    code: "ACCL" | "CPCL" | "DCSD" | "ERSL" | "FRUD" | "PCFD" | "SLCR" | "SLDB";
    reason: string;
  } | null;
}

export interface BankCycleChargeRequest {
  /** 26–35 letters and digits, from our charge's id. */
  txid: string;
  recId: string;
  dueDate: string;
  amountCents: number;
  /** Settle on the next business day when the due date is not one (`ajusteDiaUtil`). */
  adjustToBusinessDay: boolean;
  description: string;
}

export type BankCycleChargeStatus = "CRIADA" | "ATIVA" | "CONCLUIDA" | "EXPIRADA" | "REJEITADA" | "CANCELADA";
export type BankAttemptStatus = "SOLICITADA" | "AGENDADA" | "PAGA" | "CANCELADA" | "REJEITADA" | "EXPIRADA";

/** A cycle charge as the bank reports it, with each attempt to debit the payer. */
export interface BankCycleCharge {
  txid: string;
  recId: string;
  status: BankCycleChargeStatus;
  amountCents: number;
  attempts: BankAttempt[];
}

export interface BankAttempt {
  /** `dataLiquidacao`. */
  date: string;
  status: BankAttemptStatus;
  endToEndId: string;
  /** The reason code of a REJEITADA attempt (the message catalogue's). */
  rejection: { code: string; reason: string } | null;
}

/** The bank's recurrences, when its adapter speaks them (null: Pix Automático stays off the bank). */
export function recurrenceBankOf(bank: PixBank | null | undefined): RecurrenceBank | null {
  if (!bank) return null;
  const withRecurrences = bank as PixBank & { recurrences?: RecurrenceBank };
  return withRecurrences.recurrences ?? null;
}
