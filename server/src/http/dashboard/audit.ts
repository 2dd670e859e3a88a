import type { Domain } from "../../domain/service.js";
import { pageFromQuery } from "../router.js";
import type { TagHandlers } from "./context.js";

/** The audit log (spec/dashboard/audit.tsp). */
export function auditHandlers(domain: Domain): TagHandlers<"Audit log"> {
  return {
    listAuditLog: async ({ query }, { actor }) => ({
      status: 200,
      body: await domain.audit.list(actor, query, pageFromQuery(query)),
    }),
  };
}
