import { createHash, timingSafeEqual } from "node:crypto";
import express, { type IRouter } from "express";
import type { RateLimitStore } from "../kit/rate-limit.js";
import { type Handlers, operationTable } from "../../../../generated/admin-operations.js";
import type { ManualClock } from "../../domain/ports/clock.js";
import { byOperator } from "../../domain/audit/index.js";
import { type AuditedBy } from "../../domain/audit/model.js";
import { DomainError } from "../../domain/core/errors.js";
import { operatorAuthFailuresPerMinute } from "../../domain/core/policy.js";
import type { Domain } from "../../domain/service.js";
import { refuseUnsafeInput } from "../control-chars.js";
import { operationMatcher } from "../operations.js";
import { jsonBodies, requestValidation } from "../request-validation.js";
import { routeNotFoundMessage, sendError } from "../errors.js";
import { perMinuteLimiter } from "../kit/rate-limit.js";
import { bindOperations, pageFromQuery } from "../router.js";

export interface AdminOptions {
  /** `ADMIN_TOKEN`; without it the operator API is off and every route answers 404. */
  token: string | undefined;
  /** The manual clock when started with `PIX_MANUAL_CLOCK=1`; the clock routes answer 404 otherwise. */
  manualClock: ManualClock | null;
  /** Limit failed authentications per IP (off only in local test runs, as the API's budgets). */
  limitFailedAuthentications: boolean;
  /** Counters shared by several processes (the PostgreSQL store's); default: in process memory. */
  rateLimitStore?: ((name: string) => RateLimitStore) | undefined;
}

/**
 * Failed operator authentications (a missing or wrong token) one IP address may make per minute;
 * past them every operator request from the address answers `429 RATE_LIMITED` until the minute
 * ends (spec/admin/main.tsp, `x-auth-failures-per-minute`).
 */
export { operatorAuthFailuresPerMinute };

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Constant-time comparison of the presented bearer token with `ADMIN_TOKEN`. */
function tokenMatches(presented: string | undefined, expected: string): boolean {
  if (!presented) return false;
  return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * The operator API under /admin/v1, validated against `generated/admin-openapi.yaml`. Its layers
 * live in a router of their own, entered only for paths under /admin: a public request does not
 * walk past its thirty-odd routes.
 */
export function mountAdmin(app: IRouter, domain: Domain, options: AdminOptions): void {
  const { token } = options;
  const admin = express.Router({ caseSensitive: true, strict: true });
  // Counted before the token is compared, so a spent budget refuses the right token too: an
  // address guessing tokens learns nothing more, however fast it asks. Answers that are not a 401
  // are given back, so operators who hold the token are never counted.
  if (token && options.limitFailedAuthentications) {
    admin.use(
      "/admin",
      perMinuteLimiter({
        name: "operator-auth-failures",
        limit: operatorAuthFailuresPerMinute,
        applies: () => true,
        keepsCount: (_req, res) => res.statusCode === 401,
        makeStore: options.rateLimitStore,
        tooMany: (req, res, seconds) =>
          sendError(
            req,
            res,
            "RATE_LIMITED",
            `Muitas tentativas com token de operador ausente ou inválido a partir deste endereço. Aguarde ${seconds} segundos e tente novamente.`,
          ),
      }),
    );
  }
  admin.use("/admin", (req, res, next) => {
    if (!token) return sendError(req, res, "NOT_FOUND", routeNotFoundMessage(req));
    const match = req.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i);
    if (!tokenMatches(match?.[1], token)) {
      return sendError(req, res, "UNAUTHORIZED", "Token de operador ausente ou inválido.");
    }
    next();
  });
  admin.use("/admin", jsonBodies());
  admin.use("/admin", refuseUnsafeInput);
  admin.use(
    requestValidation({
      load: async () => (await import("../../../../generated/admin-request-validators.js")).requestValidators,
      matcher: operationMatcher(operationTable),
      prefix: "/admin/",
    }),
  );

  bindOperations(admin, operationTable, adminHandlers(domain, options.manualClock), (res) => byOperator(res.req.ip));
  app.use((req, res, next) =>
    req.path === "/admin" || req.path.startsWith("/admin/") ? admin(req, res, next) : next(),
  );
}

/** The clock routes' answer (404) on a server started without PIX_MANUAL_CLOCK=1. */
const manualClockOff =
  "O relógio manual está desligado neste servidor: inicie-o com PIX_MANUAL_CLOCK=1 (fora de produção) para ler ou avançar o relógio.";

