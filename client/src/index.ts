/**
 * Partner client of the Pix Charging Service: a typed API client with retries, list pagination,
 * idempotency keys, webhook verification and test signing; and a typed client of the merchant
 * dashboard API that keeps a person's session.
 *
 * @packageDocumentation
 */

export {
  createPixClient,
  type PixClient,
  type PixClientOptions,
  type PixSuccess,
  type PixThrowingClient,
} from "./client.js";
export {
  createDashboardClient,
  type DashboardClient,
  type DashboardClientOptions,
  type DashboardPaths,
  type DashboardSessionState,
  dashboardSessionMiddleware,
} from "./dashboard.js";
export { PixApiError } from "./errors.js";
export { newIdempotencyKey } from "./idempotency.js";
export { DEFAULT_MAX_RETRIES, type RetryBackoff } from "./retry.js";
export { type ListItem, type ListPath, type ListQuery, type PaginateOptions, paginate } from "./paginate.js";
export type {
  AmountDue,
  Balance,
  CreateDueDateChargeRequest,
  Customer,
  components,
  DueDateCharge,
  ErrorBody,
  ErrorCode,
  FieldError,
  operations,
  PaymentLink,
  paths,
  Recurrence,
  RecurringChargeAttempt,
  Refund,
  Transaction,
  WebhookEvent,
  WebhookEventType,
  WebhookTestEvent,
  Withdrawal,
} from "./types.js";
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  type SignedWebhook,
  type SignWebhookForTestOptions,
  signWebhookForTest,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
} from "./webhooks.js";
