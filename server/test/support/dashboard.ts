import createClient from "openapi-fetch";
import { type DashboardSessionState, dashboardSessionMiddleware } from "../../../client/src/dashboard.js";
import { Secret, TOTP } from "otpauth";
import { newId } from "../../src/domain/core/ids.js";
import type { Role } from "../../src/domain/identity/model.js";
import { hashPassword } from "../../src/domain/identity/index.js";
import { checkAnswer, expectStatus } from "./client.js";
import type { paths as DashboardPaths } from "../../../generated/dashboard-api.js";
import type { TestServer } from "../harness.js";
import { rememberSecret } from "./audit.js";
import { testTransport } from "./transport.js";
import type { TypedClient } from "./client.js";

// The dashboard API (`generated/dashboard-openapi.yaml`) as a browser uses it, through a client
// typed from the document: it keeps the session cookie a log-in or sign-up sets, and sends the
// session's CSRF token and the site's `Origin` on every change, as the dashboard's web app does.

/** The origin of the test servers' PUBLIC_BASE_URL (`startTestServer`'s default). */
export const testOrigin = "https://pix.example.test";

type Method = "get" | "post" | "patch" | "put" | "delete";

export interface DashboardBrowser {
  api: TypedClient<DashboardPaths>;
  /** The session cookie's value, as the last `Set-Cookie` left it (null: none). */
  cookie: string | null;
  /** The `Set-Cookie` header of the last answer that sent one. */
  lastSetCookie: string | null;
  /** The CSRF token sent as `x-csrf-token` (the session's, once a log-in or sign-up answered). */
  csrf: string | null;
  /** Headers sent with every request (`X-Forwarded-For` behind a trusted proxy, another `Origin`). */
  headers: Record<string, string>;
}

/**
 * A browser of the dashboard at `baseUrl`: no session until it signs up or logs in. The session
 * protocol (cookie, CSRF token) is the partner package's middleware, as in the app; the browser's
 * fields are its state, so a test may set `cookie` or `csrf` by hand.
 */
export function dashboardBrowser(baseUrl: string, headers: Record<string, string> = {}): DashboardBrowser {
  const client = createClient<DashboardPaths>({ baseUrl, ...testTransport });
  const browser: DashboardBrowser = {
    api: undefined as unknown as TypedClient<DashboardPaths>,
    cookie: null,
    lastSetCookie: null,
    csrf: null,
    headers: { origin: testOrigin, ...headers },
  };
  const state: DashboardSessionState = {
    get cookie() {
      return browser.cookie;
    },
    set cookie(value) {
      browser.cookie = value;
      rememberSecret(value);
    },
    get csrfToken() {
      return browser.csrf;
    },
    set csrfToken(value) {
      browser.csrf = value;
      rememberSecret(value);
    },
  };
  client.use(dashboardSessionMiddleware(state), {
    onResponse({ response }) {
      browser.lastSetCookie = response.headers.get("set-cookie") ?? browser.lastSetCookie;
      return undefined;
    },
  });
  const method =
    (name: Method) =>
    async (path: string, init: Record<string, unknown> = {}) => {
      const sent: Record<string, string> = { ...browser.headers, ...(init.headers as Record<string, string>) };
      const request = client.request as (m: Method, p: string, i: object) => Promise<Record<string, unknown>>;
      const { data, error, response } = (await request(name, path, { ...init, headers: sent, parseAs: "text" })) as {
        data?: unknown;
        error?: unknown;
        response: Response;
      };
      const raw = data ?? error;
      checkAnswer("dashboard", name, path, response, typeof raw === "string" ? raw : (JSON.stringify(raw) ?? ""));
      const body: unknown = typeof raw === "string" ? (raw ? JSON.parse(raw) : undefined) : raw;
      return { status: response.status, body, headers: response.headers };
    };
  browser.api = {
    GET: method("get"),
    POST: method("post"),
    PATCH: method("patch"),
    PUT: method("put"),
    DELETE: method("delete"),
  } as unknown as TypedClient<DashboardPaths>;
  return browser;
}

let people = 0;

