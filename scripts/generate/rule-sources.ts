import type { documents } from "./documents.js";

// Where each number of the rules is (emit-rules.ts reads them from the emitted documents): one
// exported object per group, one constant per single number.

export type DocumentName = (typeof documents)[number]["name"];

/** Where a value is: a document and a JSON pointer (`~1` for `/` in a segment). */
export interface Source {
  document: DocumentName;
  pointer: string;
}
export const pub = (pointer: string): Source => ({ document: "public", pointer });
export const adm = (pointer: string): Source => ({ document: "admin", pointer });
const dsh = (pointer: string): Source => ({ document: "dashboard", pointer });
export const schema = (name: string, path: string): string => `/components/schemas/${name}/${path}`;

/** A group of numbers: one exported object, and what it is. */
export interface Group {
  doc: string;
  values: Record<string, Source>;
}

export const groups: Record<string, Group> = {
  amountLimits: {
    doc: "Bounds of `amountCents` (charges, payment links, withdrawals, refunds).",
    values: {
      maxCents: pub(schema("AmountCents", "maximum")),
      minChargeCents: pub(schema("ChargeAmountCents", "minimum")),
      minWithdrawalCents: pub(schema("WithdrawalAmountCents", "minimum")),
    },
  },
  descriptionLength: {
    doc: "Length of the description of a charge or payment link.",
    values: { min: pub(schema("ChargeDescription", "minLength")), max: pub(schema("ChargeDescription", "maxLength")) },
  },
  personLimits: {
    doc: "A payer's or customer's name and e-mail.",
    values: {
      nameMin: pub(schema("PersonName", "minLength")),
      nameMax: pub(schema("PersonName", "maxLength")),
      emailMax: pub(schema("EmailAddress", "maxLength")),
    },
  },
  maxPaymentsRange: {
    doc: "`maxPayments` of a payment link, when given.",
    values: {
      min: pub(schema("CreatePaymentLinkRequest", "properties/maxPayments/minimum")),
      max: pub(schema("CreatePaymentLinkRequest", "properties/maxPayments/maximum")),
    },
  },
  pageLimit: {
    doc: "`limit` of every list.",
    values: {
      min: pub("/components/parameters/PageQuery.limit/schema/minimum"),
      max: pub("/components/parameters/PageQuery.limit/schema/maximum"),
      default: pub("/components/parameters/PageQuery.limit/schema/default"),
    },
  },
  metadataLimits: {
    doc: "`metadata`: keys, key length, and its size as UTF-8 JSON.",
    values: {
      maxKeys: pub(schema("Metadata", "maxProperties")),
      maxKeyLength: pub(schema("Metadata", "x-max-key-length")),
      maxBytes: pub(schema("Metadata", "x-max-json-bytes")),
    },
  },
  defaultPlan: {
    doc: "Fees of a new account.",
    values: {
      chargeFeeCents: adm(schema("Plan", "properties/chargeFeeCents/x-default")),
      chargeFeeBps: adm(schema("Plan", "properties/chargeFeeBps/x-default")),
      withdrawFeeCents: adm(schema("Plan", "properties/withdrawFeeCents/x-default")),
    },
  },
  planLimits: {
    doc: "Bounds an operator may set on a plan.",
    values: {
      maxChargeFeeBps: adm(schema("FeeBasisPoints", "maximum")),
      maxWithdrawFeeCents: adm(schema("WithdrawFeeCents", "maximum")),
    },
  },
  customerTagLength: {
    doc: "Operator tags on a customer: at most `maxCount`, each `min` to `max` characters.",
    values: {
      min: adm(schema("CustomerTag", "minLength")),
      max: adm(schema("CustomerTag", "maxLength")),
      maxCount: adm(schema("SetCustomerNotesRequest", "properties/tags/maxItems")),
    },
  },
  releasePeriodDays: {
    doc: "Release period of paid charges, in days.",
    values: {
      default: adm(schema("CreateAccountRequest", "properties/releasePeriodDays/x-default")),
      min: adm(schema("ReleasePeriodDays", "minimum")),
      max: adm(schema("ReleasePeriodDays", "maximum")),
    },
  },
  refundLimits: {
    doc: "Refunds: none later than `windowDays` after `paidAt`; a `reason` of `reasonMin` to `reasonMax` characters.",
    values: {
      windowDays: pub("/paths/~1api~1v1~1transactions~1{id}~1refunds/post/x-refund-window-days"),
      reasonMin: pub(schema("CreateRefundRequest", "properties/reason/minLength")),
      reasonMax: pub(schema("CreateRefundRequest", "properties/reason/maxLength")),
    },
  },
  recurrenceLimits: {
    doc: "Pix Automático: a cycle charge is sent `minDaysBeforeDue` to `maxDaysBeforeDue` days before its due date; `RETRY_3_IN_7_DAYS` allows `maxRetries` retries within `retryWindowDays` days of the first attempt.",
    values: {
      minDaysBeforeDue: pub("/paths/~1api~1v1~1recurrences~1{id}~1charges/post/x-min-days-before-due"),
      maxDaysBeforeDue: pub("/paths/~1api~1v1~1recurrences~1{id}~1charges/post/x-max-days-before-due"),
      maxRetries: pub(schema("RetryPolicy", "x-max-retries")),
      retryWindowDays: pub(schema("RetryPolicy", "x-retry-window-days")),
    },
  },
  dueDateLimits: {
    doc: "Charges with a due date (issue 38, record 0052): the days payable after the due date (default and bound), how far ahead a due date may be, how many discount dates, the largest rate in basis points.",
    values: {
      defaultDaysPayableAfterDue: pub(schema("CreateDueDateChargeRequest", "properties/daysPayableAfterDue/x-default")),
      maxDaysPayableAfterDue: pub(schema("CreateDueDateChargeRequest", "properties/daysPayableAfterDue/maximum")),
      maxYearsAhead: pub(schema("CreateDueDateChargeRequest", "properties/dueDate/x-max-years-ahead")),
      maxDiscountDates: pub(schema("DiscountTermsInput", "properties/dates/maxItems")),
      maxRateBps: pub(schema("RateBps", "maximum")),
    },
  },
  requestLimits: {
    doc: "Every request body (public, operator and dashboard APIs): its size in bytes, and how deep objects and arrays nest in it.",
    values: {
      maxBodyBytes: pub("/x-request-limits/maxBodyBytes"),
      maxJsonDepth: pub("/x-request-limits/maxJsonDepth"),
    },
  },
  rateLimitsPerMinute: {
    doc: "Requests per minute per IP address: `GET`, the other methods, and `POST /api/v1/withdrawals`.",
    values: {
      get: pub("/x-request-limits/perMinute/get"),
      write: pub("/x-request-limits/perMinute/write"),
      withdrawals: pub("/x-request-limits/perMinute/withdrawals"),
    },
  },
  failedLogIns: {
    doc: "Dashboard log-in: failures per e-mail address and per IP address within `windowSeconds`, past which log-in answers 429.",
    values: {
      perEmail: dsh("/paths/~1dashboard~1v1~1session/post/x-failed-log-ins/perEmail"),
      perIp: dsh("/paths/~1dashboard~1v1~1session/post/x-failed-log-ins/perIp"),
      windowSeconds: dsh("/paths/~1dashboard~1v1~1session/post/x-failed-log-ins/windowSeconds"),
    },
  },
  failedStepUps: {
    doc: "Dashboard step-up: wrong codes per user within `windowSeconds`; the last one ends the user's sessions and refuses step-up for `lockSeconds`.",
    values: {
      perUser: dsh("/paths/~1dashboard~1v1~1session~1step-up/post/x-failed-step-ups/perUser"),
      windowSeconds: dsh("/paths/~1dashboard~1v1~1session~1step-up/post/x-failed-step-ups/windowSeconds"),
      lockSeconds: dsh("/paths/~1dashboard~1v1~1session~1step-up/post/x-failed-step-ups/lockSeconds"),
    },
  },
  sessionLifetime: {
    doc: "A dashboard session ends `idleSeconds` after its last request, or `absoluteSeconds` after log-in.",
    values: {
      idleSeconds: dsh(schema("Session", "properties/idleExpiresAt/x-idle-seconds")),
      absoluteSeconds: dsh(schema("Session", "properties/expiresAt/x-seconds-after-log-in")),
    },
  },
  defaultExpirySeconds: {
    doc: "Default life, in seconds, of a charge (and of a recurrence's approval) and of a payment link created without `expiresAt`.",
    values: {
      charge: pub(schema("CreatePixChargeRequest", "properties/expiresAt/x-default-seconds-after-creation")),
      paymentLink: pub(schema("CreatePaymentLinkRequest", "properties/expiresAt/x-default-seconds-after-creation")),
    },
  },
  emailLinkSeconds: {
    doc: "How long the link of a dashboard e-mail works, in seconds: the address's confirmation, a password reset, an invitation.",
    values: {
      confirmEmail: dsh(schema("ConfirmEmailRequest", "properties/token/x-valid-seconds")),
      resetPassword: dsh(schema("CompletePasswordResetRequest", "properties/token/x-valid-seconds")),
      invitation: dsh(schema("AcceptInvitationRequest", "properties/token/x-valid-seconds")),
    },
  },
  webhookDelivery: {
    doc: "Webhook delivery: how long an attempt waits for the receiver's answer, and how far a receiver lets `webhook-timestamp` be from its clock, in seconds (the retries: `webhookRetryScheduleSeconds`).",
    values: {
      timeoutSeconds: pub("/x-webhook-delivery/timeoutSeconds"),
      signatureToleranceSeconds: pub("/x-webhook-delivery/signatureToleranceSeconds"),
    },
  },
  passwordLength: {
    doc: "Length of a dashboard user's new password (sign-up, reset, invitation, change).",
    values: { min: dsh(schema("NewPassword", "minLength")), max: dsh(schema("NewPassword", "maxLength")) },
  },
  recurrenceTextLength: {
    doc: "A new recurrence's texts (Pix Automático): what the payer's bank app shows, and the merchant's contract reference.",
    values: {
      descriptionMax: dsh(schema("PixService.CreateRecurrenceRequest", "properties/description/maxLength")),
      contractReferenceMax: dsh(schema("PixService.CreateRecurrenceRequest", "properties/contractReference/maxLength")),
    },
  },
  searchLength: {
    doc: "Length of the dashboard's transaction search text (`search`).",
    values: { max: dsh("/components/parameters/DashboardTransactionListQuery.search/schema/maxLength") },
  },
  checkoutFieldLengths: {
    doc: "`maxlength` of the hosted checkout's fields: what the API takes for each (the document as typed, punctuation included).",
    values: {
      name: pub(schema("ChargeCustomerInput", "properties/name/maxLength")),
      email: pub(schema("ChargeCustomerInput", "properties/email/maxLength")),
      phone: pub(schema("ChargeCustomerInput", "properties/phone/maxLength")),
      document: pub(schema("UpsertCustomerRequest", "properties/document/maxLength")),
      zipCode: pub(schema("AddressInput", "properties/zipCode/maxLength")),
      street: pub(schema("AddressInput", "properties/street/maxLength")),
      number: pub(schema("AddressInput", "properties/number/maxLength")),
      complement: pub(schema("AddressInput", "properties/complement/maxLength")),
      district: pub(schema("AddressInput", "properties/district/maxLength")),
      city: pub(schema("AddressInput", "properties/city/maxLength")),
    },
  },
};

