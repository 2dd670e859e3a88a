import type { Handlers } from "../../../../generated/dashboard-operations.js";
import type { Domain } from "../../domain/service.js";
import { actorOf } from "./context.js";
import type { DashboardContext } from "./context.js";
import { pageFromQuery } from "../router.js";

/** The audit log's operations (spec/dashboard/audit.tsp). */
export function auditHandlers(domain: Domain): Pick<Handlers<DashboardContext>, "listAuditLog"> {
  return {
    listAuditLog: async ({ query }, ctx) => ({
      status: 200,
      body: await domain.audit.list(actorOf(ctx), query, pageFromQuery(query)),
    }),
  };
}
