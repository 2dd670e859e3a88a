import { DomainError } from "../core/errors.js";
import { newId, randomBase62 } from "../core/ids.js";
import { formatBRL } from "../core/money.js";
import type { WithdrawalRecord, WithdrawalTransferRecord } from "../core/model.js";

// The transfers of a production withdrawal paid out by the platform's bank (issue 36 §1), and the
// use cases that send them (payouts.ts), as withdrawals.ts names them.

/** The per-transfer limit of a connection that names none: R$ 15.000,00. */
export const defaultPayoutLimitCents = 1_500_000;

/** The most transfers one withdrawal is split into (the public model's `transfers` holds 10). */
const maxTransfersPerWithdrawal = 10;

/**
 * The transfers of a withdrawal of `netCents` paid out through the bank: as many of `limitCents`
 * as fit, then the rest. More than 10 would be needed: `400 REQUEST_ERROR` naming the largest
 * withdrawal (nothing has moved yet).
 */
export function bankTransfersOf(
  netCents: number,
  feeCents: number,
  limitCents = defaultPayoutLimitCents,
): WithdrawalTransferRecord[] {
  const count = Math.ceil(netCents / limitCents);
  if (count > maxTransfersPerWithdrawal) {
    throw new DomainError(
      "REQUEST_ERROR",
      `Um saque é pago em até ${maxTransfersPerWithdrawal} transferências Pix de até ${formatBRL(limitCents)}: o maior saque é ${formatBRL(maxTransfersPerWithdrawal * limitCents + feeCents)}. Divida-o em saques menores.`,
    );
  }
  return Array.from({ length: count }, (_, i) => ({
    id: newId("trf"),
    amountCents: i < count - 1 ? limitCents : netCents - limitCents * (count - 1),
    status: "PENDING" as const,
    endToEndId: null,
    completedAt: null,
    failureReason: null,
    bankReference: null,
    sentAt: null,
  }));
}

/**
 * How long a pass holds the claim to send a withdrawal's transfers (`WithdrawalTransferRecord.
 * sendClaim`) by default: 60 s (PIX_BANK_PAYOUT_CLAIM_SECONDS). The create's pass holds it from the
 * create's commit; a process killed before sending leaves them to the payout job once it lapses.
 * Longer than a pass's sends need: each call to the bank is bounded, and a pass starts no send with
 * less than a third of the claim left (`sendClaimMarginMs`).
 */
const sendClaimMs = 60_000;

/** The send claim's length in this deployment (ms). */
export const sendClaimMsOf = (deps: { config: { bankPayoutClaimSeconds?: number } }): number =>
  (deps.config.bankPayoutClaimSeconds ?? sendClaimMs / 1000) * 1000;

/** A new claim to send, held from `at` for `ms`. */
export function sendClaimFrom(at: Date, ms = sendClaimMs): { id: string; until: string } {
  return { id: randomBase62(16), until: new Date(at.getTime() + ms).toISOString() };
}

/** A pass starts no send of a transfer once its claim (of `ms`) has less than this left: a third of it. */
export const sendClaimMarginMs = (ms = sendClaimMs): number => Math.floor(ms / 3);

/** A transfer's id at the bank: ours without its underscore (letters and digits, 23 characters). */
export const bankTransferIdOf = (transferId: string): string => transferId.replace("_", "");

/** Our transfer id from its id at the bank (`bankTransferIdOf`'s inverse); null for one not of that shape. */
export const transferIdFromBank = (bankId: string): string | null =>
  /^trf[0-9A-Za-z]{20}$/.test(bankId) ? `trf_${bankId.slice(3)}` : null;

/** The use cases of the payouts (`DomainDeps.bank.payouts`); built once per domain. */
export interface WithdrawalPayouts {
  /**
   * Whether production withdrawals go to the bank now (a connection whose dialect sends Pix):
   * null when not, else the per-transfer limit the connection was loaded with (undefined: read the
   * stored connection's).
   */
  available(): Promise<{ transferLimitCents: number | undefined } | null>;
  /**
   * Starts a pass over one withdrawal in the background (after its create's commit); `created`:
   * the record the create committed, so the pass does not read it again.
   */
  follow(withdrawalId: string, created?: WithdrawalRecord): void;
  /**
   * The bank's notice that some transfers ended (Efí's callback; their ids at the bank): a hint.
   * Each pending withdrawal holding one is passed over at once, its transfers read back before
   * anything changes; an id of no pending transfer changes nothing. Answers how many ended.
   */
  confirmSettled(bankTransferIds: readonly string[]): Promise<{ withdrawals: number; ended: number }>;
  /** One pass over one withdrawal, awaited; answers it as it stands after the pass. */
  pass(withdrawalId: string): Promise<WithdrawalRecord | null>;
  /**
   * A pass over every `PENDING` withdrawal paid out through the bank, oldest first (the job, and
   * the tests' stand-in for its timer); answers how many were passed over, how many ended, and how
   * many of their transfers ended in it. The job reads an old transfer less often
   * (`payoutReadPauseMs`); `force` (the operator's reconciliation) reads every pending one now.
   */
  followPending(options?: { force?: boolean }): Promise<{
    followed: number;
    ended: number;
    waitingForBalance: number;
    transfersSettled: number;
  }>;
}
