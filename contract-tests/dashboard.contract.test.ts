import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { apiDocument } from "./support/document.js";
import { parseBody, responseChecker } from "./support/openapi.js";
import { type GeneratedRequest, requestsFor } from "./support/requests.js";
import type { Target } from "./support/targets.js";

// The merchant dashboard's document (generated/dashboard-openapi.yaml) against its Prism mock and
// both reference servers. Each answer is checked against the document (declared status and
// content type, schema-valid body, required headers). Hand-written cases walk a new merchant's
// first steps (sign-up → session → sessions → password → two-factor), the session's refusals and
// the mode in the path; then every operation of the document, as it stands when the suite runs
// (operations added later are covered without a line here), answers generated requests —
// valid, boundary and mutated, with and without a session, its CSRF token or a role it admits —
// with what it declares. State and exact codes only on real targets (`target.real`).
//
// DASHBOARD_SEED replays another seed of the generated part; DASHBOARD_RUNS sets its requests per
// operation (default 4).

const targets = inject("targets");
const checker = responseChecker("dashboard");
const operations = apiDocument("dashboard").operations;
const seed = process.env.DASHBOARD_SEED ? Number(process.env.DASHBOARD_SEED) : 29;
const runs = Number(process.env.DASHBOARD_RUNS ?? 4);
const cookieName = "__Host-pix_session";
/** The confirmation token of the document's example, which the mock takes. */
const exampleConfirmationToken = (
  apiDocument("dashboard").raw.paths["/dashboard/v1/email-confirmations"] as Record<string, any>
).post.requestBody.content["application/json"].examples.confirmed.value.token as string;

/** A browser's hold on the dashboard: the session cookie's value and the session's CSRF token. */
interface Session {
  token: string;
  csrf: string;
}

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

let people = 0;
/** A new person's sign-up (an address of its own: sign-up refuses a taken one, log-in failures count per address). */
function newPerson(password = "correto cavalo bateria grampo") {
  people += 1;
  return {
    name: "Maria Souza",
    email: `maria.contrato.${process.pid}.${people}.${Date.now()}@loja.example.com.br`,
    password,
    businessName: "Loja Contrato Ltda",
  };
}

