import type { Domain } from "../../domain/service.js";
import { answerOrReplay } from "../replay.js";
import { pageFromQuery } from "../router.js";
import { callerIn, type TagHandlers } from "./context.js";

/** Payment links and customers of one mode (spec/dashboard/objects.tsp), through the public API's use cases. */
export function objectHandlers(domain: Domain): TagHandlers<"Payment links" | "Customers"> {
  const { paymentLinks, customers } = domain;
  return {
    listDashboardPaymentLinks: async ({ params, query }, ctx) => ({
      status: 200,
      body: await paymentLinks.list(callerIn(ctx, params.mode), { active: query.active }, pageFromQuery(query)),
    }),
    getDashboardPaymentLink: async ({ params }, ctx) => ({
      status: 200,
      body: await paymentLinks.get(callerIn(ctx, params.mode), params.id),
    }),
    createDashboardPaymentLink: async ({ params, headers, body }, ctx) =>
      answerOrReplay(201, await paymentLinks.create(callerIn(ctx, params.mode), body, headers["idempotency-key"])),
    deactivateDashboardPaymentLink: async ({ params, headers }, ctx) =>
      answerOrReplay(
        200,
        await paymentLinks.deactivate(callerIn(ctx, params.mode), params.id, headers["idempotency-key"]),
      ),

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
  };
}
