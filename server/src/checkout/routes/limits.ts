import type { Request, RequestHandler } from "express";
import type { RateLimitStore } from "../../http/kit/rate-limit.js";
import type { RateLimits } from "../../domain/core/rate-limits.js";
import { perMinuteLimiter } from "../../http/kit/rate-limit.js";
import { renderMessagePage } from "../pages/message.js";
import type { CheckoutContext } from "./context.js";

/** Per-minute, per-IP budgets of the checkout pages: `get` for GET/HEAD, `write` for POST. */
export type CheckoutRateLimits = Pick<RateLimits, "get" | "write">;

/**
 * The API's per-IP budgets, counted apart from the API's; over budget: 429 with
 * `Retry-After` and a page that says how long to wait.
 */
export function checkoutLimiters(
  ctx: CheckoutContext,
  limits: CheckoutRateLimits,
  makeStore: ((name: string) => RateLimitStore) | undefined,
): RequestHandler[] {
  const limiter = (name: string, limit: number, methods: string[]) =>
    perMinuteLimiter({
      name: `checkout-${name}`,
      limit,
      applies: (req: Request) => methods.includes(req.method),
      makeStore,
      tooMany: (_req, res, seconds) =>
        ctx.send(
          res,
          429,
          renderMessagePage(ctx.frame(res), {
            title: "Muitas tentativas",
            text: `Aguarde ${seconds} segundos e tente novamente.`,
          }),
        ),
    });
  return [limiter("get", limits.get, ["GET", "HEAD"]), limiter("write", limits.write, ["POST"])];
}
