import type { Request, RequestHandler, Response } from "express";
import { type AugmentedRequest, type Store as RateLimitStore, rateLimit } from "express-rate-limit";
import { sendError } from "./errors.js";

/** Requests per minute per IP address. */
export interface RateLimits {
  get: number;
  write: number;
  withdrawals: number;
}

export const defaultRateLimits: RateLimits = { get: 120, write: 60, withdrawals: 20 };

/** Writes the answer to a request over its budget; `Retry-After` is already set. */
type TooManyRequestsWriter = (req: Request, res: Response, retryAfterSeconds: number) => void;

export interface PerMinuteLimit {
  /** Names the counters in a shared store: budgets with different names count apart. */
  name: string;
  limit: number;
  /** Which requests count; the others pass untouched. */
  applies: (req: Request) => boolean;
  /** Shared counters (several processes); default: in process memory. */
  makeStore?: ((name: string) => RateLimitStore) | undefined;
  /** The 429: the API writes the seed's error body, the checkout an HTML page. */
  tooMany: TooManyRequestsWriter;
}

/**
 * One per-IP budget over a one-minute window, for the API and the hosted checkout alike.
 * Over budget: status 429, `Retry-After` in whole seconds, then `tooMany` writes the body.
 */
export function perMinuteLimiter(options: PerMinuteLimit): RequestHandler {
  const { makeStore } = options;
  return rateLimit({
    windowMs: 60_000,
    limit: options.limit,
    standardHeaders: "draft-7",
    legacyHeaders: false,
    skip: (req) => !options.applies(req),
    ...(makeStore ? { store: makeStore(options.name) } : {}),
    handler: (req, res) => {
      const reset = (req as AugmentedRequest).rateLimit?.resetTime?.getTime() ?? Date.now() + 60_000;
      const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
      res.setHeader("Retry-After", String(seconds));
      res.status(429);
      options.tooMany(req, res, seconds);
    },
  });
}

const isApi = (req: Request) => req.path.startsWith("/api/");
const isWithdrawal = (req: Request) => req.method === "POST" && /^\/api\/v1\/withdrawals$/.test(req.path);

const apiTooMany: TooManyRequestsWriter = (req, res, seconds) =>
  sendError(req, res, "RATE_LIMITED", `Muitas requisições. Aguarde ${seconds} segundos e tente novamente.`);

/**
 * Three per-IP budgets of the API: `GET` routes; `POST`/`PATCH` routes; and `POST
 * /api/v1/withdrawals` on its own (which also counts as a `POST`). Over a budget: `429
 * RATE_LIMITED` with `Retry-After`. `makeStore` lets several processes share counters (the
 * PostgreSQL store provides one).
 */
export function rateLimiters(limits: RateLimits, makeStore?: (name: string) => RateLimitStore): RequestHandler[] {
  const limiter = (name: string, limit: number, applies: (req: Request) => boolean) =>
    perMinuteLimiter({ name, limit, applies: (req) => isApi(req) && applies(req), makeStore, tooMany: apiTooMany });
  return [
    limiter("get", limits.get, (req) => req.method === "GET" || req.method === "HEAD"),
    limiter("write", limits.write, (req) => req.method === "POST" || req.method === "PATCH"),
    limiter("withdrawals", limits.withdrawals, isWithdrawal),
  ];
}