describe.each(targets)("dashboard contract: $name", (target: Target) => {
  const realOnly = test.skipIf(!target.real);
  const seen = new Set<string>();

  /** One call, checked against the document. `session` null: none sent; `csrf` false: the token left out. */
  async function call(
    operationId: string,
    method: string,
    path: string,
    options: { session?: Session | null; csrf?: boolean; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.session) {
      headers.cookie = `${cookieName}=${options.session.token}`;
      if (options.csrf !== false && method !== "GET") headers["x-csrf-token"] = options.session.csrf;
    }
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${target.dashboard.baseUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    const body = parseBody(res.headers, text);
    expect(
      checker.check(operationId, res.status, res.headers, body),
      `${method} ${path} → ${res.status}: ${text.slice(0, 300)}`,
    ).toEqual([]);
    if (res.status >= 400) expect(body).toMatchObject({ ok: false, message: expect.any(String) });
    seen.add(`${operationId}:${res.status}`);
    return { status: res.status, body, headers: res.headers };
  }

  /** The session an answer that starts one carries (the mock's cookie is whatever Prism makes of the header). */
  function sessionOf(answer: Answer): Session {
    const token = new RegExp(`${cookieName}=([^;]*)`).exec(answer.headers.get("set-cookie") ?? "")?.[1];
    return { token: token || "sessaodomock0000000000000000000000000000000", csrf: answer.body.csrfToken };
  }

  /**
   * A person signs up and confirms the e-mail with the link received (on the mock, the document's
   * example token): an unconfirmed user is refused two-factor, invitations and verification
   * (`403 EMAIL_NOT_CONFIRMED`, issue 33 §1.10).
   */
  async function signUp(person = newPerson()): Promise<Session> {
    const answer = await call("signUp", "POST", "/dashboard/v1/sign-up", { body: person });
    expect(answer.status).toBe(201);
    const { mailbox } = target.dashboard;
    const token = mailbox
      ? ((await (await fetch(`${mailbox}?to=${encodeURIComponent(person.email)}`)).json()) as { token: string }).token
      : exampleConfirmationToken;
    const confirmed = await call("confirmEmail", "POST", "/dashboard/v1/email-confirmations", { body: { token } });
    expect(confirmed.status).toBe(204);
    return sessionOf(answer);
  }

  describe("a new merchant's first steps", () => {
    test("sign-up → 201 with the session cookie; its session → 200; its sessions → 200, this one current", async () => {
      const person = newPerson();
      const answer = await call("signUp", "POST", "/dashboard/v1/sign-up", { body: person });
      expect(answer.status).toBe(201);
      expect(answer.headers.get("set-cookie")).toBeTruthy();
      const session = sessionOf(answer);

      const current = await call("getSession", "GET", "/dashboard/v1/session", { session });
      const list = await call("listSessions", "GET", "/dashboard/v1/sessions", { session });

      expect(current.status).toBe(200);
      expect(list.status).toBe(200);
      if (target.real) {
        expect(answer.headers.get("set-cookie")).toMatch(
          /^__Host-pix_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure/,
        );
        expect(current.body.user).toMatchObject({ email: person.email, role: "owner" });
        expect(current.body.csrfToken).toBe(session.csrf);
        expect(list.body.data.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
      }
    });

    test("log-in → 201; a password change → 204, and ends the other session (401 on it)", async () => {
      const person = newPerson();
      const first = await signUp(person);
      const logIn = await call("logIn", "POST", "/dashboard/v1/session", {
        body: { email: person.email, password: person.password },
      });
      expect(logIn.status).toBe(201);
      const second = sessionOf(logIn);

      const changed = await call("changePassword", "POST", "/dashboard/v1/me/password", {
        session: first,
        body: { currentPassword: person.password, newPassword: "outra frase de senha bem longa" },
      });

      expect(changed.status).toBe(204);
      if (target.real) {
        expect((await call("getSession", "GET", "/dashboard/v1/session", { session: second })).status).toBe(401);
        expect((await call("getSession", "GET", "/dashboard/v1/session", { session: first })).status).toBe(200);
      }
    });

    test("two-factor set-up starts with the password → 200 with the secret to enrol", async () => {
      const person = newPerson();
      const session = await signUp(person);
      const started = await call("startTwoFactor", "POST", "/dashboard/v1/me/two-factor", {
        session,
        body: { currentPassword: person.password },
      });
      expect(started.status).toBe(200);
      if (target.real) {
        const again = await call("getSession", "GET", "/dashboard/v1/session", { session });
        expect(again.body.user.twoFactorEnabled).toBe(false);
      }
    });

    test("the balance of each mode → 200; a mode that is neither → 400", async () => {
      const session = await signUp();
      const testMode = await call("getDashboardBalance", "GET", "/dashboard/v1/modes/test/balance", { session });
      const production = await call("getDashboardBalance", "GET", "/dashboard/v1/modes/production/balance", {
        session,
      });
      const neither = await call("getDashboardBalance", "GET", "/dashboard/v1/modes/live/balance", { session });
      expect([testMode.status, production.status, neither.status]).toEqual([200, 200, 400]);
      if (target.real) expect([testMode.body.livemode, production.body.livemode]).toEqual([false, true]);
    });
  });

  describe("the session's refusals", () => {
    test("no session → 401", async () => {
      const res = await call("getSession", "GET", "/dashboard/v1/session", { session: null });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe("UNAUTHORIZED");
    });
    realOnly("a session nobody opened → 401 UNAUTHORIZED", async () => {
      const res = await call("listSessions", "GET", "/dashboard/v1/sessions", {
        session: { token: "a".repeat(43), csrf: "x" },
      });
      expect(res.body.code).toBe("UNAUTHORIZED");
    });
    test("a change without the CSRF token → 403 CSRF_REFUSED, on the mock as on the servers (issue 33)", async () => {
      const session = await signUp();
      const bare = await call("endSession", "DELETE", "/dashboard/v1/sessions/ses_0Fq9ZtR2mXwP8LkA3cD7", {
        session,
        csrf: false,
      });
      expect([bare.status, bare.body.code]).toEqual([403, "CSRF_REFUSED"]);
    });
    realOnly("a change without the CSRF token → 403 CSRF_REFUSED; from another origin → 403 CSRF_REFUSED", async () => {
      const session = await signUp();
      const bare = await call("startTwoFactor", "POST", "/dashboard/v1/me/two-factor", { session, csrf: false });
      const foreign = await call("startTwoFactor", "POST", "/dashboard/v1/me/two-factor", {
        session,
        headers: { origin: "https://outro-site.example" },
      });
      expect([bare.body.code, foreign.body.code]).toEqual(["CSRF_REFUSED", "CSRF_REFUSED"]);
    });
    realOnly("a role the operation's x-roles leave out (a viewer) → 403 ROLE_FORBIDDEN", async () => {
      const res = await call("getAccountSecurity", "GET", "/dashboard/v1/account/security", {
        session: target.dashboard.viewer,
      });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("ROLE_FORBIDDEN");
    });
    realOnly("a wrong password → 401 INVALID_CREDENTIALS; a taken address → 409 EMAIL_TAKEN", async () => {
      const person = newPerson();
      await signUp(person);
      const wrong = await call("logIn", "POST", "/dashboard/v1/session", {
        body: { email: person.email, password: "nao e a senha certa" },
      });
      const taken = await call("signUp", "POST", "/dashboard/v1/sign-up", { body: person });
      expect([wrong.body.code, taken.body.code]).toEqual(["INVALID_CREDENTIALS", "EMAIL_TAKEN"]);
    });
  });

  describe("every operation, on generated requests", () => {
    let owner: Session;
    const ids = new Map<string, string[]>();
    beforeAll(async () => {
      owner = await signUp();
    });

    /** The headers of a generated request's credentials. */
    function credentials(request: GeneratedRequest, info: (typeof operations)[number]): Record<string, string> {
      const session =
        request.key === "absent"
          ? null
          : request.key === "unknown"
            ? { token: "sessaoquenuncafoiaberta00000000000000000000", csrf: "x" }
            : request.key === "none"
              ? target.dashboard.viewer
              : owner;
      if (!session) return {};
      const csrf = request.key !== "no-csrf" && info.method !== "GET";
      return { cookie: `${cookieName}=${session.token}`, ...(csrf ? { "x-csrf-token": session.csrf } : {}) };
    }

    /** The path of a generated request: its `{mode}`, and an `{id}` seen in an earlier answer or one that names nothing. */
    function pathOf(request: GeneratedRequest, info: (typeof operations)[number]): string {
      const prefix = info.idPrefix ?? "obj";
      const known = ids.get(prefix) ?? [];
      return info.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
        if (name !== "id") return encodeURIComponent(request.pathValues?.[name] ?? "test");
        if (request.id === "too-long") return `${prefix}_${"a".repeat(65 - prefix.length)}`;
        return request.id !== "unknown" && known.length ? (known.at(-1) as string) : `${prefix}_naoexiste0000000000`;
      });
    }

    function harvest(value: unknown): void {
      if (Array.isArray(value)) return value.forEach(harvest);
      if (!value || typeof value !== "object") return;
      for (const [key, item] of Object.entries(value)) {
        if (key === "id" && typeof item === "string" && item.includes("_")) {
          const prefix = item.split("_")[0] as string;
          ids.set(prefix, [...(ids.get(prefix) ?? []), item]);
        } else harvest(item);
      }
    }

    test.each(operations.map((info) => ({ operationId: info.operationId, info })))(
      "$operationId answers what the document declares",
      async ({ info }) => {
        const { requests, pinned } = requestsFor(info);
        const sample = [
          ...pinned.map((arbitrary, i) => fc.sample(arbitrary, { seed: seed + i, numRuns: 1 })[0] as GeneratedRequest),
          ...fc.sample(requests, { seed, numRuns: runs }),
        ];
        for (const request of sample) {
          const query = new URLSearchParams(request.query).toString();
          const path = `${pathOf(request, info)}${query ? `?${query}` : ""}`;
          const answer = await call(info.operationId, info.method, path, {
            headers: credentials(request, info),
            ...(request.body === undefined ? {} : { body: request.body }),
          });
          if (answer.status < 300) harvest(answer.body);
          // A generated log-out, session end or password change may end the owner's session.
          if (answer.status === 401 && request.key === "full" && !info.keyless) owner = await signUp();
          if (target.real) expect(answer.status, `${info.method} ${path} (${request.label})`).toBeLessThan(500);
        }
      },
    );
  });

  afterAll(() => {
    // Every operation answered at least once with one of its declared statuses.
    const missing = checker.operations.filter((id) => ![...seen].some((s) => s.startsWith(`${id}:`)));
    expect(missing, `dashboard operations never answered on ${target.name}`).toEqual([]);
  });
});
