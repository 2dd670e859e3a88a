import type { Domain } from "../../domain/service.js";
import type { TagHandlers } from "./auth.js";
import { storedReply } from "../replay.js";

/** The test mode's simulations, of charges and of recurrences (spec/sandbox.tsp, sandbox-recurrences.tsp). */
export function sandboxHandlers(domain: Domain): TagHandlers<"Sandbox"> {
  const { charges, sandbox, recurrenceSandbox } = domain;
  return {
    async simulatePayment({ params, headers, body }, { actor }) {
      const out = await charges.simulatePayment(actor, params.id, headers["idempotency-key"], body?.paymentDate);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateExpiry({ params, headers }, { actor }) {
      const out = await sandbox.expire(actor, params.id, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateDispute({ params, body, headers }, { actor }) {
      const out = await sandbox.openDispute(actor, params.id, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 201, body: out.body };
    },
    async simulateDisputeResolution({ params, body, headers }, { actor }) {
      const out = await sandbox.resolveDispute(actor, params.id, body.outcome, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateBalanceRelease({ headers }, { actor }) {
      const out = await sandbox.releaseBalance(actor, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateRecurrenceApproval({ params, body, headers }, { actor }) {
      const out = await recurrenceSandbox.approve(actor, params.id, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateRecurrenceRejection({ params, body, headers }, { actor }) {
      const out = await recurrenceSandbox.reject(actor, params.id, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateRecurrenceCancellationByPayer({ params, body, headers }, { actor }) {
      const out = await recurrenceSandbox.cancelByPayer(actor, params.id, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateRecurrenceExpiry({ params, headers }, { actor }) {
      const out = await recurrenceSandbox.expire(actor, params.id, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateRecurrenceAdvance({ params, headers }, { actor }) {
      const out = await recurrenceSandbox.advance(actor, params.id, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateRecurringAttempt({ params, body, headers }, { actor }) {
      const out = await recurrenceSandbox.settleAttempt(actor, params.id, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
  };
}
