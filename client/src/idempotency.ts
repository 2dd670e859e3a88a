import { randomUUID } from "node:crypto";

const PREFIX_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * A new random idempotency key for the `idempotency-key` header of a `POST` that creates or changes
 * something (a charge, a withdrawal, ...): a `crypto.randomUUID()`, optionally after `prefix` and
 * `_`. The key is URL-safe (letters, digits, `-` and `_`). Keep it with the order and reuse it when
 * sending the same request again (even from another process), so a retry after a timeout does the
 * work once: the service answers a repeat with the first response. The client itself gives each
 * `POST` without a key a new one when retries are on, but that key lives only for one call.
 *
 * @example
 * ```ts
 * newIdempotencyKey();          // "0b6f4a52-3c8e-4d0b-9f5e-2a7c1e9d8b10"
 * newIdempotencyKey("order-42"); // "order-42_0b6f4a52-3c8e-4d0b-9f5e-2a7c1e9d8b10"
 * ```
 * @param prefix Optional, 1 to 200 letters, digits, `-` or `_`.
 * @throws TypeError when `prefix` has other characters or is too long.
 */
export function newIdempotencyKey(prefix?: string): string {
  const id = randomUUID();
  if (prefix === undefined || prefix === "") return id;
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new TypeError("newIdempotencyKey: prefix must be 1 to 200 letters, digits, '-' or '_'");
  }
  return `${prefix}_${id}`;
}
