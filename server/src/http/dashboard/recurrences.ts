import type { Domain } from "../../domain/service.js";
import { answerOrReplay } from "../replay.js";
import { pageFromQuery } from "../router.js";
import { callerIn, type TagHandlers } from "./context.js";

/** Recurrences (Pix Automático) of one mode (spec/dashboard/recurrences.tsp), through the public API's use cases. */
export function recurrenceHandlers(domain: Domain): TagHandlers<"Recurrences"> {
  const { recurrences } = domain;
  return {
    listDashboardRecurrences: async ({ params, query }, ctx) => {
      const { status, customerId, createdFrom, createdTo } = query;
      const filter = { status, customerId, createdFrom, createdTo };
      return { status: 200, body: await recurrences.list(callerIn(ctx, params.mode), filter, pageFromQuery(query)) };
    },
    getDashboardRecurrence: async ({ params }, ctx) => ({
      status: 200,
      body: await recurrences.get(callerIn(ctx, params.mode), params.id),
    }),
    createDashboardRecurrence: async ({ params, headers, body }, ctx) =>
      answerOrReplay(201, await recurrences.create(callerIn(ctx, params.mode), body, headers["idempotency-key"])),
    cancelDashboardRecurrence: async ({ params, headers }, ctx) =>
      answerOrReplay(200, await recurrences.cancel(callerIn(ctx, params.mode), params.id, headers["idempotency-key"])),
    createDashboardRecurringCharge: async ({ params, headers, body }, ctx) =>
      answerOrReplay(
        201,
        await recurrences.createCharge(callerIn(ctx, params.mode), params.id, body, headers["idempotency-key"]),
      ),
  };
}
