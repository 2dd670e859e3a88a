import type { Domain } from "../../domain/service.js";
import { answerOrReplay } from "../replay.js";
import { pageFromQuery } from "../router.js";
import { callerIn, type TagHandlers } from "./context.js";

// Money of one mode of the user's account (spec/dashboard/money.tsp, timeline.tsp), each through
// the public API's use case with the session's user in the path's mode. Every change that takes
// an `idempotency-key` answers a replay byte for byte.

export function moneyHandlers(
  domain: Domain,
): TagHandlers<"Balance" | "Transactions" | "Withdrawals" | "Disputes" | "Events"> {
  const { charges, refunds, withdrawals, events, dashboardMoney, timeline } = domain;
  return {
    getDashboardBalance: async ({ params }, ctx) => ({
      status: 200,
      body: await domain.balance.get(callerIn(ctx, params.mode)),
    }),

    listDashboardTransactions: async ({ params, query }, ctx) => {
      const { status, paymentLinkId, recurrenceId, customerId, search, kind, createdFrom, createdTo } = query;
      const filter = { status, paymentLinkId, recurrenceId, customerId, search, kind, createdFrom, createdTo };
      return { status: 200, body: await charges.list(callerIn(ctx, params.mode), filter, pageFromQuery(query)) };
    },
    getDashboardTransaction: async ({ params }, ctx) => ({
      status: 200,
      body: await timeline.timeline(callerIn(ctx, params.mode), params.id),
    }),
    createDashboardRefund: async ({ params, headers, body }, ctx) =>
      answerOrReplay(
        201,
        await refunds.create(callerIn(ctx, params.mode), params.id, body, headers["idempotency-key"]),
      ),

    listDashboardWithdrawals: async ({ params, query }, ctx) => ({
      status: 200,
      body: await withdrawals.list(callerIn(ctx, params.mode), pageFromQuery(query)),
    }),
    getDashboardWithdrawal: async ({ params }, ctx) => ({
      status: 200,
      body: await withdrawals.get(callerIn(ctx, params.mode), params.id),
    }),
    createDashboardWithdrawal: async ({ params, headers, body }, { actor }) =>
      answerOrReplay(201, await dashboardMoney.withdraw(actor, params.mode, body, headers["idempotency-key"])),

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
  };
}
