import { newIdempotencyKey } from "./idempotency.js";

/** How many times a failed idempotent request is sent again, by default: 2 (3 attempts in all). */
export const DEFAULT_MAX_RETRIES = 2;

/** How {@link createPixClient} waits between attempts. All times in milliseconds. */
export interface RetryBackoff {
  /** The wait before the first retry; each next one doubles it, with jitter. Default 500. */
  initialDelayMs?: number;
  /** The longest computed wait between attempts. Default 5 000. */
  maxDelayMs?: number;
  /**
   * The longest `Retry-After` waited for. An answer asking for a longer wait is returned to the
   * caller as it is, without retrying. Default 60 000.
   */
  maxRetryAfterMs?: number;
}

/** A `fetch` as openapi-fetch calls it. */
export type RequestFetch = (input: Request) => Promise<Response>;

const DEFAULT_BACKOFF: Required<RetryBackoff> = { initialDelayMs: 500, maxDelayMs: 5_000, maxRetryAfterMs: 60_000 };

const IDEMPOTENCY_HEADER = "idempotency-key";

/**
 * Whether `request` may be sent again without risk of doing its work twice: a `GET` or `HEAD`, or a
 * `POST`/`PATCH` that carries an `idempotency-key` (the service answers a repeat with the first
 * response instead of acting again).
 */
function isIdempotent(request: Request): boolean {
  if (request.method === "GET" || request.method === "HEAD") return true;
  if (request.method === "POST" || request.method === "PATCH") return request.headers.has(IDEMPOTENCY_HEADER);
  return false;
}

/** Answers worth another attempt: `429 Too Many Requests` and every `5xx`. */
function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** `Retry-After` in milliseconds (whole seconds or an HTTP date), or undefined when absent or unreadable. */
function retryAfterMs(response: Response, now: number): number | undefined {
  const value = response.headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Exponential backoff with jitter: `initial * 2^(retry-1)`, capped, then between half and all of it. */
function backoffMs(retry: number, backoff: Required<RetryBackoff>): number {
  const ceiling = Math.min(backoff.initialDelayMs * 2 ** (retry - 1), backoff.maxDelayMs);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Frees the connection of an answer that is dropped for a retry. */
async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Nothing to free.
  }
}

function checkCount(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new TypeError(`createPixClient: ${name} must be a non-negative integer`);
  }
  return value;
}

/**
 * Wraps `fetch` so that idempotent requests are sent again, up to `maxRetries` more times, after a
 * network error, a `429` or a `5xx`, waiting `Retry-After` when the answer has one and exponential
 * backoff with jitter otherwise. A `POST` without an `idempotency-key` gets a new one first (when
 * retries are on), so every attempt carries the same key and the service does its work once. Other
 * requests (a `PATCH` without a key, `PUT`, `DELETE`) are sent once. Each attempt sends a clone of
 * the request, so the body is sent whole every time. An aborted request is not retried.
 *
 * @param fetch The `fetch` that sends each attempt.
 * @param maxRetries Retries after the first attempt; 0 sends every request once.
 * @param backoff Waits between attempts.
 * @throws TypeError when `maxRetries` or a wait is not a non-negative integer.
 */
export function retryingFetch(fetch: RequestFetch, maxRetries: number, backoff: RetryBackoff = {}): RequestFetch {
  checkCount("maxRetries", maxRetries);
  const waits = { ...DEFAULT_BACKOFF, ...backoff };
  for (const [name, value] of Object.entries(waits)) checkCount(`retryBackoff.${name}`, value);
  if (maxRetries === 0) return fetch;

  return async (request) => {
    if (request.method === "POST" && !request.headers.has(IDEMPOTENCY_HEADER)) {
      request.headers.set(IDEMPOTENCY_HEADER, newIdempotencyKey());
    }
    if (!isIdempotent(request)) return fetch(request);

    for (let retry = 0; ; retry++) {
      const last = retry === maxRetries;
      // The last attempt may consume the request itself; the others send a clone (a body is read once).
      const attempt = last ? request : request.clone();
      let response: Response;
      try {
        response = await fetch(attempt);
      } catch (error) {
        if (last || request.signal.aborted) throw error;
        await sleep(backoffMs(retry + 1, waits), request.signal);
        continue;
      }
      if (last || !isRetryableStatus(response.status)) return response;

      const asked = retryAfterMs(response, Date.now());
      if (asked !== undefined && asked > waits.maxRetryAfterMs) return response;
      await discard(response);
      await sleep(asked ?? backoffMs(retry + 1, waits), request.signal);
    }
  };
}
