import { requireActiveForProduction } from "../../domain/identity/index.js";
import type { Domain } from "../../domain/service.js";
import { answerOrReplay } from "../replay.js";
import { callerIn, type TagHandlers } from "./context.js";

/**
 * Charges with a due date from the dashboard (spec/dashboard/due-date-charges.tsp): the create
 * form's preview (nothing kept) and the creation, through the public API's use case (production
 * only for a verified account, as the counter's charge).
 */
export function dueDateChargeHandlers(domain: Domain): TagHandlers<"Due-date charges"> {
  return {
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
