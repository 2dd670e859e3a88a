import type { Handlers } from "../../../../generated/operations.js";
import type { Domain } from "../../domain/service.js";
import type { AdmittedContext } from "./auth.js";
import { storedReply, type WithReplays } from "../replay.js";
import { pageFromQuery } from "../router.js";

type RecurrenceOperations =
  | "createRecurrence"
  | "listRecurrences"
  | "getRecurrence"
  | "cancelRecurrence"
  | "createRecurringCharge"
  | "simulateRecurrenceApproval"
  | "simulateRecurrenceRejection"
  | "simulateRecurrenceCancellationByPayer"
  | "simulateRecurrenceExpiry"
  | "simulateRecurrenceAdvance"
  | "simulateRecurringAttempt";

/** Recurrences (Pix Automático) and their sandbox: each generated operation bound to its use case. */
export function recurrenceHandlers(domain: Domain): Pick<WithReplays<Handlers<AdmittedContext>>, RecurrenceOperations> {
  const { recurrences, recurrenceSandbox: sandbox } = domain;
  return {
    async createRecurrence({ body, headers }, { actor }) {
      const out = await recurrences.create(actor, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 201, body: out.body };
    },
    async listRecurrences({ query }, { actor }) {
      const { status, customerId, createdFrom, createdTo } = query;
      const filter = { status, customerId, createdFrom, createdTo };
      return { status: 200, body: await recurrences.list(actor, filter, pageFromQuery(query)) };
    },
    async getRecurrence({ params }, { actor }) {
      return { status: 200, body: await recurrences.get(actor, params.id) };
    },
    async cancelRecurrence({ params, headers }, { actor }) {
      const out = await recurrences.cancel(actor, params.id, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async createRecurringCharge({ params, body, headers }, { actor }) {
      const out = await recurrences.createCharge(actor, params.id, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 201, body: out.body };
    },
    async simulateRecurrenceApproval({ params, body, headers }, { actor }) {
      const out = await sandbox.approve(actor, params.id, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateRecurrenceRejection({ params, body, headers }, { actor }) {
      const out = await sandbox.reject(actor, params.id, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateRecurrenceCancellationByPayer({ params, body, headers }, { actor }) {
      const out = await sandbox.cancelByPayer(actor, params.id, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateRecurrenceExpiry({ params, headers }, { actor }) {
      const out = await sandbox.expire(actor, params.id, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateRecurrenceAdvance({ params, headers }, { actor }) {
      const out = await sandbox.advance(actor, params.id, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
    async simulateRecurringAttempt({ params, body, headers }, { actor }) {
      const out = await sandbox.settleAttempt(actor, params.id, body, headers["idempotency-key"]);
      return out.replayed ? storedReply(out) : { status: 200, body: out.body };
    },
  };
}
