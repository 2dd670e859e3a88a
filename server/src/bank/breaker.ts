/**
 * The circuit breaker in front of the bank (issue 35 §6, decision record 0051: "the bank down
 * answers 503 with Retry-After, not a pile of open connections"). After `failures` consecutive
 * calls that found the bank down (`BankDownError`: refused or reset connection, TLS failure, 5xx,
 * no token), it opens for `openMs`: every call fails at once without reaching the bank. Then one
 * call goes through as a probe (the others still fail at once): an answer closes it, another
 * failure opens it again. A slow bank (no answer in time) neither opens nor closes it: its
 * outcome is unknown, and its calls are bounded by their own wait.
 *
 * Small and synchronous on purpose: the libraries (opossum) count failure rates over rolling
 * windows and wrap timeouts of their own; this is one counter and one instant per connection.
 */
import { BankDownError } from "../domain/ports/pix-bank.js";

export interface BreakerOptions {
  /** Consecutive down failures that open it (default 3). */
  failures?: number;
  /** How long it stays open before one probe goes through (default 5 000 ms). */
  openMs?: number;
}

export interface Breaker {
  /** Lets a call through, or throws `BankDownError` (nothing sent) while open or while a probe is out. */
  admit(): void;
  /** The bank answered (any status below 500). */
  answered(): void;
  /** The call found the bank down. */
  down(): void;
  /** The call ended without a verdict (no answer in time): a probe's slot is freed. */
  undecided(): void;
  /** Seconds until a call goes through again; null when one would now. */
  downForSeconds(): number | null;
  /** Seconds a client is told to wait after a failure that just happened. */
  readonly retryAfterSeconds: number;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export function breaker(options: BreakerOptions = {}, now: () => number = Date.now): Breaker {
  const threshold = options.failures ?? 3;
  const openMs = options.openMs ?? 5_000;
  let failures = 0;
  let openUntil = Number.NEGATIVE_INFINITY;
  let probing = false;
  const refuse = (retryAfterSeconds: number) =>
    new BankDownError("o banco está fora do ar (chamadas suspensas por alguns segundos)", false, retryAfterSeconds);
  return {
    retryAfterSeconds: seconds(openMs),
    admit() {
      if (failures < threshold) return;
      const left = openUntil - now();
      if (left > 0) throw refuse(seconds(left));
      if (probing) throw refuse(1);
      probing = true;
    },
    answered() {
      failures = 0;
      probing = false;
      openUntil = Number.NEGATIVE_INFINITY;
    },
    down() {
      failures += 1;
      probing = false;
      if (failures >= threshold) openUntil = now() + openMs;
    },
    undecided() {
      probing = false;
    },
    downForSeconds() {
      if (failures < threshold) return null;
      const left = openUntil - now();
      return left > 0 ? seconds(left) : null;
    },
  };
}
