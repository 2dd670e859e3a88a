import type { components } from "../../../../generated/api.js";

// Internal records. Wire shapes come from the generated types; records hold what the store keeps.
// Timestamps are ISO 8601 UTC strings with milliseconds (`Date#toISOString`), so they compare as
// strings; money is integer cents.

export type Schemas = components["schemas"];
export type DocumentType = Schemas["DocumentType"];
export type TransactionStatus = Schemas["TransactionStatus"];
type WithdrawalStatus = Schemas["WithdrawalStatus"];
type PixKeyType = Schemas["PixKeyType"];
export type Address = NonNullable<Schemas["Customer"]["address"]>;
export type Metadata = Schemas["Metadata"];
export type Dispute = Schemas["Dispute"];
export type DisputeStatus = Schemas["DisputeStatus"];
/**
 * One transfer of a withdrawal as the store keeps it: what the API shows, and for a transfer paid
 * out through the platform's bank (issue 36 §1) what the service knows of it there (never shown).
 */
export type WithdrawalTransferRecord = Omit<Schemas["WithdrawalTransfer"], "failureReason"> & {
  /** Why it failed, in the bank's words (a transfer through the bank). */
  failureReason?: string | null;
  /** The bank's own code of the transfer, once known (Inter's codigoSolicitacao). */
  bankReference?: string | null;
  /** When the bank first answered a send of it (it knows the transfer since). */
  sentAt?: string | null;
  /**
   * The pass that alone may send it (balance/payouts.ts): the create's pass from the create's
   * commit, or a later pass that claimed it; others read it back but do not send it before `until`.
   * A pass that ends releases it (`until` set to then, the id kept, so a claim is seen to change).
   */
  sendClaim?: { id: string; until: string } | null;
};
type RefundStatus = Schemas["RefundStatus"];
export type WebhookEventType = Schemas["EventType"];
export type RecurrenceStatus = Schemas["RecurrenceStatus"];
export type RecurringChargeAttempt = Schemas["RecurringChargeAttempt"];

/** One account's data in one mode: test (`livemode: false`) or production. */
export interface Scope {
  accountId: string;
  livemode: boolean;
}

export interface Plan {
  /** Fixed part of the fee of each Pix charge. */
  chargeFeeCents: number;
  /** Proportional part, in basis points of the amount (100 = 1%). */
  chargeFeeBps: number;
  /** Fee of each withdrawal, included in its amount. */
  withdrawFeeCents: number;
}

