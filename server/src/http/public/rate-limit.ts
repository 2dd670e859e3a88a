import type { Request, RequestHandler } from "express";
import type { RateLimitStore } from "../kit/rate-limit.js";
import type { RateLimits } from "../../domain/core/rate-limits.js";
import { perMinuteLimiter, type TooManyRequestsWriter } from "../kit/rate-limit.js";
import { sendError } from "../errors.js";

const isApi = (req: Request) => req.path.startsWith("/api/");
const isRead = (req: Request) => req.method === "GET" || req.method === "HEAD";
const isWrite = (req: Request) => req.method === "POST" || req.method === "PATCH";
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
  const get = limiter("get", limits.get, isRead);
  const write = limiter("write", limits.write, isWrite);
  const withdrawals = limiter("withdrawals", limits.withdrawals, isWithdrawal);
  // One middleware that hands each request to the budgets it counts against (each also checks
  // that it applies): three middlewares of which two pass every request on cost each request
  // their asynchronous skip.
  return [
    (req, res, next) => {
      if (!isApi(req)) return next();
      if (isRead(req)) return get(req, res, next);
      if (!isWrite(req)) return next();
      if (!isWithdrawal(req)) return write(req, res, next);
      write(req, res, (error?: unknown) => (error ? next(error) : withdrawals(req, res, next)));
    },
  ];
}