/** A list of the rules: one exported `as const` array, of integers or of strings (an enumeration). */
export interface List extends Source {
  doc: string;
  of: "integer" | "string";
}

/** Every status of a record, as the dashboard document enumerates `PixService.<record>Status`; `what` names it in the doc. */
const statuses = (record: string, what: string): List => ({
  doc: `Every status of ${what}.`,
  of: "string",
  ...dsh(schema(`PixService.${record}Status`, "enum")),
});

/** An enumeration's values in the words the dashboard and its exports show (`x-labels` beside `enum`). */
export interface Labels extends Source {
  doc: string;
  /** The enumeration's values: every one has a label, and no other. */
  values: List;
}

const statusLabels = (record: string, what: string): Labels => ({
  doc: `Each status of ${what} as a merchant reads it (the dashboard, its CSV exports).`,
  ...dsh(schema(`PixService.${record}Status`, "x-labels")),
  values: statuses(record, what),
});

export const labels: Record<string, Labels> = {
  transactionStatusLabels: statusLabels("Transaction", "a transaction (a Pix charge)"),
  withdrawalStatusLabels: statusLabels("Withdrawal", "a withdrawal"),
};

export const lists: Record<string, List> = {
  webhookRetryScheduleSeconds: {
    doc: "Seconds after a delivery's first attempt at which each attempt is due (the first at once), before jitter.",
    of: "integer",
    ...pub("/x-webhook-delivery/retryScheduleSeconds"),
  },
  transactionStatuses: statuses("Transaction", "a transaction (a Pix charge)"),
  disputeStatuses: statuses("Dispute", "a dispute (MED)"),
  withdrawalStatuses: statuses("Withdrawal", "a withdrawal"),
  refundStatuses: statuses("Refund", "a refund"),
  recurrenceStatuses: statuses("Recurrence", "a recurrence (Pix Automático)"),
  recurringAttemptFailureCodes: {
    doc: "Every reason code the payer's bank may give for a failed attempt of a cycle charge (Pix Automático).",
    of: "string",
    ...dsh(schema("PixService.RecurringAttemptFailureCode", "enum")),
  },
  webhookEventTypes: {
    doc: "Every kind of event a webhook endpoint can receive, in the order the document lists them.",
    of: "string",
    ...dsh(schema("PixAdmin.WebhookEventType", "enum")),
  },
  roles: {
    doc: "Every role of a dashboard user, in the order `x-roles` lists them (who may call what: `canCall` in `dashboard-operations.ts`).",
    of: "string",
    ...dsh(schema("Role", "enum")),
  },
};

