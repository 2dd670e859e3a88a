import type { Domain } from "../../domain/service.js";
import { accountHandlers } from "./account.js";
import { apiKeyHandlers } from "./api-keys.js";
import { auditHandlers } from "./audit.js";
import { chargeHandlers } from "./charges.js";
import type { DashboardHandlers } from "./context.js";
import { exportHandlers } from "./exports/handlers.js";
import { homeHandlers } from "./home.js";
import { moneyHandlers } from "./money.js";
import { noticeHandlers } from "./notices.js";
import { objectHandlers } from "./objects.js";
import { recurrenceHandlers } from "./recurrences.js";
import { registrationHandlers } from "./registration.js";
import { requestLogHandlers } from "./developers/request-logs.js";
import { sandboxHandlers } from "./sandbox.js";
import { sessionHandlers } from "./sessions.js";
import { statementHandlers } from "./statement.js";
import { teamHandlers } from "./team.js";
import { twoFactorHandlers } from "./two-factor.js";
import { webhookHandlers } from "./webhooks.js";

/**
 * The dashboard API's operations (generated/dashboard-operations.ts), each a use case of the
 * domain: one handler file per tag of the spec (`TagHandlers`), named after its spec file.
 */
export function dashboardHandlers(domain: Domain): DashboardHandlers {
  return {
    ...registrationHandlers(domain),
    ...sessionHandlers(domain),
    ...twoFactorHandlers(domain),
    ...accountHandlers(domain),
    ...noticeHandlers(domain),
    ...teamHandlers(domain),
    ...auditHandlers(domain),
    ...homeHandlers(domain),
    ...exportHandlers(domain),
    ...moneyHandlers(domain),
    ...chargeHandlers(domain),
    ...statementHandlers(domain),
    ...objectHandlers(domain),
    ...recurrenceHandlers(domain),
    ...sandboxHandlers(domain),
    ...apiKeyHandlers(domain),
    ...webhookHandlers(domain),
    ...requestLogHandlers(domain),
  };
}
