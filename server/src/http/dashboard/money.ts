import type { Handlers } from "../../../../generated/dashboard-operations.js";
import type { Domain } from "../../domain/service.js";
import type { DashboardContext } from "./context.js";
import { actorOf, callerIn } from "./context.js";
import { storedReply, type WithReplays } from "../replay.js";
import { pageFromQuery } from "../router.js";

// Money and objects of one mode of the user's account (spec/dashboard/money.tsp, objects.tsp,
// timeline.tsp, sandbox.tsp), each through the public API's use case with the session's user in
// the path's mode. Every change that takes an `idempotency-key` answers a replay byte for byte.

type MoneyOperation =
  | "getDashboardBalance"
  | "listDashboardTransactions"
  | "getDashboardTransaction"
  | "createDashboardRefund"
  | "listDashboardWithdrawals"
  | "getDashboardWithdrawal"
  | "createDashboardWithdrawal"
  | "listDashboardDisputes"
  | "listDashboardEvents"
  | "getDashboardEvent"
  | "listDashboardPaymentLinks"
  | "getDashboardPaymentLink"
  | "createDashboardPaymentLink"
  | "deactivateDashboardPaymentLink"
  | "listDashboardCustomers"
  | "getDashboardCustomer"
  | "updateDashboardCustomerNotes"
  | "dashboardSandboxPay"
  | "dashboardSandboxExpire"
  | "dashboardSandboxDispute"
  | "dashboardSandboxResolveDispute"
  | "dashboardSandboxReleaseBalance";

/** A use case's outcome as an answer: the first one with `status`, a replay as its stored bytes. */
const answer = <S extends number, B>(
  status: S,
  out: { replayed: false; body: B } | { replayed: true; status: number; text: string },
) => (out.replayed ? storedReply(out) : { status, body: out.body });

export function dashboardMoneyHandlers(domain: Domain): WithReplays<Pick<Handlers<DashboardContext>, MoneyOperation>> {
  const { charges, refunds, withdrawals, events, paymentLinks, customers, sandbox, dashboardMoney, timeline } = domain;
  return {
    getDashboardBalance: async ({ params }, ctx) => ({
      status: 200,
      body: await domain.balance.get(callerIn(ctx, params.mode)),
    }),

    listDashboardTransactions: async ({ params, query }, ctx) => {
      const { status, paymentLinkId, recurrenceId, customerId, search, createdFrom, createdTo } = query;
      const filter = { status, paymentLinkId, recurrenceId, customerId, search, createdFrom, createdTo };
      return { status: 200, body: await charges.list(callerIn(ctx, params.mode), filter, pageFromQuery(query)) };
    },
    getDashboardTransaction: async ({ params }, ctx) => ({
      status: 200,
      body: await timeline.timeline(callerIn(ctx, params.mode), params.id),
    }),
    createDashboardRefund: async ({ params, headers, body }, ctx) =>
      answer(201, await refunds.create(callerIn(ctx, params.mode), params.id, body, headers["idempotency-key"])),

    listDashboardWithdrawals: async ({ params, query }, ctx) => ({
      status: 200,
      body: await withdrawals.list(callerIn(ctx, params.mode), pageFromQuery(query)),
    }),
    getDashboardWithdrawal: async ({ params }, ctx) => ({
      status: 200,
      body: await withdrawals.get(callerIn(ctx, params.mode), params.id),
    }),
    createDashboardWithdrawal: async ({ params, headers, body }, ctx) =>
      answer(201, await dashboardMoney.withdraw(actorOf(ctx), params.mode, body, headers["idempotency-key"])),

    listDashboardDisputes: async ({ params, query }, ctx) => ({
      status: 200,
      body: await charges.list(callerIn(ctx, params.mode), { dispute: query.status ?? "ANY" }, pageFromQuery(query)),
    }),

    listDashboardEvents: async ({ params, query }, ctx) => {
      const { type, createdFrom, createdTo } = query;
      return {
        status: 200,
        body: await events.list(callerIn(ctx, params.mode), { type, createdFrom, createdTo }, pageFromQuery(query)),
      };
    },
    getDashboardEvent: async ({ params }, ctx) => ({
      status: 200,
      body: await events.get(callerIn(ctx, params.mode), params.id),
    }),

    listDashboardPaymentLinks: async ({ params, query }, ctx) => ({
      status: 200,
      body: await paymentLinks.list(callerIn(ctx, params.mode), { active: query.active }, pageFromQuery(query)),
    }),
    getDashboardPaymentLink: async ({ params }, ctx) => ({
      status: 200,
      body: await paymentLinks.get(callerIn(ctx, params.mode), params.id),
    }),
    createDashboardPaymentLink: async ({ params, headers, body }, ctx) =>
      answer(201, await paymentLinks.create(callerIn(ctx, params.mode), body, headers["idempotency-key"])),
    deactivateDashboardPaymentLink: async ({ params, headers }, ctx) =>
      answer(200, await paymentLinks.deactivate(callerIn(ctx, params.mode), params.id, headers["idempotency-key"])),

    listDashboardCustomers: async ({ params, query }, ctx) => ({
      status: 200,
      body: await customers.listWithNotes(
        callerIn(ctx, params.mode),
        { document: query.document },
        pageFromQuery(query),
      ),
    }),
    getDashboardCustomer: async ({ params }, ctx) => ({
      status: 200,
      body: await customers.getWithNotes(callerIn(ctx, params.mode), params.id),
    }),
    updateDashboardCustomerNotes: async ({ params, body }, ctx) => ({
      status: 200,
      body: await customers.setNotes(callerIn(ctx, params.mode), params.id, body),
    }),

    dashboardSandboxPay: async ({ params, headers }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      return answer(200, await charges.simulatePayment(callerIn(ctx, "test"), params.id, headers["idempotency-key"]));
    },
    dashboardSandboxExpire: async ({ params, headers }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      return answer(200, await sandbox.expire(callerIn(ctx, "test"), params.id, headers["idempotency-key"]));
    },
    dashboardSandboxDispute: async ({ params, headers, body }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      const key = headers["idempotency-key"];
      return answer(201, await sandbox.openDispute(callerIn(ctx, "test"), params.id, body, key));
    },
    dashboardSandboxResolveDispute: async ({ params, headers, body }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      const key = headers["idempotency-key"];
      return answer(200, await sandbox.resolveDispute(callerIn(ctx, "test"), params.id, body.outcome, key));
    },
    dashboardSandboxReleaseBalance: async ({ params, headers }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      return answer(200, await sandbox.releaseBalance(callerIn(ctx, "test"), headers["idempotency-key"]));
    },
  };
}