/** Single numbers: one exported constant each. */
export const singles: Record<string, Group["values"][string] & { doc: string }> = {
  idempotencyWindowSeconds: {
    doc: "How long an idempotency key replays its first response, in seconds.",
    ...pub("/components/parameters/IdempotencyHeader/x-replay-window-seconds"),
  },
  maxFieldErrors: {
    doc: "The most field errors one response lists.",
    ...pub(schema("ErrorBody", "properties/errors/maxItems")),
  },
  operatorAuthFailuresPerMinute: {
    doc: "Failed operator authentications per minute from one IP address, past which every operator request from it answers 429.",
    ...adm("/x-auth-failures-per-minute"),
  },
  notReadyRetryAfterSeconds: {
    doc: "`Retry-After` of `GET /ready` while the database does not answer, in seconds.",
    ...pub("/paths/~1ready/get/x-retry-after-seconds"),
  },
  serviceUnavailableRetryAfterSeconds: {
    doc: "`Retry-After` of every other `503 SERVICE_UNAVAILABLE`, in seconds: the pool redials at once.",
    ...pub("/x-service-unavailable-retry-after-seconds"),
  },
  stepUpSeconds: {
    doc: "How long a dashboard step-up allows the dangerous operations, in seconds.",
    ...dsh("/paths/~1dashboard~1v1~1session~1step-up/post/x-step-up-seconds"),
  },
  secretOverlapSeconds: {
    doc: "How long a rotated webhook secret keeps signing beside the new one, in seconds.",
    ...adm("/paths/~1admin~1v1~1webhook-endpoints~1{id}~1rotate-secret/post/x-secret-overlap-seconds"),
  },
  webhookResponseBodyBytes: {
    doc: "How many bytes of a receiver's answer a delivery attempt keeps (`responseBody`).",
    ...adm(schema("DeliveryAttempt", "properties/responseBody/maxLength")),
  },
  maxKeyRollGraceSeconds: {
    doc: "The longest a rolled API key's secret before the roll keeps working, in seconds.",
    ...dsh(schema("RollApiKeyRequest", "properties/gracePeriodSeconds/maximum")),
  },
};
