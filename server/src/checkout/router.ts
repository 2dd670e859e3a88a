import express, { type Router } from "express";
import type { RateLimitStore } from "../http/kit/rate-limit.js";
import type { Logger } from "pino";
import type { CheckoutUseCases } from "../domain/payments/index.js";
import { defaultRateLimits } from "../domain/core/rate-limits.js";
import { payerReader } from "./payer.js";
import { CheckoutAssets } from "./routes/assets.js";
import { chargeRoutes } from "./routes/charge.js";
import { CheckoutContext } from "./routes/context.js";
import { checkoutFailure } from "./routes/failure.js";
import { formRoutes } from "./routes/form.js";
import { recurrenceRoutes } from "./routes/recurrence.js";
import { dueDateChargeRoutes } from "./routes/due-date.js";
import { type CheckoutRateLimits, checkoutLimiters } from "./routes/limits.js";
import { CheckoutCsrf, checkoutSecurityHeaders } from "./security.js";

export interface CheckoutOptions {
  /** Default: the API's budgets (120 GET and 60 POST per minute per IP); "off" for local test runs. */
  rateLimits?: CheckoutRateLimits | "off";
  /** Shared rate-limit counters (several processes); default: in process memory. */
  rateLimitStore?: ((name: string) => RateLimitStore) | undefined;
  /** Key of the CSRF tokens; processes serving the same checkout must share it. Default: random. */
  csrfSecret?: string | Buffer;
  /** How often the payment page asks whether the Pix was paid. Default 3000 ms. */
  pollIntervalMs?: number;
}

/** What the checkout needs from the app: its use cases, a logger, and the published document. */
export interface CheckoutNeeds {
  checkout: CheckoutUseCases;
  logger: Logger;
  /** The public OpenAPI document, whose `ChargeCustomerInput` schema checks the payer. */
  documentPath: string;
}

/**
 * The hosted checkout, mounted at the app's root before the API:
 * `GET /checkout/assets/…` (routes/assets.ts), the payer's form (routes/form.ts) and the charge's
 * pages (routes/charge.ts). Links are built relative to this server, whatever `publicBaseUrl` says.
 */
export function checkoutRouter(needs: CheckoutNeeds, options: CheckoutOptions = {}): Router {
  const assets = new CheckoutAssets();
  const ctx = new CheckoutContext(
    needs.checkout,
    payerReader(needs.documentPath),
    new CheckoutCsrf(options.csrfSecret),
    assets,
    options.pollIntervalMs ?? 3000,
  );

  const pages = express.Router({ caseSensitive: true, strict: true });
  pages.use(checkoutSecurityHeaders);
  pages.get(
    "/assets/:file",
    assets.route((_req, res) => ctx.notFoundPage(res)),
  );
  if (options.rateLimits !== "off") {
    for (const limiter of checkoutLimiters(ctx, options.rateLimits ?? defaultRateLimits, options.rateLimitStore)) {
      pages.use(limiter);
    }
  }
  recurrenceRoutes(pages, ctx);
  dueDateChargeRoutes(pages, ctx);
  formRoutes(pages, ctx);
  chargeRoutes(pages, ctx);
  pages.use((_req, res) => ctx.notFoundPage(res));
  pages.use(checkoutFailure(ctx, needs.logger));

  const router = express.Router({ caseSensitive: true, strict: true });
  router.use("/checkout", pages);
  return router;
}
