import createFetchClient, { type Middleware } from "openapi-fetch";
import createQueryClient from "openapi-react-query";
import type { paths } from "../../../generated/dashboard-api";
import { ApiError } from "./errors";

// The one way the app talks to the server: openapi-fetch typed by the generated types of
// generated/dashboard-openapi.yaml (no hand-written request or response type), with TanStack Query
// through openapi-react-query. Two rules added to every call (docs/decisions/0036-dashboard-web-app.md):
// a change carries the session's CSRF token, and any answer that is not 2xx throws an
// ApiError with the server's code, message and field errors — openapi-fetch alone returns
// `error: undefined` for an empty error body, and openapi-react-query then takes it for success.

let csrfToken: string | null = null;

/** The answers that carry a session, and so its CSRF token (a log-in, a step-up: a new session id). */
const sessionAnswers = new Set([
  "/dashboard/v1/session",
  "/dashboard/v1/sign-up",
  "/dashboard/v1/session/step-up",
  "/dashboard/v1/invitations/accept",
]);

const protocol: Middleware = {
  onRequest({ request }) {
    if (request.method !== "GET" && request.method !== "HEAD" && csrfToken !== null) {
      request.headers.set("x-csrf-token", csrfToken);
    }
    return request;
  },
  async onResponse({ response, schemaPath }) {
    if (!response.ok) throw await ApiError.from(response);
    if (sessionAnswers.has(schemaPath) && response.status !== 204) {
      const body = (await response.clone().json()) as { csrfToken?: unknown };
      if (typeof body.csrfToken === "string") csrfToken = body.csrfToken;
    }
    return undefined;
  },
};

/** Forgets the CSRF token (log-out, a session that ended). */
export function forgetCsrfToken(): void {
  csrfToken = null;
}

export const fetchClient = createFetchClient<paths>({ baseUrl: "", credentials: "same-origin" });
fetchClient.use(protocol);

/** `api.useQuery("get", "/dashboard/v1/sessions")`, `api.useMutation("post", …)`. */
export const api = createQueryClient(fetchClient);

export type { paths };
