import { requireActiveForProduction } from "../../domain/identity/index.js";
import type { Domain } from "../../domain/service.js";
import { answerOrReplay } from "../replay.js";
import { callerIn, type TagHandlers } from "./context.js";

// The counter's charge (spec/dashboard/charges.tsp): the public API's create, by the session's
// user in the path's mode; production only for a verified account. Charges with a due date
// (spec/dashboard/due-date-charges.tsp, issue 38): the create form's preview (nothing kept) and the
// creation, the public API's too, production alike.

export function chargeHandlers(domain: Domain): TagHandlers<"Charges"> {
  return {
    createDashboardCharge: async ({ params, headers, body }, ctx) => {
      const caller = callerIn(ctx, params.mode);
      requireActiveForProduction(caller);
      return answerOrReplay(201, await domain.charges.create(caller, body, headers["idempotency-key"]));
    },
    previewDashboardDueDateCharge: async ({ params, body }, ctx) => ({
      status: 200,
      body: await domain.dueDatePreview.preview(callerIn(ctx, params.mode), body),
    }),
    createDashboardDueDateCharge: async ({ params, headers, body }, ctx) => {
      const caller = callerIn(ctx, params.mode);
      requireActiveForProduction(caller);
      return answerOrReplay(201, await domain.dueDateCharges.create(caller, body, headers["idempotency-key"]));
    },
  };
}