export interface Account {
  id: string;
  name: string;
  ownerEmail: string;
  /** Verified accounts operate in production. */
  verified: boolean;
  plan: Plan;
  /** Days a paid sale stays pending before it becomes available. */
  releasePeriodDays: number;
  /** City printed in the BR Code. */
  merchantCity: string;
  /** The account's receiving Pix key (EVP) printed in the BR Code. */
  pixKey: string;
  /** The merchant's CNPJ (a company, a MEI included) or CPF (an individual); null when none is on record. */
  documentType: DocumentType | null;
  /** Digits only (an alphanumeric CNPJ in upper case); null together with `documentType`. */
  document: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  livemode: boolean;
  /** The visible start of the secret, for people to recognise it. */
  prefix: string;
  /** SHA-256 of the whole secret, hex. The secret itself is never stored. */
  digest: string;
  permissions: string[];
  /** IPv4/IPv6 addresses or CIDR ranges; empty = any IP. */
  allowedIps: string[];
  dailyWithdrawLimitCents: number | null;
  revokedAt: string | null;
  /**
   * After a roll: the secret before it (its digest and visible prefix), still accepted until
   * `previousExpiresAt`, then refused. All three null when the key was never rolled.
   */
  previousDigest: string | null;
  previousPrefix: string | null;
  previousExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface CustomerRecord extends Scope {
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  documentType: DocumentType;
  document: string;
  address: Address | null;
  /** Operator-only notes and tags; never in the public API. */
  notes: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}

export interface TransactionRecord extends Scope {
  id: string;
  /** Stored status; `WAITING_PAYMENT` past `expiresAt` reads as `EXPIRED`. */
  status: TransactionStatus;
  amountCents: number;
  feeCents: number;
  description: string;
  brCode: string;
  customer: Schemas["TransactionCustomer"];
  paymentLinkId: string | null;
  dispute: Dispute | null;
  /** Sum of the charge's refunds that did not fail (PENDING and COMPLETED). */
  refundedAmountCents: number;
  /** The recurrence (Pix Automático) of a cycle charge or a journey 3 immediate charge; null or absent otherwise. */
  recurrenceId?: string | null;
  /** A cycle charge's cycle: its due date and attempts; null or absent on any other charge. */
  cycle?: RecurringCycle | null;
  /** Why a `FAILED` charge failed: the bank's refusal (issue 35); null or absent otherwise. */
  failureReason?: string | null;
  /** A charge with a due date's terms, fee and payment (issue 38); null or absent on any other charge. */
  dueDateCharge?: DueDateChargeRecord | null;
  metadata: Metadata;
  expiresAt: string;
  paidAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * What a charge with a due date adds to a charge (issue 38). The row's `amountCents` is the
 * original amount until paid, then the amount paid; its `feeCents` the fee of that amount.
 */
export interface DueDateChargeRecord {
  /** The terms as checked by `checkDueDateTerms` (payments/due-date), `daysPayableAfterDue` given. */
  terms: Schemas["DueDateTerms"];
  /** The plan's fee when the charge was created, applied to the amount due on the day it is paid. */
  fee: { fixedCents: number; bps: number };
  /** What was paid and its breakdown, once paid; null before. */
  paid: Schemas["AmountDue"] | null;
}

/** What a cycle charge of a recurrence adds to a charge. */
export interface RecurringCycle {
  /** The cycle's date it charges, `YYYY-MM-DD`. */
  dueDate: string;
  /** Oldest first: the SCHEDULED one on the settlement date, then the retries. */
  attempts: RecurringChargeAttempt[];
}

/** A recurrence (Pix Automático): the payer's authorisation of recurring debits. */
export interface RecurrenceRecord extends Scope {
  id: string;
  /** Stored status; CREATED past `expiresAt` reads as EXPIRED. */
  status: RecurrenceStatus;
  journey: Schemas["RecurrenceJourney"];
  payer: Schemas["TransactionCustomer"];
  contractReference: string;
  description: string;
  periodicity: Schemas["RecurrencePeriodicity"];
  firstDate: string;
  lastDate: string | null;
  /** FIXED when set. */
  amountCents: number | null;
  minimumAmountCents: number | null;
  payerMaximumAmountCents: number | null;
  retryPolicy: Schemas["RetryPolicy"];
  automaticCharges: boolean;
  initialTransactionId: string | null;
  brCode: string;
  metadata: Metadata;
  expiresAt: string;
  approvedAt: string | null;
  rejection: Schemas["Recurrence"]["rejection"];
  cancellation: Schemas["Recurrence"]["cancellation"];
  history: Schemas["RecurrenceHistoryEntry"][];
  /** Test mode: the date the recurrence's calendar was moved to (sandbox), or null. */
  simulatedDate: string | null;
  /**
   * Production through the platform's bank (issue 36): the location of its payload (`POST /locrec`)
   * once made, and the bank's id of it (`idRec`) once registered. Absent or null: not at the bank.
   */
  bankLocId?: number | null;
  bankRecId?: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface PaymentLinkRecord extends Scope {
  id: string;
  amountCents: number;
  description: string;
  active: boolean;
  maxPayments: number | null;
  paymentsCount: number;
  askAddress: boolean;
  returnUrl: string | null;
  metadata: Metadata | null;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WithdrawalRecord extends Scope {
  id: string;
  apiKeyId: string | null;
  status: WithdrawalStatus;
  amountCents: number;
  feeCents: number;
  paidAmountCents: number;
  returnedAmountCents: number;
  /** The full destination key (masked only on the way out). */
  pixKey: string;
  pixKeyType: PixKeyType;
  transfers: WithdrawalTransferRecord[];
  failureReason: string | null;
  /**
   * Paid out through the platform's bank (issue 36 §1: production with a bank connection whose
   * dialect sends Pix): its transfers go to the bank, not to the settlement simulator. Null: the
   * acquirer's (the sandbox's, the simulator's).
   */
  payout: WithdrawalPayoutRecord | null;
  createdAt: string;
  updatedAt: string;
}

/** What a withdrawal paid out through the bank keeps of its payout. */
export interface WithdrawalPayoutRecord {
  /**
   * Since when the platform's account at the bank could not cover what is left to send (the
   * balance check before paying); null: not waiting. The payout job tries again.
   */
  waitingForBalanceSince: string | null;
  /** What the platform's account had when it was last found short (cents), for the operator. */
  bankAvailableCents: number | null;
}

/** A refund (devolução) of part or all of a paid charge. */
export interface RefundRecord extends Scope {
  id: string;
  transactionId: string;
  status: RefundStatus;
  amountCents: number;
  reason: string | null;
  /** The Pix return id, once sent. */
  endToEndId: string | null;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Where ledger money sits. Pending is `available` money whose `releaseAt` is still ahead. */
type LedgerBucket = "available" | "blocked";

type LedgerKind =
  | "charge_paid"
  | "withdrawal"
  | "withdrawal_returned"
  | "dispute_opened"
  | "dispute_won"
  | "dispute_lost"
  | "refund"
  | "refund_returned"
  /** Test mode: pending money made available before its release (a pair of entries). */
  | "pending_released";

/** One movement of money. Entries are only ever appended; balances are their sums. */
export interface LedgerEntry extends Scope {
  id: string;
  bucket: LedgerBucket;
  /** Signed: credits positive, debits negative. */
  amountCents: number;
  /** For credits held during the release period: when they become available. */
  releaseAt: string | null;
  kind: LedgerKind;
  /** The transaction, withdrawal or dispute that caused it. */
  refId: string;
  createdAt: string;
}

export interface BalanceTotals {
  availableCents: number;
  pendingCents: number;
  blockedCents: number;
}

/** Pending money released at one instant: the credits created before `releaseAt` whose release it is. */
export interface LedgerRelease {
  releaseAt: string;
  amountCents: number;
}

/** What the statement of a period [from, to) is built from (domain/reports/statement.ts). */
export interface LedgerPeriod {
  /** The balance right before `from`: pending is the credits created before it whose release is at or after it. */
  opening: BalanceTotals;
  /** The entries created in [from, to), in append order. */
  entries: LedgerEntry[];
  /** Releases in [from, to), summed by instant, oldest first (zero sums included). */
  releases: LedgerRelease[];
}

/** An event waiting in the outbox for webhook delivery. */
export interface EventRecord extends Scope {
  id: string;
  type: WebhookEventType;
  /** The whole envelope, as delivered. */
  payload: Record<string, unknown>;
  createdAt: string;
}

/** The remembered first outcome of a request with an `idempotency-key`. */
export interface IdempotencyRecord extends Scope {
  operation: string;
  key: string;
  requestHash: string;
  responseStatus: number;
  /** The response body exactly as first sent (JSON text), replayed byte for byte. */
  responseText: string;
  createdAt: string;
}

/** Cursor pagination, newest first on (createdAt, id). */
export interface PageRequest {
  limit: number;
  startingAfter?: string | undefined;
}

export interface PageResult<T> {
  items: T[];
  hasMore: boolean;
}

/** An operator-registered receiver of webhook events, per account and mode. */
export interface WebhookEndpointRecord extends Scope {
  id: string;
  url: string;
  /** The event kinds it receives. */
  events: WebhookEventType[];
  /** `whsec_…` signing secret. */
  secret: string;
  /** After a rotation, the old secret keeps signing until `previousSecretExpiresAt`. */
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  /** Set when the receiver answered 410 Gone, or by the operator. */
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One try at delivering one event to one endpoint. */
export interface DeliveryAttempt {
  at: string;
  /** HTTP status, or null when no response came (timeout, refused, blocked). */
  status: number | null;
  durationMs: number;
  error: string | null;
  /**
   * The start of the response's body as text (its first bytes, `webhookResponseBodyBytes`), or
   * null when no response came. Absent from attempts recorded before it was kept.
   */
  responseBody?: string | null;
}

type DeliveryStatus = "PENDING" | "SUCCEEDED" | "FAILED";

/** The delivery of one event to one endpoint, with every attempt kept. */
export interface DeliveryRecord {
  id: string;
  eventId: string;
  /** The event's kind (`webhook.test` for a test event). */
  eventType: string;
  endpointId: string;
  accountId: string;
  livemode: boolean;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /**
   * The envelope of a test event (`webhook.test`, sent from the dashboard to this endpoint alone),
   * delivered as it is: it is no recorded event, so no events list holds it and `eventId` names no
   * row of `events`. Null for the delivery of a recorded event.
   */
  testEvent: Record<string, unknown> | null;
  /** When the next attempt is due; null once it succeeded or gave up. */
  nextAttemptAt: string | null;
  /** A worker's claim: until when it owns the next attempt. */
  lockedUntil: string | null;
  createdAt: string;
  updatedAt: string;
}
