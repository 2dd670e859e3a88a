import { randomUUID } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import express, { type Express, type Request, type RequestHandler, type Response } from "express";
import type { RateLimitStore } from "./kit/rate-limit.js";
import type { Logger } from "pino";
import { type CheckoutOptions, checkoutRouter } from "../checkout/router.js";
import type { Domain } from "../domain/service.js";
import { defaultDomainConfig } from "../domain/deps.js";
import { operationTable } from "../../../generated/operations.js";
import type { ManualClock } from "../domain/ports/clock.js";
import { mountAdmin } from "./operator/handlers.js";
import { mountDashboard } from "./dashboard/mount.js";
import { authenticate, authenticateBeforeErrors } from "./public/auth.js";
import { errorMiddleware, routeNotFoundMessage, sendError } from "./errors.js";
import { publicHandlers } from "./public/handlers.js";
import { fastJson } from "./json.js";
import { refuseUnsafeInput } from "./control-chars.js";
import { jsonBodies, requestValidation } from "./request-validation.js";
import { methodsFor, publicOperations } from "./operations.js";
import { defaultDocsDirectory, mountDocs } from "./docs.js";
import { defaultPanelDirectory, mountPanel } from "./panel.js";
import { mountProbes } from "./probes.js";
import type { RateLimits } from "../domain/core/rate-limits.js";
import { rateLimiters } from "./public/rate-limit.js";
import { requestLog } from "./request-log.js";
import { requestCapture } from "./request-capture.js";
import { operationDispatcher, steps } from "./router.js";
// The request state every step parks on `res.locals`, typed once (a declaration, nothing at run time).
import type {} from "./locals.js";
import { securityHeaders } from "./security-headers.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const publicDocumentPath = join(root, "generated/openapi.yaml");

export interface AppOptions {
  domain: Domain;
  logger: Logger;
  /** Where the service is published; when it is https, responses carry Strict-Transport-Security. */
  publicBaseUrl?: string;
  /** Per-minute budgets, or "off" (local test runs only). */
  rateLimits: RateLimits | "off";
  rateLimitStore?: (name: string) => RateLimitStore;
  /** Express `trust proxy`: false (default), a hop count, or subnets. */
  trustProxy?: boolean | number | string | string[];
  /** The hosted checkout; by default it shares the API's rate limits and counter store. */
  checkout?: CheckoutOptions;
  /** The operator API; omitted = off (404). */
  admin?: { token: string | undefined; manualClock: ManualClock | null };
  /** The built dashboard web app served at /painel (default: dist/painel, when built). */
  panelDirectory?: string | null;
  /** The built documentation site served at /docs (default: dist/docs, when built). */
  docsDirectory?: string | null;
  /** Whether the public API's requests are noted for the request logs (PIX_REQUEST_LOGS; default on). */
  requestLogs?: boolean;
}

