import type { Request, RequestHandler } from "express";
import type { Store as RateLimitStore } from "express-rate-limit";
import type { RateLimits } from "../domain/rate-limits.js";
import { perMinuteLimiter, type TooManyRequestsWriter } from "../web/rate-limit.js";
import { sendError } from "./errors.js";

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
