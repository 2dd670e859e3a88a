import type { Request, RequestHandler, Response } from "express";
import { ipKeyGenerator } from "express-rate-limit";

// The per-IP, per-minute budget of the web layer, used alike by the API (`http/rate-limit.ts`) and
// the hosted checkout (`checkout/routes/limits.ts`). The middleware is ours, the answer
// express-rate-limit gave (its draft-7 headers, `Retry-After`, IPv6 clients counted by /56 with its
// `ipKeyGenerator`): its generic path (an asynchronous middleware awaiting its skip, key, count and
// limit, per-request validations and debug arguments) was 12–17 % of the deployed list's
// throughput (docs/decisions/0063-rate-limits-counted-by-our-own-middleware.md).

/** A client's count in its window, as a store answers it. */
export interface RateLimitCount {
  totalHits: number;
  /** When the window ends (unknown: a whole window from now). */
  resetTime: Date | undefined;
}

/**
 * Where a budget's counts are kept: in this process (`processCounters`, the default) or shared
 * by several processes (`sharedRateLimitStore`, the PostgreSQL store's counters). A count the
 * store can answer at once is answered as a value, not a promise: the request goes on without a
 * turn of the event loop.
 */
export interface RateLimitStore {
  /** Told the budget once, when its limiter is made. */
  init?(options: { windowMs: number; limit: number }): void;
  /** Counts one hit of `key` and answers its count. */
  increment(key: string): RateLimitCount | Promise<RateLimitCount>;
  /** Takes one hit of `key` back (a request the budget does not keep). */
  decrement(key: string): void | Promise<void>;
  /** Stops its timers (tests). */
  shutdown?(): void;
}

/**
 * Counts in this process's memory: one window per key, opened by its first hit, and the windows
 * that ended dropped once a window (a client that stopped calling costs nothing after that).
 */
export function processCounters(): RateLimitStore {
  const windows = new Map<string, { hits: number; resetAt: number; resetTime: Date }>();
  let windowMs = 60_000;
  let sweeper: NodeJS.Timeout | undefined;
  return {
    init(options) {
      windowMs = options.windowMs;
      sweeper = setInterval(() => {
        const now = Date.now();
        for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
      }, windowMs);
      sweeper.unref();
    },
    increment(key) {
      const now = Date.now();
      let window = windows.get(key);
      if (!window || window.resetAt <= now) {
        window = { hits: 0, resetAt: now + windowMs, resetTime: new Date(now + windowMs) };
        windows.set(key, window);
      }
      window.hits += 1;
      return { totalHits: window.hits, resetTime: window.resetTime };
    },
    decrement(key) {
      const window = windows.get(key);
      if (window && window.hits > 0) window.hits -= 1;
    },
    shutdown() {
      if (sweeper) clearInterval(sweeper);
    },
  };
}

/** Writes the answer to a request over its budget; `Retry-After` is already set. */
export type TooManyRequestsWriter = (req: Request, res: Response, retryAfterSeconds: number) => void;

export interface PerMinuteLimit {
  /** Names the counters in a shared store: budgets with different names count apart. */
  name: string;
  limit: number;
  /** Which requests count; the others pass untouched. */
  applies: (req: Request) => boolean;
  /**
   * Of the requests that apply, which stay counted once answered (default: all); the others are
   * taken back, so a budget can count failures only. Each request is counted before it is
   * answered, so a spent budget refuses every request of the address, whatever it would answer.
   */
  keepsCount?: ((req: Request, res: Response) => boolean) | undefined;
  /** Shared counters (several processes); default: in process memory. */
  makeStore?: ((name: string) => RateLimitStore) | undefined;
  /** The 429: the API writes the seed's error body, the checkout an HTML page. */
  tooMany: TooManyRequestsWriter;
  /** The window; default one minute. */
  windowMs?: number | undefined;
  /** Whose count a request adds to; default its IP address (the dashboard's log-in counts per e-mail too). */
  key?: ((req: Request, res: Response) => string) | undefined;
}

/** A client's address as its budget's key: an IPv6 client by its /56 network, as express-rate-limit counts it. */
const clientKey = (req: Request): string => ipKeyGenerator(req.ip ?? "");

/**
 * One per-IP budget over a one-minute window, for the API and the hosted checkout alike. Every
 * request it applies to is answered with `RateLimit-Policy: <limit>;w=<seconds>` and `RateLimit:
 * limit=…, remaining=…, reset=…` (the IETF draft 7 the documents declare). Over budget: status 429,
 * `Retry-After` in whole seconds, then `tooMany` writes the body. A store that fails passes its
 * error on (the error handler's 503).
 */
export function perMinuteLimiter(options: PerMinuteLimit): RequestHandler {
  const { limit, keepsCount, applies, tooMany } = options;
  const windowMs = options.windowMs ?? 60_000;
  const keyOf = options.key ?? clientKey;
  const store = options.makeStore?.(options.name) ?? processCounters();
  store.init?.({ windowMs, limit });
  const policy = `${limit};w=${Math.ceil(windowMs / 1000)}`;

  function decide(req: Request, res: Response, next: (error?: unknown) => void, key: string, count: RateLimitCount) {
    const resetAt = count.resetTime?.getTime() ?? Date.now() + windowMs;
    const seconds = Math.max(0, Math.ceil((resetAt - Date.now()) / 1000));
    if (!res.headersSent) {
      res.setHeader("RateLimit-Policy", policy);
      res.setHeader("RateLimit", `limit=${limit}, remaining=${Math.max(limit - count.totalHits, 0)}, reset=${seconds}`);
    }
    if (keepsCount) {
      res.once("finish", () => {
        // A window that ended meanwhile is a new one: nothing of it to take back.
        if (keepsCount(req, res) || Date.now() >= resetAt) return;
        // A count not taken back leaves the client one hit closer to its budget, no more.
        Promise.resolve(store.decrement(key)).catch(() => undefined);
      });
    }
    if (count.totalHits > limit) {
      const retryAfter = Math.max(1, seconds);
      res.setHeader("Retry-After", String(retryAfter));
      res.status(429);
      tooMany(req, res, retryAfter);
      return;
    }
    next();
  }

  return (req, res, next) => {
    if (!applies(req)) return next();
    const key = keyOf(req, res);
    let counted: RateLimitCount | Promise<RateLimitCount>;
    try {
      counted = store.increment(key);
    } catch (error) {
      return next(error);
    }
    if (counted instanceof Promise) counted.then((count) => decide(req, res, next, key, count)).catch(next);
    else decide(req, res, next, key, counted);
  };
}
