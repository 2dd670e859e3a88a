import { timingSafeEqual } from "node:crypto";
import express, { type ErrorRequestHandler, type IRouter, type Request, type RequestHandler } from "express";
import type { RateLimitStore } from "../kit/rate-limit.js";
import { type OperationId, operationTable } from "../../../../generated/dashboard-operations.js";
import type { RateLimits } from "../../domain/core/rate-limits.js";
import type { Domain } from "../../domain/service.js";
import { normaliseEmail, sessionLifetime } from "../../domain/identity/index.js";
import type { ClientInfo } from "../../domain/identity/model.js";
import { DomainError } from "../../domain/core/errors.js";
import { WrongCurrentPassword } from "../../domain/identity/index.js";
import { failedLogIns as failedLogInRules } from "../../domain/core/policy.js";
import { perMinuteLimiter } from "../kit/rate-limit.js";
import { refuseUnsafeInput } from "../control-chars.js";
import { dashboardHandlers } from "./handlers.js";
import type { DashboardContext, OpenContext, SessionContext, SessionCookie } from "./context.js";
import { routeNotFoundMessage, sendError } from "../errors.js";
import { operationMatcher } from "../operations.js";
import { jsonBodies, requestValidation } from "../request-validation.js";
import { bindOperations } from "../router.js";

// The merchant dashboard API under /dashboard/v1 (issue 25), a third document through the same
// request check as the others, in a router of its own. A request meets, in this order: the per-IP
// budgets; for a change, the `Origin` check; the session (401) and, for a change, its CSRF token
// (403), before its body is read; the request check; for log-in, the failed-log-in budgets.
// docs/decisions/0020-dashboard-sessions-and-csrf.md. The route is matched once, by
// `authenticateSession`, and the handler of an operation with `x-roles` is given a
// `SessionContext` (docs/decisions/0047-request-state-typed-once-and-the-session-proved-by-type.md).

export interface DashboardOptions {
  /** PUBLIC_BASE_URL: its origin is the only one a change may come from. */
  publicBaseUrl: string;
  /** The per-IP request budgets, or "off" (local test runs). The failed-log-in budgets are always on. */
  rateLimits: RateLimits | "off";
  rateLimitStore?: ((name: string) => RateLimitStore) | undefined;
}

const cookieName = "__Host-pix_session";

/**
 * Always `Secure`: a `__Host-` cookie without it is refused by browsers and curl alike, on http as
 * on https. On plain http they keep it only from `localhost`/loopback, which they count as secure.
 */
function sessionCookie(maxAgeSeconds: number): SessionCookie {
  const attributes = "Path=/; HttpOnly; Secure; SameSite=Strict";
  return {
    name: cookieName,
    set: (token) => `${cookieName}=${token}; ${attributes}; Max-Age=${maxAgeSeconds}`,
    clear: () => `${cookieName}=; ${attributes}; Max-Age=0`,
  };
}

