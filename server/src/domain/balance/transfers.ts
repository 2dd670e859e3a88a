import { DomainError } from "../core/errors.js";
import { newId } from "../core/ids.js";
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

/** A transfer's id at the bank: ours without its underscore (letters and digits, 23 characters). */
export const bankTransferIdOf = (transferId: string): string => transferId.replace("_", "");

/** The use cases of the payouts (`DomainDeps.bank.payouts`); built once per domain. */
export interface WithdrawalPayouts {
  /** Whether production withdrawals go to the bank now (a connection whose dialect sends Pix). */
  available(): Promise<boolean>;
  /**
   * Starts a pass over one withdrawal in the background (after its create's commit); `created`:
   * the record the create committed, so the pass does not read it again.
   */
  follow(withdrawalId: string, created?: WithdrawalRecord): void;
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