/** The operator API's handlers; each gets who is acting (the operator, from its request's address) for the audit log. */
function adminHandlers(domain: Domain, clock: ManualClock | null): Handlers<AuditedBy> {
  const { operator, settlement } = domain;
  const requireClock = () => {
    if (!clock) throw new DomainError("NOT_FOUND", manualClockOff);
    return clock;
  };
  return {
    createAccount: async ({ body }, by) => ({ status: 201, body: await operator.createAccount(body, by) }),
    listAccounts: async ({ query }) => ({ status: 200, body: await operator.listAccounts(pageFromQuery(query)) }),
    getAccount: async ({ params }) => ({ status: 200, body: await operator.getAccount(params.id) }),
    updateAccount: async ({ params, body }, by) => ({
      status: 200,
      body: await operator.updateAccount(params.id, body, by),
    }),
    createApiKey: async ({ params, body }, by) => ({
      status: 201,
      body: await operator.createApiKey(params.id, body, by),
    }),
    listApiKeys: async ({ params }) => ({ status: 200, body: await operator.listApiKeys(params.id) }),
    updateApiKey: async ({ params, body }, by) => ({
      status: 200,
      body: await operator.updateApiKey(params.id, body, by),
    }),
    revokeApiKey: async ({ params }, by) => ({ status: 200, body: await operator.revokeApiKey(params.id, by) }),
    createWebhookEndpoint: async ({ params, body }, by) => ({
      status: 201,
      body: await operator.createWebhookEndpoint(params.id, body, by),
    }),
    listWebhookEndpoints: async ({ params }) => ({ status: 200, body: await operator.listWebhookEndpoints(params.id) }),
    updateWebhookEndpoint: async ({ params, body }, by) => ({
      status: 200,
      body: await operator.updateWebhookEndpoint(params.id, body, by),
    }),
    deleteWebhookEndpoint: async ({ params }, by) => {
      await operator.deleteWebhookEndpoint(params.id, by);
      return { status: 204, body: undefined };
    },
    rotateWebhookEndpointSecret: async ({ params }, by) => ({
      status: 200,
      body: await operator.rotateWebhookSecret(params.id, by),
    }),
    listDeliveries: async ({ params, query }) => ({
      status: 200,
      body: await operator.listDeliveries(params.id, pageFromQuery(query)),
    }),
    listEvents: async ({ params, query }) => ({
      status: 200,
      body: await operator.listEvents(params.id, query.mode === "production", pageFromQuery(query)),
    }),
    replayEvent: async ({ params }, by) => ({ status: 200, body: await operator.replayEvent(params.id, by) }),
    getCustomerNotes: async ({ params }) => ({ status: 200, body: await operator.getCustomerNotes(params.id) }),
    setCustomerNotes: async ({ params, body }, by) => ({
      status: 200,
      body: await operator.setCustomerNotes(params.id, body, by),
    }),
    simulateProductionPayment: async ({ params }, by) => ({
      status: 200,
      body: await settlement.payCharge(params.id, by),
    }),
    settleWithdrawal: async ({ params, body }, by) => ({
      status: 200,
      body: await settlement.settleWithdrawal(params.id, body, by),
    }),
    settleRefund: async ({ params, body }, by) => ({
      status: 200,
      body: await settlement.settleRefund(params.id, body, by),
    }),
    openDispute: async ({ params, body }, by) => ({
      status: 201,
      body: await settlement.openDispute(params.id, body.amountCents, by),
    }),
    closeDispute: async ({ params, body }, by) => ({
      status: 200,
      body: await settlement.closeDispute(params.id, body.outcome, by),
    }),
    approveProductionRecurrence: async ({ params, body }, by) => ({
      status: 200,
      body: await domain.recurrenceSettlement.approve(params.id, body, by),
    }),
    rejectProductionRecurrence: async ({ params, body }, by) => ({
      status: 200,
      body: await domain.recurrenceSettlement.reject(params.id, body, by),
    }),
    cancelProductionRecurrence: async ({ params, body }, by) => ({
      status: 200,
      body: await domain.recurrenceSettlement.cancel(params.id, body, by),
    }),
    settleRecurringAttempt: async ({ params, body }, by) => ({
      status: 200,
      body: await domain.recurrenceSettlement.settleAttempt(params.id, body, by),
    }),
    listVerificationRequests: async ({ query }) => ({
      status: 200,
      body: await domain.verification.list({ status: query.status }, pageFromQuery(query)),
    }),
    getVerificationRequest: async ({ params }) => ({ status: 200, body: await domain.verification.get(params.id) }),
    rejectVerificationRequest: async ({ params, body }, by) => ({
      status: 200,
      body: await domain.verification.reject(params.id, body, by),
    }),
    listUnmatchedReceipts: async ({ query }) => ({
      status: 200,
      body: await domain.bankReceipts.listUnmatched(pageFromQuery(query)),
    }),
    returnUnmatchedReceipt: async ({ params }, by) => {
      const { receipt, pending } = await domain.bankReturns.returnReceipt(params.endToEndId, by);
      return pending ? { status: 202, body: receipt } : { status: 200, body: receipt };
    },
    reconcileBank: async ({ body }) => ({
      status: 200,
      body: await domain.bankReconcile.reconcileNow(body, domain.withdrawalPayouts),
    }),
    getBankConnection: async () => ({ status: 200, body: await domain.bankConnection.get() }),
    setBankConnection: async ({ body }, by) => ({ status: 200, body: await domain.bankConnection.set(body, by) }),
    changeBankConnection: async ({ body }, by) => ({
      status: 200,
      body: await domain.bankConnection.change(body, by),
    }),
    removeBankConnection: async (_input, by) => {
      await domain.bankConnection.remove(by);
      return { status: 204, body: undefined };
    },
    rotateSecrets: async () => ({ status: 200, body: await domain.sealedSecrets.rotate() }),
    getClock: async () => ({ status: 200, body: { now: requireClock().now().toISOString() } }),
    advanceClock: async ({ body }) => ({
      status: 200,
      body: { now: requireClock().advance(body.seconds).toISOString() },
    }),
  };
}
