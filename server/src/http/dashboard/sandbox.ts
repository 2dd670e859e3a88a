import type { Domain } from "../../domain/service.js";
import { answerOrReplay } from "../replay.js";
import { callerIn, type TagHandlers } from "./context.js";

/** The test mode's simulations (spec/dashboard/sandbox.tsp): each refused outside `test`, replayed byte for byte. */
export function sandboxHandlers(domain: Domain): TagHandlers<"Sandbox"> {
  const { charges, sandbox, dashboardMoney } = domain;
  return {
    dashboardSandboxPay: async ({ params, headers }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      return answerOrReplay(
        200,
        await charges.simulatePayment(callerIn(ctx, "test"), params.id, headers["idempotency-key"]),
      );
    },
    dashboardSandboxExpire: async ({ params, headers }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      return answerOrReplay(200, await sandbox.expire(callerIn(ctx, "test"), params.id, headers["idempotency-key"]));
    },
    dashboardSandboxDispute: async ({ params, headers, body }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      const key = headers["idempotency-key"];
      return answerOrReplay(201, await sandbox.openDispute(callerIn(ctx, "test"), params.id, body, key));
    },
    dashboardSandboxResolveDispute: async ({ params, headers, body }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      const key = headers["idempotency-key"];
      return answerOrReplay(200, await sandbox.resolveDispute(callerIn(ctx, "test"), params.id, body.outcome, key));
    },
    dashboardSandboxReleaseBalance: async ({ params, headers }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      return answerOrReplay(200, await sandbox.releaseBalance(callerIn(ctx, "test"), headers["idempotency-key"]));
    },
  };
}
