import createFetchClient, { type Middleware } from "openapi-fetch";
import createQueryClient from "openapi-react-query";
import { dashboardSessionMiddleware, type DashboardSessionState } from "../../../client/src/dashboard";
import type { paths } from "../../../generated/dashboard-api";
import { ApiError } from "./errors";

// The one way the app talks to the server: openapi-fetch typed by the generated types of
// generated/dashboard-openapi.yaml (no hand-written request or response type), with TanStack Query
// through openapi-react-query. Two rules added to every call (docs/decisions/0036-dashboard-web-app.md):
// the dashboard session protocol, the partner package's middleware (client/src/dashboard.ts; the
// browser keeps the cookie, the middleware echoes the CSRF token of the answers that carry a
// session), and any answer that is not 2xx throws an ApiError with the server's code, message and
// field errors — openapi-fetch alone returns `error: undefined` for an empty error body, and
// openapi-react-query then takes it for success.

const session: DashboardSessionState = { cookie: null, csrfToken: null };

const refusals: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await ApiError.from(response);
    return undefined;
  },
};

/** Forgets the CSRF token (log-out, a session that ended). */
export function forgetCsrfToken(): void {
  session.csrfToken = null;
}

export const fetchClient = createFetchClient<paths>({ baseUrl: "", credentials: "same-origin" });
// onResponse runs in the reverse order of `use`: the session reads an answer before a refusal throws.
fetchClient.use(refusals, dashboardSessionMiddleware(session));

/** `api.useQuery("get", "/dashboard/v1/sessions")`, `api.useMutation("post", …)`, `api.queryOptions(…)`. */
export const api = createQueryClient(fetchClient);

export type { paths };
