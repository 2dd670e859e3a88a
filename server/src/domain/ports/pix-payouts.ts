/**
 * Pix sent from the platform's account (issue 36 §1: withdrawals paid out by the bank), in the
 * domain's terms. Sending Pix is not in the Central Bank's standard: each bank has its own API
 * (spec/bank/efi-payouts, spec/bank/inter-payouts, documents of our own with the source of each
 * field), and the adapter (server/src/bank/) chosen by the connection's dialect speaks it.
 *
 * Every method may throw `BankUnavailableError` (no answer within the bounded wait, a 5xx, a
 * refused connection, a token the bank would not give): the outcome is then unknown, and the
 * caller reads the transfer back (`read`) before anything is retried. `BankRefusedError` is the
 * bank's refusal (4xx): nothing was sent. Amounts are integer cents here.
 */
export interface PixPayouts {
  /**
   * Whether `read` finds a transfer by our `transferId` alone. Efí does (`GET
   * /v2/gn/pix/enviados/id-envio/{idEnvio}`); Inter reads a Pix sent only by the code it gave
   * (`bankReference`), so after an unknown outcome without it the transfer is sent again with the
   * same `transferId`, which Inter answers with the same transfer (its idempotency key).
   */
  readonly readsByTransferId: boolean;
  /**
   * The connection's per-transfer limit as it was loaded with these payouts (cents): a withdrawal
   * is split by it. An operator's change reaches this process at once and others within the
   * access's re-read (5 s), as every other setting of the connection. Absent: the stored one is read.
   */
  readonly transferLimitCents?: number;
  /**
   * Sends `amountCents` to `destination.key`. Idempotent on `transferId`: a repeat with the same id
   * and amount never pays twice and answers the transfer the bank already has; the same id with
   * another amount or key is a `BankRefusedError`.
   */
  send(transfer: PayoutRequest): Promise<PayoutTransfer>;
  /** The transfer as the bank has it now; null when the bank does not know it (never sent). */
  read(transfer: PayoutReference): Promise<PayoutTransfer | null>;
  /** What the platform's account can send now (blocked amounts excluded). */
  balance(): Promise<{ availableCents: number }>;
}

export interface PayoutRequest {
  /**
   * Ours, 1–35 letters and digits, derived from the withdrawal and the transfer's place in it:
   * the same on every retry (Efí's idEnvio; Inter's idempotency key is derived from it).
   */
  transferId: string;
  amountCents: number;
  destination: { key: string };
  /** A message to the receiver (≤ 140 characters). */
  description?: string;
}

export interface PayoutReference {
  transferId: string;
  /** The bank's own code of the transfer, once known (Inter's codigoSolicitacao). */
  bankReference: string | null;
}

/**
 * - `PENDING`: accepted, not settled yet (sending, scheduled, or still unknown to the bank's
 *   payment system);
 * - `AWAITING_APPROVAL`: above the account's threshold, waiting for a person's approval at the bank;
 * - `PAID`: the receiver's bank credited it (`endToEndId` set);
 * - `FAILED`: not sent, or rejected (refused, expired, cancelled, no funds): nothing left the account.
 */
export type PayoutStatus = "PENDING" | "AWAITING_APPROVAL" | "PAID" | "FAILED";

export interface PayoutTransfer {
  transferId: string;
  /** The bank's own code, when it gives one (Inter's codigoSolicitacao); null otherwise. */
  bankReference: string | null;
  status: PayoutStatus;
  amountCents: number;
  /** The Pix's end-to-end id, once the bank has one. */
  endToEndId: string | null;
  /** Why it failed, in the bank's words. */
  reason: string | null;
}
