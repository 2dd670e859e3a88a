/**
 * Partner client of the Pix Charging Service: a typed API client, list pagination, idempotency
 * keys and webhook verification.
 *
 * @packageDocumentation
 */

export { createPixClient, type PixClient, type PixClientOptions } from "./client.js";
export { PixApiError } from "./errors.js";
export { newIdempotencyKey } from "./idempotency.js";
export { type ListItem, type ListPath, type ListQuery, type PaginateOptions, paginate } from "./paginate.js";
export type {
  Balance,
  Customer,
  components,
  ErrorBody,
  ErrorCode,
  operations,
  PaymentLink,
  paths,
  Transaction,
  WebhookEvent,
  WebhookEventType,
  Withdrawal,
} from "./types.js";
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
} from "./webhooks.js";
