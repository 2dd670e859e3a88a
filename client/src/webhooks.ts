import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { webhookDelivery } from "../../generated/rules.js";
import type { WebhookEvent } from "./types.js";

/**
 * How far, in seconds, a webhook's `webhook-timestamp` may be from now: 5 minutes, the API
 * document's `x-webhook-delivery` `signatureToleranceSeconds`.
 */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS: number = webhookDelivery.signatureToleranceSeconds;

/**
 * A webhook delivery that must not be trusted: a required header is missing, no signature matches
 * the body and secret, the timestamp is outside the tolerance, or the signed body is not an event.
 * Answer it with `400` and do not act on it.
 */
export class WebhookVerificationError extends Error {
  /** @param message Why the delivery was refused. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WebhookVerificationError";
  }
}

/**
 * The request headers of a webhook delivery: Node's `req.headers` (`IncomingHttpHeaders`), a plain
 * object, or a Fetch `Headers`. Names are matched case-insensitively.
 */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** How far the `webhook-timestamp` may be from `now`, either way, in seconds. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time, for tests. Default `new Date()`. */
  now?: Date;
}

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  // A plain object's values are strings or arrays, so a callable `get` means a Fetch `Headers`.
  if (typeof (headers as Headers).get === "function") {
    return (headers as Headers).get(name) ?? undefined;
  }
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    if (Array.isArray(value)) return value.length > 0 ? value.join(" ") : undefined;
    return value;
  }
  return undefined;
}

const encoder = new TextEncoder();

function sameSignature(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Verifies a webhook delivery signed with Standard Webhooks v1 and returns its typed event.
 *
 * Pass the raw request body exactly as received (not re-serialized JSON), the request headers
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`) and the endpoint's `whsec_…` secret. The
 * signature is computed with the `standardwebhooks` package; the timestamp is checked here so the
 * tolerance and the clock can be set.
 *
 * @example
 * ```ts
 * const event = verifyWebhook(rawBody, req.headers, process.env.PIX_WEBHOOK_SECRET!);
 * if (event.type === "transaction.paid") markOrderPaid(event.data.object.metadata);
 * ```
 * @param body The raw body, as a string or bytes (a Node `Buffer` works).
 * @param headers The request headers.
 * @param secret The endpoint's signing secret, `whsec_…`.
 * @param options Timestamp tolerance (default 5 minutes) and the current time.
 * @throws WebhookVerificationError when a header is missing, the timestamp is more than the
 * tolerance from now, no `v1` signature matches, or the body is not a JSON event.
 * @throws TypeError when `secret` is not a valid secret.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const id = readHeader(headers, "webhook-id");
  const timestampHeader = readHeader(headers, "webhook-timestamp");
  const signatureHeader = readHeader(headers, "webhook-signature");
  if (!id || !timestampHeader || !signatureHeader) {
    throw new WebhookVerificationError(
      "Missing required headers: webhook-id, webhook-timestamp and webhook-signature are all required",
    );
  }

  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError("verifyWebhook: toleranceSeconds must be a non-negative number");
  }
  if (!/^\d{1,15}$/.test(timestampHeader.trim())) {
    throw new WebhookVerificationError("Invalid webhook-timestamp header");
  }
  const timestamp = Number(timestampHeader.trim());
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (now - timestamp > tolerance) throw new WebhookVerificationError("Message timestamp too old");
  if (timestamp - now > tolerance) throw new WebhookVerificationError("Message timestamp too new");

  let webhook: Webhook;
  try {
    webhook = new Webhook(secret);
  } catch (cause) {
    throw new TypeError("verifyWebhook: the secret is not a valid whsec_ secret", { cause });
  }
  const payload = typeof body === "string" ? body : new TextDecoder().decode(body);
  // standardwebhooks' own verify() checks the timestamp against the real clock with a fixed 5
  // minutes, so only its signing is used here; the comparison is constant-time.
  const expected = webhook.sign(id, new Date(timestamp * 1000), payload);
  const matches = signatureHeader
    .split(" ")
    .map((candidate) => candidate.trim().replace(/,$/, ""))
    .filter((candidate) => candidate.startsWith("v1,"))
    .some((candidate) => sameSignature(candidate, expected));
  if (!matches) throw new WebhookVerificationError("No matching signature found");

  let event: unknown;
  try {
    event = JSON.parse(payload);
  } catch (cause) {
    throw new WebhookVerificationError("The signed body is not JSON", { cause });
  }
  if (typeof event !== "object" || event === null || typeof (event as { type?: unknown }).type !== "string") {
    throw new WebhookVerificationError("The signed body is not a webhook event");
  }
  return event as WebhookEvent;
}

/** Options of {@link signWebhookForTest}. */
export interface SignWebhookForTestOptions {
  /** The event to deliver: an object (sent as `JSON.stringify(payload)`) or the exact body text. */
  payload: string | object;
  /** The endpoint's signing secret, `whsec_` followed by base64. */
  secret: string;
  /** The `webhook-id`. Default: the payload's `id` when it has a string one, else a new `msg_…` id. */
  id?: string;
  /** The `webhook-timestamp`, as a `Date` or whole seconds since the epoch. Default: now. */
  timestamp?: Date | number;
}

/** A delivery signed by {@link signWebhookForTest}: the body to send and its headers. */
export interface SignedWebhook {
  /** The request body, exactly as signed. */
  body: string;
  /** `content-type`, `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,<base64>`). */
  headers: {
    "content-type": "application/json";
    "webhook-id": string;
    "webhook-timestamp": string;
    "webhook-signature": string;
  };
}

const SECRET_PREFIX = "whsec_";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Signs a webhook body as the service does (Standard Webhooks v1), for testing your receiver
 * without a real delivery: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64-decoded part of the `whsec_`
 * secret. {@link verifyWebhook} accepts what it returns (with the same secret, within the tolerance).
 *
 * @example
 * ```ts
 * const { body, headers } = signWebhookForTest({ payload: event, secret: process.env.PIX_WEBHOOK_SECRET! });
 * await fetch("http://127.0.0.1:3000/webhooks/pix", { method: "POST", headers, body });
 * ```
 * @throws TypeError when `secret` is not `whsec_` followed by base64, `id` is empty, or
 * `timestamp` is not a valid time.
 */
export function signWebhookForTest(options: SignWebhookForTestOptions): SignedWebhook {
  const { payload, secret } = options;
  const encoded =
    typeof secret === "string" && secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : "";
  if (encoded === "" || !BASE64.test(encoded)) {
    throw new TypeError("signWebhookForTest: secret must be whsec_ followed by base64");
  }
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  const payloadId = typeof payload === "object" && payload !== null ? (payload as { id?: unknown }).id : undefined;
  const id = options.id ?? (typeof payloadId === "string" && payloadId !== "" ? payloadId : `msg_${randomUUID()}`);
  if (typeof id !== "string" || id === "") throw new TypeError("signWebhookForTest: id must not be empty");
  const at = options.timestamp ?? new Date();
  const seconds = at instanceof Date ? Math.floor(at.getTime() / 1000) : at;
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new TypeError("signWebhookForTest: timestamp must be a Date or whole seconds since the epoch");
  }
  const signature = createHmac("sha256", Buffer.from(encoded, "base64"))
    .update(`${id}.${seconds}.${body}`)
    .digest("base64");
  return {
    body,
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(seconds),
      "webhook-signature": `v1,${signature}`,
    },
  };
}