/** A new person's sign-up data (a unique e-mail address per call). */
export function newPerson(
  overrides: Partial<{ name: string; email: string; password: string; businessName: string }> = {},
) {
  people += 1;
  const person = {
    name: "Maria Souza",
    email: `maria.${process.pid}.${people}.${Date.now()}@loja.example.com.br`,
    password: "correto cavalo bateria grampo",
    businessName: "Loja Exemplo Ltda",
    ...overrides,
  };
  rememberSecret(person.password);
  return person;
}

/**
 * Signs a new person up through the API: the browser holds its session afterwards. The address is
 * confirmed through the e-mailed link (two-factor set-up, invitations and verification need it,
 * issue 33 §10), unless `confirmEmail: false`.
 */
export async function signedUp(
  server: TestServer,
  headers: Record<string, string> = {},
  options: { confirmEmail?: boolean } = {},
) {
  const browser = dashboardBrowser(server.baseUrl, headers);
  const person = newPerson();
  const answer = await browser.api.POST("/dashboard/v1/sign-up", { body: person });
  if (answer.status !== 201) throw new Error(`sign-up answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  if (options.confirmEmail !== false) {
    const token = lastLinkToken(server, person.email);
    rememberSecret(token);
    const confirmed = await browser.api.POST("/dashboard/v1/email-confirmations", { body: { token } });
    if (confirmed.status !== 204) throw new Error(`e-mail confirmation answered ${confirmed.status}`);
  }
  return { browser, person, session: answer.body };
}

/** The token of the last e-mail link sent to `to` (`…?token=…`). */
export function lastLinkToken(server: TestServer, to: string): string {
  const mail = server.mail.filter((m) => m.to === to).at(-1);
  const token = mail && /[?&]token=([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
  if (!token) throw new Error(`no e-mail link sent to ${to}`);
  return token;
}

/** The code the authenticator app shows at the server's (manual) clock. */
export const codeOf = (server: TestServer, secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 }).generate({
    timestamp: server.clock.now().getTime(),
  });

/** Signs up and turns two-factor authentication on: the browser, the person, the secret, the recovery codes. */
export async function withTwoFactor(server: TestServer) {
  const { browser, person, session } = await signedUp(server);
  return { browser, person, session, ...(await turnOnTwoFactor(server, browser, person.password)) };
}

/**
 * Turns two-factor authentication on for the browser's user (with its password), then steps up
 * with a code of the new secret, as the app asks before a dangerous operation: the session is
 * renewed and stepped up. The secret, the recovery codes.
 */
export async function turnOnTwoFactor(server: TestServer, browser: DashboardBrowser, password: string) {
  const started = await browser.api.POST("/dashboard/v1/me/two-factor", { body: { currentPassword: password } });
  expectStatus(started, 200);
  const confirmed = await browser.api.POST("/dashboard/v1/me/two-factor/confirm", {
    body: { code: codeOf(server, started.body.secret) },
  });
  expectStatus(confirmed, 200);
  server.clock.advance(30);
  const steppedUp = await browser.api.POST("/dashboard/v1/session/step-up", {
    body: { code: codeOf(server, started.body.secret) },
  });
  expectStatus(steppedUp, 201);
  server.clock.advance(30);
  rememberSecret(started.body.secret, ...confirmed.body.recoveryCodes);
  return { secret: started.body.secret, recoveryCodes: confirmed.body.recoveryCodes };
}

/** A member of the account written straight into the store (the tests of what invitations do not reach). */
export async function addMember(server: TestServer, accountId: string, role: Role) {
  const email = `membro.${Date.now()}.${Math.random().toString(36).slice(2)}@loja.example.com.br`;
  const password = "frase longa do membro da equipe";
  const passwordHash = await hashPassword(password, server.deps.config.passwordHashCost);
  const at = server.clock.now().toISOString();
  await server.store.transaction((tx) =>
    tx.users.insert({
      id: newId("usr"),
      accountId,
      email,
      name: "João Lima",
      role,
      passwordHash,
      emailConfirmedAt: at,
      totpSecret: null,
      totpPendingSecret: null,
      totpEnabledAt: null,
      totpLastStep: null,
      recoveryCodeDigests: [],
      createdAt: at,
      updatedAt: at,
    }),
  );
  return { email, password };
}
