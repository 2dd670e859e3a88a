import type { Request, RequestHandler } from "express";
import { type AugmentedRequest, type Store as RateLimitStore, rateLimit } from "express-rate-limit";
import { sendError } from "./errors.js";

/** Requests per minute per IP address (seed §8). */
export interface RateLimits {
  get: number;
  write: number;
  withdrawals: number;
}

export const defaultRateLimits: RateLimits = { get: 120, write: 60, withdrawals: 20 };

const isWithdrawal = (req: Request) => req.method === "POST" && /^\/api\/v1\/withdrawals$/.test(req.path);

/**
 * Three per-IP budgets over a one-minute window: `GET` routes; `POST`/`PATCH` routes; and
 * `POST /api/v1/withdrawals` on its own (which also counts as a `POST`). Over a budget: `429
 * RATE_LIMITED` with `Retry-After` in whole seconds. `makeStore` lets several processes share
 * counters (the PostgreSQL store provides one).
 */
export function rateLimiters(limits: RateLimits, makeStore?: (name: string) => RateLimitStore): RequestHandler[] {
  const limiter = (name: string, limit: number, applies: (req: Request) => boolean) =>
    rateLimit({
      windowMs: 60_000,
      limit,
      standardHeaders: "draft-7",
      legacyHeaders: false,
      skip: (req) => !req.path.startsWith("/api/") || !applies(req),
      ...(makeStore ? { store: makeStore(name) } : {}),
      handler: (req, res) => {
        const reset = (req as AugmentedRequest).rateLimit?.resetTime?.getTime() ?? Date.now() + 60_000;
        const seconds = Math.max(1, Math.ceil((reset - Date.now()) / 1000));
        res.setHeader("Retry-After", String(seconds));
        sendError(req, res, "RATE_LIMITED", `Muitas requisições. Aguarde ${seconds} segundos e tente novamente.`);
      },
    });
  return [
    limiter("get", limits.get, (req) => req.method === "GET" || req.method === "HEAD"),
    limiter("write", limits.write, (req) => req.method === "POST" || req.method === "PATCH"),
    limiter("withdrawals", limits.withdrawals, isWithdrawal),
  ];
}
