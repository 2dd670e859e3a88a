import type { Domain } from "../../domain/service.js";
import { answerOrReplay } from "../replay.js";
import { callerIn, type TagHandlers } from "./context.js";

/** The test mode's simulations (spec/dashboard/sandbox.tsp): each refused outside `test`, replayed byte for byte. */
export function sandboxHandlers(domain: Domain): TagHandlers<"Sandbox"> {
  const { charges, sandbox, dashboardMoney, recurrenceSandbox } = domain;
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

    // Recurrences (Pix Automático): the payer's, their bank's and the calendar's moves.
    dashboardSandboxApproveRecurrence: async ({ params, headers, body }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      const key = headers["idempotency-key"];
      return answerOrReplay(200, await recurrenceSandbox.approve(callerIn(ctx, "test"), params.id, body, key));
    },
    dashboardSandboxRejectRecurrence: async ({ params, headers, body }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      const key = headers["idempotency-key"];
      return answerOrReplay(200, await recurrenceSandbox.reject(callerIn(ctx, "test"), params.id, body, key));
    },
    dashboardSandboxCancelRecurrenceByPayer: async ({ params, headers, body }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      const key = headers["idempotency-key"];
      return answerOrReplay(200, await recurrenceSandbox.cancelByPayer(callerIn(ctx, "test"), params.id, body, key));
    },
    dashboardSandboxExpireRecurrence: async ({ params, headers }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      const key = headers["idempotency-key"];
      return answerOrReplay(200, await recurrenceSandbox.expire(callerIn(ctx, "test"), params.id, key));
    },
    dashboardSandboxAdvanceRecurrence: async ({ params, headers }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      const key = headers["idempotency-key"];
      return answerOrReplay(200, await recurrenceSandbox.advance(callerIn(ctx, "test"), params.id, key));
    },
    dashboardSandboxSettleRecurringAttempt: async ({ params, headers, body }, ctx) => {
      dashboardMoney.requireTestMode(params.mode);
      const key = headers["idempotency-key"];
      return answerOrReplay(200, await recurrenceSandbox.settleAttempt(callerIn(ctx, "test"), params.id, body, key));
    },
  };
}
