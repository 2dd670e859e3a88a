// The numbers of the service's rules, and the permissions a key can hold. None is written here:
// each is written once in the spec (spec/common/scalars.tsp and the resource files), and
// `npm run generate` reads it back from the emitted documents into `generated/rules.ts`
// (scripts/generate/emit-rules.ts), whose comments say where each one is. Why a number is what it
// is: the seed spec, or the decision records docs/decisions/0004-api-conventions-the-seed-leaves-open.md
// ("Largest amount"), 0007-fees-balance-refunds-and-disputes.md (fees, release period, refunds) and
// 0005-idempotency.md.
export {
  /** Bounds of `amountCents`: the largest is what BR Code field 54 (13 characters) can carry. */
  amountLimits,
  brazilianStates,
  /** `maxlength` of the hosted checkout's fields. */
  checkoutFieldLengths,
  customerTagLength,
  /** Default life of a charge (and of a recurrence's approval) and of a payment link created without `expiresAt`, in seconds. */
  defaultExpirySeconds,
  /** How long the link of a dashboard e-mail works: confirmation, password reset, invitation, in seconds. */
  emailLinkSeconds,
  /** Fees of a new account. */
  defaultPlan,
  /** Dashboard log-in failures per e-mail address and per IP address within a window. */
  failedLogIns,
  /** Dashboard step-up: wrong codes per user within a window, and how long step-up is refused past them. */
  failedStepUps,
  descriptionLength,
  /** How long an idempotency key replays its first response, in seconds. */
  idempotencyWindowSeconds,
  isPermission,
  /** `Retry-After` of `GET /ready` while the database does not answer. */
  notReadyRetryAfterSeconds,
  /** Failed operator authentications per minute from one IP address. */
  operatorAuthFailuresPerMinute,
  /** The most field errors one response lists: thousands of unknown fields must not answer thousands of items. */
  maxFieldErrors,
  maxPaymentsRange,
  metadataLimits,
  pageLimit,
  type Permission,
  permissions,
  /** Bounds an operator may set on a plan; the withdrawal fee stays below the smallest withdrawal. */
  planLimits,
  /** How long a rotated webhook secret keeps signing beside the new one, in seconds. */
  secretOverlapSeconds,
  personLimits,
  /** Requests per minute per IP address: the seed's budgets (§8). */
  rateLimitsPerMinute,
  /** The size of every request body, and how deep it nests. */
  requestLimits,
  /** `Retry-After` of `503 SERVICE_UNAVAILABLE`: the pool redials at once. */
  serviceUnavailableRetryAfterSeconds,
  /** How long a dashboard session lasts: without a request, and at most. */
  sessionLifetime,
  /** How long a log-in or step-up with the second factor allows dangerous operations. */
  stepUpSeconds,
  refundLimits,
  /** Pix Automático: when a cycle charge may be sent, and the retries `RETRY_3_IN_7_DAYS` allows. */
  recurrenceLimits,
  /** Charges with a due date: days payable after it, years ahead, discount dates, the largest rate. */
  dueDateLimits,
  releasePeriodDays,
  /** How many bytes of a receiver's answer a webhook delivery attempt keeps. */
  webhookResponseBodyBytes,
  /** Webhook delivery: an attempt's timeout and the signature's tolerance, in seconds. */
  webhookDelivery,
  /** When each webhook delivery attempt is due, in seconds after the first (before jitter). */
  webhookRetryScheduleSeconds,
  /** The longest grace a rolled API key's secret before the roll may get, in seconds. */
  maxKeyRollGraceSeconds,
} from "../../../../generated/rules.js";
