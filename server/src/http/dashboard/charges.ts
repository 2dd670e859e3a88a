import { requireActiveForProduction } from "../../domain/identity/index.js";
import type { Domain } from "../../domain/service.js";
import { answerOrReplay } from "../replay.js";
import { callerIn, type TagHandlers } from "./context.js";

// The counter's charge (spec/dashboard/charges.tsp): the public API's create, by the session's
// user in the path's mode; production only for a verified account.

export function chargeHandlers(domain: Domain): TagHandlers<"Charges"> {
  return {
    createDashboardCharge: async ({ params, headers, body }, ctx) => {
      const caller = callerIn(ctx, params.mode);
      requireActiveForProduction(caller);
      return answerOrReplay(201, await domain.charges.create(caller, body, headers["idempotency-key"]));
    },
  };
}