/** The value of one cookie of the request, or null. */
function readCookie(req: Request, name: string): string | null {
  for (const pair of (req.headers.cookie ?? "").split(";")) {
    const at = pair.indexOf("=");
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return null;
}

const sameText = (a: string, b: string) => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Failed log-ins: per e-mail address and per IP address, within a window (spec/dashboard/sessions.tsp, `x-failed-log-ins`). */
export const failedLogIns = {
  perEmail: failedLogInRules.perEmail,
  perIp: failedLogInRules.perIp,
  windowMs: failedLogInRules.windowSeconds * 1000,
} as const;

const isChange = (req: Request) => req.method !== "GET" && req.method !== "HEAD";

/**
 * What a member may do while its account requires two-factor authentication it has not turned on:
 * its session, its password, and the set-up itself (spec/dashboard/common.tsp
 * `TWO_FACTOR_SETUP_REQUIRED`).
 */
const duringTwoFactorSetUp = new Set<OperationId>([
  "getSession",
  "logOut",
  "listSessions",
  "endSession",
  "changePassword",
  "startTwoFactor",
  "confirmTwoFactor",
]);

export function mountDashboard(app: IRouter, domain: Domain, options: DashboardOptions): void {
  const matcher = operationMatcher(operationTable);
  const allowedOrigin = new URL(options.publicBaseUrl).origin;
  const cookie = sessionCookie(sessionLifetime.absoluteSeconds);
  const dashboard = express.Router({ caseSensitive: true, strict: true });
  const refused = (message?: string) => new DomainError("CSRF_REFUSED", message);

  if (options.rateLimits !== "off") {
    const limits = options.rateLimits;
    for (const [name, limit, applies] of [
      ["dashboard-get", limits.get, (req: Request) => !isChange(req)],
      ["dashboard-write", limits.write, isChange],
    ] as const) {
      dashboard.use(
        perMinuteLimiter({
          name,
          limit,
          applies,
          makeStore: options.rateLimitStore,
          tooMany: (req, res, seconds) =>
            sendError(req, res, "RATE_LIMITED", `Muitas requisições. Aguarde ${seconds} segundos e tente novamente.`),
        }),
      );
    }
  }

  // Who is calling, before anything reads the body: a change from another origin, a missing
  // session or a change without the session's CSRF token learn nothing more (403, 401, 403).
  // The one route match of the request: the request check reads it (`res.locals.route`).
  const authenticateSession: RequestHandler = async (req, res, next) => {
    const found = matcher.match(req.method, req.path);
    if (!found) return next();
    res.locals.route = found;
    const client: ClientInfo = { ip: req.ip, userAgent: req.headers["user-agent"] };
    if (isChange(req)) {
      const origin = req.headers.origin;
      if (origin !== undefined && origin !== allowedOrigin) throw refused();
      const site = req.headers["sec-fetch-site"];
      if (site !== undefined && site !== "same-origin" && site !== "none") throw refused();
    }
    // An operation without `x-roles` needs no session; its handler is given an `OpenContext`.
    const roles: readonly string[] = operationTable[found.id].roles;
    const open: OpenContext = { client, cookie };
    if (roles.length === 0) {
      res.locals.dashboard = open;
      return next();
    }
    const actor = await domain.sessions.authenticate(readCookie(req, cookieName), client);
    const token = req.headers["x-csrf-token"];
    if (isChange(req) && (typeof token !== "string" || !sameText(token, actor.csrfToken))) throw refused();
    if (!roles.includes(actor.user.role)) {
      throw new DomainError("ROLE_FORBIDDEN", "Seu papel nesta conta não permite esta operação.");
    }
    if (actor.requireTwoFactor && actor.user.totpEnabledAt === null && !duringTwoFactorSetUp.has(found.id)) {
      throw new DomainError(
        "TWO_FACTOR_SETUP_REQUIRED",
        "Esta conta exige verificação em duas etapas: ative-a (POST /dashboard/v1/me/two-factor) para continuar.",
      );
    }
    const session: SessionContext = { ...open, actor };
    res.locals.dashboard = session;
    next();
  };
  dashboard.use(authenticateSession);
  dashboard.use(jsonBodies({ deletesToo: true }));
  dashboard.use(refuseUnsafeInput);
  dashboard.use(
    requestValidation({
      load: async () => (await import("../../../../generated/dashboard-request-validators.js")).requestValidators,
      matcher,
      prefix: "/dashboard/",
    }),
  );
  for (const limiter of logInLimiters(options.rateLimitStore)) dashboard.use(limiter);
  bindOperations(dashboard, operationTable, dashboardHandlers(domain), (res) => res.locals.dashboard);
  dashboard.use(noteWrongPassword);
  app.use((req, res, next) => {
    if (req.path !== "/dashboard" && !req.path.startsWith("/dashboard/")) return next();
    dashboard(req, res, (err?: unknown) => {
      if (err && err !== "router") return next(err);
      const methods = matcher.methodsFor(req.path);
      if (methods.length === 0) return sendError(req, res, "NOT_FOUND", routeNotFoundMessage(req));
      res.setHeader("Allow", methods.join(", "));
      sendError(req, res, "METHOD_NOT_ALLOWED");
    });
  });
}

/**
 * The operations of a session that ask for the user's password again: a wrong one counts in the
 * failed-log-in budgets, as a failed log-in of the user's address
 * (docs/decisions/0040-enrolment-asks-the-password-and-step-up-failures-lock.md).
 */
const asksPassword: readonly string[] = [operationTable.changePassword.path, operationTable.startTwoFactor.path];

/**
 * The failed-log-in budgets: a log-in answered 401, and a wrong current password of a session
 * (`WrongCurrentPassword`, marked by `noteWrongPassword`), count against the e-mail address and the
 * IP address; past either budget, log-in and those operations answer 429 until the window ends,
 * the right password included (counted before the password is compared, so guessing faster learns
 * nothing more).
 */
function logInLimiters(makeStore: DashboardOptions["rateLimitStore"]): RequestHandler[] {
  const isLogIn = (req: Request) => req.method === "POST" && req.path === operationTable.logIn.path;
  const checksPassword = (req: Request) => isLogIn(req) || (req.method === "POST" && asksPassword.includes(req.path));
  const tooMany = (req: Request, res: Parameters<RequestHandler>[1], seconds: number) =>
    sendError(
      req,
      res,
      "RATE_LIMITED",
      isLogIn(req)
        ? `Muitas tentativas de entrada malsucedidas. Tente novamente em ${Math.ceil(seconds / 60)} minutos.`
        : `Muitas tentativas com a senha incorreta. Tente novamente em ${Math.ceil(seconds / 60)} minutos.`,
    );
  const common = {
    windowMs: failedLogIns.windowMs,
    applies: checksPassword,
    keepsCount: (req: Request, res: Parameters<RequestHandler>[1]) =>
      isLogIn(req) ? res.statusCode === 401 : res.locals.wrongPassword === true,
    makeStore,
    tooMany,
  };
  const emailOf = (req: Request, res: Parameters<RequestHandler>[1]) =>
    isLogIn(req)
      ? String((req.body as { email?: unknown } | undefined)?.email ?? "")
      : sessionEmail(res.locals.dashboard);
  return [
    perMinuteLimiter({ ...common, name: "dashboard-login-ip", limit: failedLogIns.perIp }),
    perMinuteLimiter({
      ...common,
      name: "dashboard-login-email",
      limit: failedLogIns.perEmail,
      key: (req, res) => `email:${normaliseEmail(emailOf(req, res))}`,
    }),
  ];
}

/** The e-mail address of the request's session, or "" without one. */
const sessionEmail = (context: DashboardContext | undefined): string =>
  context !== undefined && "actor" in context ? context.actor.user.email : "";

/** Marks a wrong current password for the failed-log-in budgets (`keepsCount` reads the mark when answered). */
const noteWrongPassword: ErrorRequestHandler = (err, _req, res, next) => {
  if (err instanceof WrongCurrentPassword) res.locals.wrongPassword = true;
  next(err);
};
