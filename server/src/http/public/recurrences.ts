import type { Domain } from "../../domain/service.js";
import type { TagHandlers } from "./auth.js";
import { storedReply } from "../replay.js";
import { pageFromQuery } from "../router.js";

/** Recurrences (Pix Automático, spec/recurrences-api.tsp): each generated operation bound to its use case. */
export function recurrenceHandlers(domain: Domain): TagHandlers<"Recurrences"> {
  const { recurrences } = domain;
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
  };
}
