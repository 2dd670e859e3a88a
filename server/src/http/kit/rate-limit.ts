import type { Request, RequestHandler, Response } from "express";
import { type AugmentedRequest, type Store as RateLimitStore, rateLimit } from "express-rate-limit";

// The per-IP, per-minute budget of the web layer, used alike by the API (`http/rate-limit.ts`) and
// the hosted checkout (`checkout/routes/limits.ts`).

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

/**
 * One per-IP budget over a one-minute window, for the API and the hosted checkout alike.
 * Over budget: status 429, `Retry-After` in whole seconds, then `tooMany` writes the body.
 */
export function perMinuteLimiter(options: PerMinuteLimit): RequestHandler {
  const { makeStore, keepsCount, key } = options;
  const windowMs = options.windowMs ?? 60_000;
  return rateLimit({
    windowMs,
    limit: options.limit,
    standardHeaders: "draft-7",
    legacyHeaders: false,
    // Its check that a limiter is not made inside a request handler reads a stack trace, and with
    // `--enable-source-maps` (npm start) the first one parses the bundle's whole source map: a
    // seventh of the start-up. Every limiter here is made when the app is, never in a handler.
    validate: { creationStack: false },
    skip: (req) => !options.applies(req),
    ...(keepsCount
      ? { skipSuccessfulRequests: true, requestWasSuccessful: (req: Request, res: Response) => !keepsCount(req, res) }
      : {}),
    ...(makeStore ? { store: makeStore(options.name) } : {}),
    ...(key ? { keyGenerator: key } : {}),
    handler: (req, res) => {
      const reset = (req as AugmentedRequest).rateLimit?.resetTime?.getTime() ?? Date.now() + windowMs;
      const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
      res.setHeader("Retry-After", String(seconds));
      res.status(429);
      options.tooMany(req, res, seconds);
    },
  });
}