/** The reference server: Express 5, validated by the generated OpenAPI document. */
export function createApp(options: AppOptions): Express {
  const { domain } = options;
  const { logger } = options;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", options.trustProxy ?? false);
  app.set("query parser", "simple");
  // No ETag: API answers are `Cache-Control: no-store`, and hashing every body cost a few percent
  // of a list's time. Static files (docs assets, the documents) keep theirs (serve-static's own).
  app.set("etag", false);
  // One spelling per route: `/API/V1/BALANCE` and `/api/v1/balance/` are unknown paths (404), so
  // the auth matcher, the rate-limit skip and the validator (all exact, case-sensitive) agree.
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  fastJson(app);

  // What every request takes first (run as the first steps of the one layer below).
  const everyRequest: RequestHandler[] = [
    (req, res, next) => {
      const incoming = req.headers["x-request-id"];
      const id = typeof incoming === "string" && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
      res.setHeader("x-request-id", id);
      res.locals.requestId = id;
      // Express 5's `req.query` is a getter that parses the query string again at every read (the
      // input check, the request check and the request logs read it four times): parsed once here
      // and kept on the request, as the request check's coerced query is (request-validation.ts).
      Object.defineProperty(req, "query", { value: req.query, writable: true, configurable: true, enumerable: true });
      next();
    },
    securityHeaders({ publicBaseUrl: options.publicBaseUrl }),
    requestLog(logger, options.requestLogs === false ? undefined : requestCapture(domain)),
  ];

  // Everything outside the public API (probes, documents, docs, the operator API, the checkout)
  // sits in one router that an `/api/` request skips in one step instead of being tried against
  // each of its routes.
  const site = express.Router({ caseSensitive: true, strict: true });
  mountProbes(site, domain.health.ready);
  site.get("/openapi.yaml", (_req, res) => {
    res.type("application/yaml").sendFile(publicDocumentPath);
  });
  site.get("/admin-openapi.yaml", (_req, res) => {
    res.type("application/yaml").sendFile(join(dirname(publicDocumentPath), "admin-openapi.yaml"));
  });
  site.get("/dashboard-openapi.yaml", (_req, res) => {
    res.type("application/yaml").sendFile(join(dirname(publicDocumentPath), "dashboard-openapi.yaml"));
  });
  mountDocs(
    site,
    options.docsDirectory === undefined ? defaultDocsDirectory() : options.docsDirectory,
    dirname(publicDocumentPath),
  );
  mountAdmin(site, domain, {
    token: options.admin?.token,
    manualClock: options.admin?.manualClock ?? null,
    limitFailedAuthentications: options.rateLimits !== "off",
    rateLimitStore: options.rateLimitStore,
  });
  mountDashboard(site, domain, {
    publicBaseUrl: options.publicBaseUrl ?? defaultDomainConfig.publicBaseUrl,
    rateLimits: options.rateLimits,
    rateLimitStore: options.rateLimitStore,
  });
  mountPanel(site, options.panelDirectory === undefined ? defaultPanelDirectory() : options.panelDirectory);
  site.use(
    checkoutRouter(
      { checkout: domain.checkout, logger, documentPath: publicDocumentPath },
      {
        rateLimits: options.rateLimits,
        rateLimitStore: options.rateLimitStore,
        ...options.checkout,
      },
    ),
  );
  // One Express layer runs every request's steps, then the site's or the public API's
  // (`steps`: the router's matching per layer was a sixth of a request's allocations).
  app.use(
    steps([
      ...everyRequest,
      // A request outside `/api/` that no route of the site answers is an unknown path (404) or
      // method (405) at once: the API's body parsing and input checks are not for it, and would
      // answer 400 where the contract declares none (`GET /ready/?a=%00`).
      (req, res, next) => {
        if (req.path.startsWith("/api/")) return next();
        site(req, res, (err?: unknown) => (err && err !== "router" ? next(err) : unmatched(req, res)));
      },
      ...(options.rateLimits === "off" ? [] : rateLimiters(options.rateLimits, options.rateLimitStore)),
      // The key first: a caller without a valid key learns nothing about its body (401, not 400/413).
      authenticate(domain),
      jsonBodies(),
      refuseUnsafeInput,
      requestValidation({
        load: async () => (await import("../../../generated/request-validators.js")).requestValidators,
        matcher: publicOperations,
        prefix: "/api/",
      }),
      operationDispatcher(operationTable, publicHandlers(domain), (res) => res.locals.context),
    ]),
  );

  app.use(unmatched);
  app.use(authenticateBeforeErrors(domain));
  app.use(errorMiddleware(logger));
  return app;
}

/** A request no route answers: `404 NOT_FOUND`, or `405` with `Allow` when the path has other methods. */
function unmatched(req: Request, res: Response): void {
  const allowed = methodsFor(req.path);
  if (allowed.length === 0) return sendError(req, res, "NOT_FOUND", routeNotFoundMessage(req));
  res.setHeader("Allow", allowed.join(", "));
  sendError(req, res, "METHOD_NOT_ALLOWED");
}
