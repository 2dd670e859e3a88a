import type { PageRequest, PageResult } from "../core/model.js";

// The part of the Store port that keeps the bank's side of production money (issue 35): the Pix
// the platform's account received, each once by its end-to-end id, and the work still owed to the
// bank (registering or removing a charge, following a refund). Both adapters implement it
// (`store/memory/received-pix.ts`, `store/postgres/received-pix.ts`).

/**
 * A Pix the platform's account received, as confirmed with the bank (`readReceived`). Written in
 * the same store transaction as its credit, so its end-to-end id (the key) is credited exactly
 * once: a second callback, process or reconciliation finds it and does nothing.
 */
export interface ReceivedPixRecord {
  /** The end-to-end id (`endToEndId`, E + ISPB + …, 32 characters). */
  id: string;
  txid: string | null;
  amountCents: number;
  /** The bank's `horario`. */
  paidAt: string;
  payerName: string | null;
  payerDocument: string | null;
  /**
   * `CREDITED`: paid `transactionId`, whose account and mode are given. `UNMATCHED`: it paid no
   * charge of ours (no txid, an unknown one, another amount, a charge no longer waiting): held for
   * the operator (docs/decisions, unmatched receipts), `reason` says why.
   */
  outcome: "CREDITED" | "UNMATCHED";
  transactionId: string | null;
  accountId: string | null;
  livemode: boolean | null;
  reason: string | null;
  createdAt: string;
  /**
   * An unmatched receipt's return to its payer by the operator (a devolução of the full amount at
   * the bank, domain/bank/unmatched-return.ts); null while never asked. `PENDING` while the bank
   * processes it, `COMPLETED` once returned, `FAILED` when refused (a new attempt may be asked).
   */
  returnStatus: "PENDING" | "COMPLETED" | "FAILED" | null;
  /** Our devolução id of the latest attempt (derived from the end-to-end id and `returnAttempts`). */
  returnId: string | null;
  /** Attempts asked so far (0 while never asked). */
  returnAttempts: number;
  returnedAt: string | null;
  returnFailureReason: string | null;
}

/** What is still owed to the bank for one charge or refund; deleted once done. */
export interface BankTaskRecord {
  /** `${kind}:${subjectId}`: one task of a kind per subject. */
  id: string;
  /**
   * `register`: a `PENDING` charge still to be registered (`registerCharge`). `remove`: a charge
   * that expired or was cancelled, still to be removed at the bank (`removeCharge`). `refund`: a
   * `PENDING` refund whose outcome the bank has not given yet (`readRefund`). `recurrence`: a
   * production recurrence (`rec_…`) or cycle charge (`txn_…`) of Pix Automático at the bank, to be
   * registered, cancelled or followed until it ends (payments/recurrences/at-bank.ts).
   */
  kind: "register" | "remove" | "refund" | "recurrence";
  /** The charge's `txn_…`, the refund's `rfd_…` or the recurrence's `rec_…`. */
  subjectId: string;
  accountId: string;
  livemode: boolean;
  /** When it is next tried (also how long a claim holds it). */
  dueAt: string;
  attempts: number;
  lastError: string | null;
  createdAt: string;
}

export interface ReceivedPixReads {
  receivedPix: {
    get(endToEndId: string): Promise<ReceivedPixRecord | null>;
    /** The ones of these end-to-end ids kept already (a page of the reconciler's, in one read). */
    getMany(endToEndIds: readonly string[]): Promise<ReceivedPixRecord[]>;
    /** The Pix that paid this charge, if one did. */
    getCreditedTo(transactionId: string): Promise<ReceivedPixRecord | null>;
    /** The unmatched receipts, newest first on (createdAt, id); the cursor is any unmatched one. */
    listUnmatched(page: PageRequest): Promise<PageResult<ReceivedPixRecord>>;
  };
  bankTasks: {
    get(id: string): Promise<BankTaskRecord | null>;
  };
}

export interface ReceivedPixWrites {
  receivedPix: ReceivedPixReads["receivedPix"] & {
    /** Inserts it unless its end-to-end id is kept already; answers whether it inserted. */
    insertIfAbsent(record: ReceivedPixRecord): Promise<boolean>;
    /**
     * `insertIfAbsent` for many at once (one statement on PostgreSQL): inserts each one whose
     * end-to-end id is not kept yet (nor earlier in `records`); answers the ids it inserted.
     */
    insertManyIfAbsent(records: readonly ReceivedPixRecord[]): Promise<Set<string>>;
    /**
     * Writes an unmatched receipt's return fields when its `returnAttempts` and `returnStatus` are
     * still `expected`'s (another request or process did not move it first); answers whether it did.
     */
    updateReturn(
      record: ReceivedPixRecord,
      expected: Pick<ReceivedPixRecord, "returnAttempts" | "returnStatus">,
    ): Promise<boolean>;
  };
  bankTasks: ReceivedPixReads["bankTasks"] & {
    /** Inserts or replaces the task with this id. */
    put(task: BankTaskRecord): Promise<void>;
    delete(id: string): Promise<void>;
    /**
     * Claims up to `limit` tasks due at `now`, moving each one's `dueAt` to `lockUntil`, so
     * another worker skips it until then (PostgreSQL: `FOR UPDATE SKIP LOCKED`). Oldest due first.
     */
    claimDue(now: string, lockUntil: string, limit: number): Promise<BankTaskRecord[]>;
  };
}
