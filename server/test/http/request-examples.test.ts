import { expect, test } from "vitest";
import { rawCall, type TestServer, testAdminToken } from "../harness.js";
import {
  addMember,
  codeOf,
  type DashboardBrowser,
  lastLinkToken,
  signedUp,
  testOrigin,
  turnOnTwoFactor,
} from "../support/dashboard.js";
import { eachStore, serverOn } from "../support/stores.js";
import { createCertificateAuthority } from "../../../fake-bank/src/certs.js";
import { readOpenApiDocument } from "../../../server/src/http/kit/openapi-document.js";
import type { UrlGuard } from "../../src/domain/webhooks/index.js";
import { registrationGuard } from "../../src/webhooks/guard.js";

// Examples that rot (issue 33 §2): a reader copies a request example and sends it. Each example
// of the documents that sends something (`x-example-requests`, written by `npm run generate` from
// the @opExample: its status, its path, query and header values; its body under the same title)
// is sent to a fresh server, with what it needs made first (the objects its path names, in the
// state the example shows), and must answer the status it documents. The example's ids are
// replaced by the ids of the objects made; a date that must be near (a cycle charge's due date,
// 2 to 10 days ahead) is made relative to the server's clock.

// The examples' webhook address (https://loja.example.com.br/…) is a merchant's public server;
// this machine resolves no name, so the servers check the example's domain as the public address
// it stands for (the server's own guard, given that address: every other rule of it applies).
// Nothing is delivered in these tests.
const exampleDomainsPublic: UrlGuard = (url, livemode) => {
  const parsed = new URL(url);
  if (parsed.hostname.endsWith(".example.com.br")) parsed.hostname = "93.184.216.34";
  return registrationGuard(false)(parsed.toString(), livemode);
};

type Json = Record<string, any>;
type DocumentName = "openapi.yaml" | "admin-openapi.yaml" | "dashboard-openapi.yaml";

interface ExampleRequest {
  document: DocumentName;
  method: string;
  template: string;
  title: string;
  status: number;
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body?: unknown;
}

const methods = ["get", "put", "post", "patch", "delete"] as const;

function examplesOf(document: DocumentName): ExampleRequest[] {
  const doc = readOpenApiDocument(`generated/${document}`) as Json;
  return Object.entries(doc.paths as Json).flatMap(([template, item]) =>
    methods.flatMap((method) => {
      const operation = (item as Json)[method] as Json | undefined;
      return Object.entries((operation?.["x-example-requests"] ?? {}) as Json).map(([title, request]) => ({
        document,
        method: method.toUpperCase(),
        template,
        title,
        status: request.status as number,
        path: request.parameters?.path ?? {},
        query: request.parameters?.query ?? {},
        header: request.parameters?.header ?? {},
        body: operation?.requestBody?.content?.["application/json"]?.examples?.[title]?.value,
      }));
    }),
  );
}

const name = (e: ExampleRequest) => `${e.method} ${e.template} ${e.title}`;

/** What an example needs made first: the values that replace its path's, or its body. */
interface Arranged {
  path?: Record<string, string>;
  body?: unknown;
}

/**
 * The public API's arrangements: each example gets an account of its own (a verified one, so its
 * production key exists), so no example sees another's objects (the charge's payer is the
 * customer's example, which a created customer must not find).
 */
function publicWorld(server: TestServer) {
  let keys = { test: "", live: "" };
  let mode: "test" | "live" = "test";
  /** A new account for the next example, in test mode: its key is the one the example and its arrangement use. */
  const freshAccount = async (verified = true) => {
    const made = await server.newAccount({ name: "Loja Exemplos Ltda", verified });
    keys = { test: made.testKey, live: made.liveKey ?? "" };
    mode = "test";
    return made;
  };
  /** Another account's keys (a dashboard merchant's). */
  const useKeys = (other: { test: string; live: string }) => {
    keys = other;
    mode = "test";
  };
  /** What follows is made in production (the operator's simulator moves production objects only). */
  const inProduction = () => {
    mode = "live";
  };
  const check = (method: string, path: string, answer: { status: number; body: unknown }) => {
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as Json;
  };
  const call = async (method: string, path: string, body?: unknown) =>
    check(method, path, await rawCall<Json>(server.baseUrl, method, path, { key: keys[mode], body }));
  /** Test mode's sandbox route, or in production the operator's simulator route. */
  const play = async (sandbox: string, simulator: string, body: unknown = {}) =>
    mode === "test"
      ? call("POST", sandbox, body)
      : check("POST", simulator, await rawCall(server.baseUrl, "POST", simulator, { admin: testAdminToken, body }));
  const examples = examplesOf("openapi.yaml");
  const bodyOf = (template: string, title: string) =>
    examples.find((e) => e.template === template && e.title === title && e.method === "POST")?.body as Json;
  const day = (days: number) => new Date(server.clock.now().getTime() + days * 86_400_000).toISOString().slice(0, 10);

  const pending = async () =>
    (await call("POST", "/api/v1/charges/pix", bodyOf("/api/v1/charges/pix", "created"))).id as string;
  const paid = async () => {
    const id = await pending();
    await play(`/api/v1/sandbox/transactions/${id}/pay`, `/admin/v1/simulator/transactions/${id}/pay`);
    return id;
  };
  /** A paid charge whose amount was released (two days later): money a refund can return. */
  const released = async () => {
    const id = await paid();
    server.clock.advance(2 * 86_400);
    return id;
  };
  /** A recurrence whose first cycle is `ahead` days ahead (5: its charge may be sent now), its charges sent by the merchant. */
  const recurrence = async (approved: boolean, ahead = 5) => {
    const body = { ...bodyOf("/api/v1/recurrences", "created"), firstDate: day(ahead), automaticCharges: false };
    const { id } = await call("POST", "/api/v1/recurrences", body);
    if (approved)
      await play(`/api/v1/sandbox/recurrences/${id}/approve`, `/admin/v1/simulator/recurrences/${id}/approve`);
    return { id: id as string, firstDate: body.firstDate };
  };
  const customer = async () =>
    (await call("POST", "/api/v1/customers", bodyOf("/api/v1/customers", "created"))).id as string;
  const link = async () =>
    (await call("POST", "/api/v1/payment-links", bodyOf("/api/v1/payment-links", "created"))).id as string;
  /** Money available to withdraw: a paid charge whose amount was released (two days later). */
  const funds = async () => {
    const { id } = await call("POST", "/api/v1/charges/pix", {
      ...bodyOf("/api/v1/charges/pix", "created"),
      amountCents: 1_000_000,
    });
    await play(`/api/v1/sandbox/transactions/${id}/pay`, `/admin/v1/simulator/transactions/${id}/pay`);
    server.clock.advance(2 * 86_400);
  };

  const arrange: Record<string, () => Promise<Arranged>> = {
    "POST /api/v1/customers updated": async () => {
      await call("POST", "/api/v1/customers", bodyOf("/api/v1/customers", "updated"));
      return {};
    },
    "GET /api/v1/customers byDocument": async () => {
      await customer();
      return {};
    },
    "GET /api/v1/customers/{id} found": async () => ({ path: { id: await customer() } }),
    "PATCH /api/v1/customers/{id} updated": async () => ({ path: { id: await customer() } }),
    "GET /api/v1/events/{id} found": async () => {
      await paid();
      const events = await call("GET", "/api/v1/events?limit=1");
      return { path: { id: events.data[0].id } };
    },
    "GET /api/v1/payment-links/{id} found": async () => ({ path: { id: await link() } }),
    "POST /api/v1/payment-links/{id}/deactivate deactivated": async () => ({ path: { id: await link() } }),
    "GET /api/v1/recurrences/{id} approved": async () => ({ path: { id: (await recurrence(true)).id } }),
    "POST /api/v1/recurrences/{id}/cancel cancelled": async () => ({ path: { id: (await recurrence(true)).id } }),
    "POST /api/v1/recurrences/{id}/charges created": async () => {
      // A cycle charge is sent 2 to 10 days before its due date: the first cycle, 5 days ahead.
      const { id, firstDate } = await recurrence(true);
      return { path: { id }, body: { dueDate: firstDate } };
    },
    "GET /api/v1/refunds/{id} pending": async () => {
      const id = await released();
      const refund = await call("POST", `/api/v1/transactions/${id}/refunds`, { amountCents: 1000 });
      return { path: { id: refund.id } };
    },
    "POST /api/v1/sandbox/disputes/{id}/resolve lost": async () => {
      await funds();
      const id = await paid();
      const disputed = await call("POST", `/api/v1/sandbox/transactions/${id}/dispute`, {});
      return { path: { id: disputed.dispute.id } };
    },
    // The calendar moves to the first day the next cycle's charge may be sent: a cycle 30 days ahead.
    "POST /api/v1/sandbox/recurrences/{id}/advance advanced": async () => ({
      path: { id: (await recurrence(true, 30)).id },
    }),
    "POST /api/v1/sandbox/recurrences/{id}/approve approved": async () => ({
      path: { id: (await recurrence(false)).id },
    }),
    "POST /api/v1/sandbox/recurrences/{id}/cancel-by-payer cancelled": async () => ({
      path: { id: (await recurrence(true)).id },
    }),
    "POST /api/v1/sandbox/recurrences/{id}/expire expired": async () => ({
      path: { id: (await recurrence(false)).id },
    }),
    "POST /api/v1/sandbox/recurrences/{id}/reject rejected": async () => ({
      path: { id: (await recurrence(false)).id },
    }),
    "POST /api/v1/sandbox/transactions/{id}/dispute opened": async () => {
      // A dispute holds its amount from the available balance.
      await funds();
      return { path: { id: await paid() } };
    },
    "POST /api/v1/sandbox/transactions/{id}/expire expired": async () => ({ path: { id: await pending() } }),
    "POST /api/v1/sandbox/transactions/{id}/pay paid": async () => ({ path: { id: await pending() } }),
    // A charge with a due date (the create example's, due 2030-12-13), paid on the example's date.
    "POST /api/v1/sandbox/transactions/{id}/pay paidLate": async () => ({
      path: { id: (await call("POST", "/api/v1/charges/due-date", bodyOf("/api/v1/charges/due-date", "created"))).id },
    }),
    "POST /api/v1/sandbox/transactions/{id}/settle-attempt retrying": async () => {
      // A cycle charge's attempt, scheduled (the recurrence retries 3 times in 7 days).
      const { id, firstDate } = await recurrence(true);
      const charge = await call("POST", `/api/v1/recurrences/${id}/charges`, { dueDate: firstDate });
      return { path: { id: charge.id } };
    },
    "GET /api/v1/transactions/{id} paid": async () => ({ path: { id: await paid() } }),
    "POST /api/v1/transactions/{id}/cancel cancelled": async () => ({ path: { id: await pending() } }),
    "POST /api/v1/transactions/{id}/refunds created": async () => ({ path: { id: await released() } }),
    "GET /api/v1/transactions/{id}/refunds page": async () => ({ path: { id: await paid() } }),
    "POST /api/v1/withdrawals created": async () => {
      await funds();
      return {};
    },
    "GET /api/v1/withdrawals/{id} found": async () => {
      await funds();
      const withdrawal = await call("POST", "/api/v1/withdrawals", bodyOf("/api/v1/withdrawals", "created"));
      return { path: { id: withdrawal.id } };
    },
  };
  return {
    examples,
    freshAccount,
    useKeys,
    inProduction,
    arrange,
    call,
    pending,
    paid,
    released,
    recurrence,
    customer,
    link,
    funds,
  };
}

/**
 * The operator API's arrangements, on a new account each (its objects made through the public API
 * as an integration would); a verification request is a dashboard user's, sent `versions` times.
 */
function adminWorld(server: TestServer) {
  const merchant = publicWorld(server);
  const operator = async (method: string, path: string, body?: unknown) => {
    const answer = await rawCall<Json>(server.baseUrl, method, path, { admin: testAdminToken, body });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const verificationBody = examplesOf("dashboard-openapi.yaml").find(
    (e) => e.template === "/dashboard/v1/account/verification" && e.method === "POST",
  )?.body;
  /** A dashboard merchant whose verification request was sent `versions` times: its account's id. */
  const requested = async (versions: number) => {
    const { browser, session } = await signedUp(server);
    for (let i = 0; i < versions; i++) {
      const answer = await browser.api.POST("/dashboard/v1/account/verification", { body: verificationBody as never });
      if (answer.status !== 201)
        throw new Error(`verification request: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    return session.account.id as string;
  };
  let account = "";
  /** A new account; the simulator's examples move production objects, made with its production key. */
  const freshAccount = async (example: ExampleRequest) => {
    account = (await merchant.freshAccount()).account.id;
    if (example.template.startsWith("/admin/v1/simulator/")) merchant.inProduction();
  };
  const endpoint = async () =>
    (
      await operator("POST", `/admin/v1/accounts/${account}/webhook-endpoints`, {
        url: "https://loja.example.com.br/webhooks/pix",
        mode: "test",
        events: ["transaction.paid"],
      })
    ).id as string;
  const event = async () => {
    await merchant.paid();
    return (await operator("GET", `/admin/v1/accounts/${account}/events?mode=test`)).data[0].id as string;
  };
  const withAccount = async (): Promise<Arranged> => ({ path: { id: account } });
  // The bank connection's examples: a certificate and key that belong together, made now (the
  // example's are shortened placeholders), and the connection there or not as each example needs.
  const bankExample = examplesOf("admin-openapi.yaml").find(
    (e) => e.template === "/admin/v1/bank-connection" && e.method === "PUT" && e.title === "set",
  )?.body as Json;
  const bankConnection = () => {
    const issued = createCertificateAuthority("Banco de exemplo").issueClient(bankExample.clientId as string);
    return {
      ...bankExample,
      certificate: { format: "pem", certificatePem: issued.certPem, privateKeyPem: issued.keyPem },
    };
  };
  const noConnection = async (): Promise<Arranged> => {
    const answer = await rawCall<Json>(server.baseUrl, "DELETE", "/admin/v1/bank-connection", {
      admin: testAdminToken,
    });
    if (answer.status !== 204 && answer.status !== 404)
      throw new Error(`DELETE /admin/v1/bank-connection: ${answer.status} ${JSON.stringify(answer.body)}`);
    return {};
  };
  const arrange: Record<string, () => Promise<Arranged>> = {
    "PUT /admin/v1/bank-connection set": async () => ({ body: bankConnection() }),
    "PATCH /admin/v1/bank-connection none": noConnection,
    "PATCH /admin/v1/bank-connection newSecret": async () => {
      await operator("PUT", "/admin/v1/bank-connection", bankConnection());
      return {};
    },
    "POST /admin/v1/bank/reconciliations noBank": noConnection,
    "GET /admin/v1/accounts/{id} found": withAccount,
    // The merchant replaced its request (version 3) after the operator reviewed version 2.
    "PATCH /admin/v1/accounts/{id} requestChanged": async () => ({ path: { id: await requested(3) } }),
    "PATCH /admin/v1/accounts/{id} verified": async () => ({ path: { id: await requested(2) } }),
    "POST /admin/v1/accounts/{id}/api-keys accountNotVerified": async () => ({
      path: { id: (await merchant.freshAccount(false)).account.id },
    }),
    "POST /admin/v1/accounts/{id}/api-keys created": withAccount,
    "GET /admin/v1/accounts/{id}/api-keys keys": withAccount,
    "GET /admin/v1/accounts/{id}/events events": withAccount,
    "GET /admin/v1/accounts/{id}/verification-request found": async () => ({ path: { id: await requested(1) } }),
    "POST /admin/v1/accounts/{id}/verification-request/reject rejected": async () => ({
      path: { id: await requested(2) },
    }),
    "POST /admin/v1/accounts/{id}/webhook-endpoints created": withAccount,
    "GET /admin/v1/accounts/{id}/webhook-endpoints endpoints": withAccount,
    "PATCH /admin/v1/api-keys/{id} updated": async () => ({
      path: {
        id: (await operator("POST", `/admin/v1/accounts/${account}/api-keys`, { name: "outra", mode: "test" })).id,
      },
    }),
    "POST /admin/v1/api-keys/{id}/revoke revoked": async () => ({
      path: {
        id: (await operator("POST", `/admin/v1/accounts/${account}/api-keys`, { name: "outra", mode: "test" })).id,
      },
    }),
    "GET /admin/v1/customers/{id}/notes notes": async () => ({ path: { id: await merchant.customer() } }),
    "PUT /admin/v1/customers/{id}/notes set": async () => ({ path: { id: await merchant.customer() } }),
    "POST /admin/v1/events/{id}/replay replayed": async () => ({ path: { id: await event() } }),
    "POST /admin/v1/simulator/disputes/{id}/close won": async () => {
      await merchant.funds();
      const disputed = await operator("POST", `/admin/v1/simulator/transactions/${await merchant.paid()}/disputes`, {});
      return { path: { id: disputed.dispute.id } };
    },
    "POST /admin/v1/simulator/recurrences/{id}/approve approved": async () => ({
      path: { id: (await merchant.recurrence(false)).id },
    }),
    "POST /admin/v1/simulator/recurrences/{id}/cancel cancelled": async () => ({
      path: { id: (await merchant.recurrence(true)).id },
    }),
    "POST /admin/v1/simulator/recurrences/{id}/reject rejected": async () => ({
      path: { id: (await merchant.recurrence(false)).id },
    }),
    "POST /admin/v1/simulator/refunds/{id}/settle completed": async () => {
      const id = await merchant.released();
      return {
        path: { id: (await merchant.call("POST", `/api/v1/transactions/${id}/refunds`, { amountCents: 1000 })).id },
      };
    },
    "POST /admin/v1/simulator/transactions/{id}/disputes opened": async () => {
      await merchant.funds();
      return { path: { id: await merchant.paid() } };
    },
    "POST /admin/v1/simulator/transactions/{id}/pay paid": async () => ({ path: { id: await merchant.pending() } }),
    "POST /admin/v1/simulator/transactions/{id}/settle-attempt retrying": async () => {
      const { id, firstDate } = await merchant.recurrence(true);
      const charge = await merchant.call("POST", `/api/v1/recurrences/${id}/charges`, { dueDate: firstDate });
      return { path: { id: charge.id } };
    },
    "POST /admin/v1/simulator/withdrawals/{id}/settle paid": async () => {
      await merchant.funds();
      const withdrawal = await merchant.call("POST", "/api/v1/withdrawals", {
        amountCents: 50_000,
        pixKey: "52998224725",
        pixKeyType: "CPF",
      });
      return { path: { id: withdrawal.id } };
    },
    "PATCH /admin/v1/webhook-endpoints/{id} enabled": async () => ({ path: { id: await endpoint() } }),
    "GET /admin/v1/webhook-endpoints/{id}/deliveries deliveries": async () => ({ path: { id: await endpoint() } }),
    "POST /admin/v1/webhook-endpoints/{id}/rotate-secret rotated": async () => ({ path: { id: await endpoint() } }),
  };
  return { examples: examplesOf("admin-openapi.yaml"), freshAccount, arrange };
}

/**
 * The dashboard's arrangements: a person signed up (e-mail confirmed) for each example, whose
 * session sends it; the objects its path names made through the public API with a test key the
 * operator gave the account.
 */
function dashboardWorld(server: TestServer) {
  const merchant = publicWorld(server);
  let session: { cookie: string; csrf: string } = { cookie: "", csrf: "" };
  let accountId = "";
  const operator = async (method: string, path: string, body?: unknown) => {
    const answer = await rawCall<Json>(server.baseUrl, method, path, { admin: testAdminToken, body });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  let person = { email: "", password: "" };
  let keyId = "";
  let browser: DashboardBrowser | undefined;
  const freshMerchant = async () => {
    // A kept-alive connection the server closed as the sign-up reused it (ECONNRESET, seldom, on
    // a loaded machine) fails the fetch before anything was done: a new person signs up instead.
    const {
      browser: opened,
      session: started,
      person: who,
    } = await signedUp(server).catch((error: unknown) => {
      if (!(error instanceof TypeError && error.message === "fetch failed")) throw error;
      return signedUp(server);
    });
    browser = opened;
    session = { cookie: opened.cookie as string, csrf: opened.csrf as string };
    person = { email: who.email, password: who.password };
    accountId = started.account.id;
    const key = await operator("POST", `/admin/v1/accounts/${accountId}/api-keys`, { name: "exemplos", mode: "test" });
    keyId = key.id as string;
    merchant.useKeys({ test: key.secret as string, live: "" });
  };
  /** Logs in again: a session ends 12 hours after it began by the server's clock, which money's release moves by days. */
  const logIn = async () => {
    const answer = await browser!.api.POST("/dashboard/v1/session", { body: person });
    if (answer.status !== 201) throw new Error(`log-in: ${answer.status}`);
    session = { cookie: browser!.cookie as string, csrf: browser!.csrf as string };
  };
  /** Money released two days later: the session has ended by then, so the person logs in again. */
  const afterMoney = async <T>(made: T) => {
    await logIn();
    return made;
  };
  /** The account verified by the operator, with a production key: what follows is made in production. */
  const production = async () => {
    await operator("PATCH", `/admin/v1/accounts/${accountId}`, { verified: true });
    const live = await operator("POST", `/admin/v1/accounts/${accountId}/api-keys`, {
      name: "prod",
      mode: "production",
    });
    merchant.useKeys({ test: "", live: live.secret as string });
    merchant.inProduction();
  };
  /** A production withdrawal needs money released, two-factor on and a recent step-up. */
  const productionFunds = async () => {
    await production();
    await afterMoney(await merchant.funds());
    await stepUp();
  };
  const dashboard = async (method: string, path: string, body?: unknown) => {
    const answer = await rawCall<Json>(server.baseUrl, method, path, { headers: headers(), body });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  /** Two-factor on and the session stepped up (renewed), as the app asks before a dangerous operation. */
  const stepUp = async () => {
    const on = await turnOnTwoFactor(server, browser!, person.password);
    session = { cookie: browser!.cookie as string, csrf: browser!.csrf as string };
    return on;
  };
  const example = (template: string) =>
    examplesOf("dashboard-openapi.yaml").find((e) => e.template === template && e.body !== undefined)?.body;
  let invitations = 0;
  const endpoint = async () =>
    (
      await operator("POST", `/admin/v1/accounts/${accountId}/webhook-endpoints`, {
        url: "https://loja.example.com.br/webhooks/pix",
        mode: "test",
        events: ["transaction.paid"],
      })
    ).id as string;
  const headers = () => ({
    cookie: `__Host-pix_session=${session.cookie}`,
    "x-csrf-token": session.csrf,
    origin: testOrigin,
  });
  const arrange: Record<string, () => Promise<Arranged>> = {
    "GET /dashboard/v1/modes/{mode}/customers/{id} customer": async () => ({ path: { id: await merchant.customer() } }),
    "PATCH /dashboard/v1/modes/{mode}/customers/{id}/notes written": async () => ({
      path: { id: await merchant.customer() },
    }),
    "GET /dashboard/v1/modes/{mode}/customers byDocument": async () => {
      await merchant.customer();
      return {};
    },
    "GET /dashboard/v1/modes/{mode}/transactions/{id} paid": async () => ({ path: { id: await merchant.paid() } }),
    "POST /dashboard/v1/modes/{mode}/transactions/{id}/refunds refunded": async () => ({
      path: { id: await afterMoney(await merchant.released()) },
    }),
    "POST /dashboard/v1/modes/{mode}/withdrawals withdrawn": async () => (await productionFunds(), {}),
    "GET /dashboard/v1/modes/{mode}/withdrawals/{id} withdrawal": async () => {
      await productionFunds();
      const made = await dashboard(
        "POST",
        "/dashboard/v1/modes/production/withdrawals",
        example("/dashboard/v1/modes/{mode}/withdrawals"),
      );
      return { path: { id: made.id as string } };
    },
    "POST /dashboard/v1/modes/{mode}/webhook-endpoints/{id}/deliveries/{deliveryId}/resend resent": async () => {
      const id = await endpoint();
      await merchant.paid();
      const { data } = await dashboard("GET", `/dashboard/v1/modes/test/webhook-endpoints/${id}/deliveries`);
      return { path: { id, deliveryId: (data as Json[])[0]?.id as string } };
    },
    "POST /dashboard/v1/modes/{mode}/sandbox/transactions/{id}/pay paid": async () => ({
      path: { id: await merchant.pending() },
    }),
    "POST /dashboard/v1/modes/{mode}/sandbox/transactions/{id}/expire expired": async () => ({
      path: { id: await merchant.pending() },
    }),
    "POST /dashboard/v1/modes/{mode}/sandbox/transactions/{id}/dispute disputed": async () => {
      await afterMoney(await merchant.funds());
      return { path: { id: await merchant.paid() } };
    },
    "POST /dashboard/v1/modes/{mode}/sandbox/disputes/{id}/resolve lost": async () => {
      await afterMoney(await merchant.funds());
      const disputed = await merchant.call("POST", `/api/v1/sandbox/transactions/${await merchant.paid()}/dispute`, {});
      return { path: { id: disputed.dispute.id } };
    },
    "GET /dashboard/v1/modes/{mode}/payment-links/{id} link": async () => ({ path: { id: await merchant.link() } }),
    "PATCH /dashboard/v1/modes/{mode}/api-keys/{id} updated": async () => ({ path: { id: keyId } }),
    "POST /dashboard/v1/modes/{mode}/api-keys/{id}/revoke revoked": async () => ({ path: { id: keyId } }),
    "POST /dashboard/v1/modes/{mode}/api-keys/{id}/roll rolled": async () => ({ path: { id: keyId } }),
    "GET /dashboard/v1/modes/{mode}/events/{id} found": async () => {
      await merchant.paid();
      return { path: { id: (await merchant.call("GET", "/api/v1/events?limit=1")).data[0].id } };
    },
    "GET /dashboard/v1/modes/{mode}/request-logs/{id} found": async () => {
      await merchant.call("GET", "/api/v1/balance");
      return { path: { id: (await dashboard("GET", "/dashboard/v1/modes/test/request-logs?limit=1")).data[0].id } };
    },
    "PATCH /dashboard/v1/modes/{mode}/webhook-endpoints/{id} disabled": async () => ({
      path: { id: await endpoint() },
    }),
    "GET /dashboard/v1/modes/{mode}/webhook-endpoints/{id}/deliveries deliveries": async () => ({
      path: { id: await endpoint() },
    }),
    "POST /dashboard/v1/modes/{mode}/webhook-endpoints/{id}/reveal-secret revealed": async () => ({
      path: { id: await endpoint() },
    }),
    "POST /dashboard/v1/modes/{mode}/webhook-endpoints/{id}/rotate-secret rotated": async () => ({
      path: { id: await endpoint() },
    }),
    "POST /dashboard/v1/modes/{mode}/webhook-endpoints/{id}/test-events queued": async () => ({
      path: { id: await endpoint() },
    }),
    "DELETE /dashboard/v1/modes/{mode}/webhook-endpoints/{id} deleted": async () => ({
      path: { id: await endpoint() },
    }),
    "PATCH /dashboard/v1/account/security required": async () => (await stepUp(), {}),
    "POST /dashboard/v1/team/invitations invited": async () => (await stepUp(), {}),
    "PATCH /dashboard/v1/team/members/{id} changed": async () => {
      await stepUp();
      const { email } = await addMember(server, accountId, "developer");
      return { path: { id: (await server.store.read.users.getByEmail(email))!.id } };
    },
    "POST /dashboard/v1/me/two-factor/confirm confirmed": async () => {
      const started = await dashboard("POST", "/dashboard/v1/me/two-factor", { currentPassword: person.password });
      return { body: { code: codeOf(server, started.secret as string) } };
    },
    "POST /dashboard/v1/session/step-up steppedUp": async () => {
      const { secret } = await stepUp();
      server.clock.advance(30);
      return { body: { code: codeOf(server, secret) } };
    },
    // Four wrong codes before it: the example's is the fifth, which locks the step-up.
    "POST /dashboard/v1/session/step-up locked": async () => {
      await stepUp();
      for (let i = 0; i < 4; i++)
        await rawCall(server.baseUrl, "POST", "/dashboard/v1/session/step-up", {
          headers: headers(),
          body: { code: "000000" },
        });
      return {};
    },
    "POST /dashboard/v1/email-confirmations confirmed": async () => {
      const { person: unconfirmed } = await signedUp(server, {}, { confirmEmail: false });
      return { body: { token: lastLinkToken(server, unconfirmed.email) } };
    },
    "POST /dashboard/v1/password-resets/complete reset": async () => {
      await rawCall(server.baseUrl, "POST", "/dashboard/v1/password-resets", {
        headers: { origin: testOrigin },
        body: { email: person.email },
      });
      return {
        body: {
          ...(example("/dashboard/v1/password-resets/complete") as Json),
          token: lastLinkToken(server, person.email),
        },
      };
    },
    "POST /dashboard/v1/invitations/accept accepted": async () => {
      await stepUp();
      const invitee = `convidado.${++invitations}.${Date.now()}@loja.example.com.br`;
      await dashboard("POST", "/dashboard/v1/team/invitations", { email: invitee, role: "developer" });
      return {
        body: { ...(example("/dashboard/v1/invitations/accept") as Json), token: lastLinkToken(server, invitee) },
      };
    },
    // The example's person is this one: its e-mail and password.
    "POST /dashboard/v1/session loggedIn": async () => ({ body: person }),
    // Another session of the same person, ended from this one.
    "DELETE /dashboard/v1/sessions/{id} ended": async () => {
      await rawCall(server.baseUrl, "POST", "/dashboard/v1/session", { headers: { origin: testOrigin }, body: person });
      const { data } = await dashboard("GET", "/dashboard/v1/sessions");
      return { path: { id: (data as Json[]).find((listed) => !listed.current)!.id } };
    },
    "POST /dashboard/v1/modes/{mode}/payment-links/{id}/deactivate deactivated": async () => ({
      path: { id: await merchant.link() },
    }),
    "GET /dashboard/v1/modes/{mode}/recurrences/{id} approved": async () => ({
      path: { id: (await merchant.recurrence(true)).id },
    }),
    "POST /dashboard/v1/modes/{mode}/recurrences/{id}/cancel cancelled": async () => ({
      path: { id: (await merchant.recurrence(true)).id },
    }),
    "POST /dashboard/v1/modes/{mode}/recurrences/{id}/charges created": async () => {
      // A cycle charge is sent 2 to 10 days before its due date: the first cycle, 5 days ahead.
      const { id, firstDate } = await merchant.recurrence(true);
      return { path: { id }, body: { dueDate: firstDate } };
    },
    "POST /dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/approve approved": async () => ({
      path: { id: (await merchant.recurrence(false)).id },
    }),
    "POST /dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/reject rejected": async () => ({
      path: { id: (await merchant.recurrence(false)).id },
    }),
    "POST /dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/cancel-by-payer cancelled": async () => ({
      path: { id: (await merchant.recurrence(true)).id },
    }),
    "POST /dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/expire expired": async () => ({
      path: { id: (await merchant.recurrence(false)).id },
    }),
    "POST /dashboard/v1/modes/{mode}/sandbox/recurrences/{id}/advance advanced": async () => ({
      path: { id: (await merchant.recurrence(true, 30)).id },
    }),
    "POST /dashboard/v1/modes/{mode}/sandbox/transactions/{id}/settle-attempt retrying": async () => {
      const { id, firstDate } = await merchant.recurrence(true);
      const charge = await merchant.call("POST", `/api/v1/recurrences/${id}/charges`, { dueDate: firstDate });
      return { path: { id: charge.id } };
    },
  };
  return { examples: examplesOf("dashboard-openapi.yaml"), freshMerchant, logIn, headers, arrange };
}

const noBankOnTestServer =
  "a test server has no bank connected (it answers 404); server/test/bank/reconcile-now.test.ts runs it with the bank's test double and the fake bank";

/** Examples that cannot succeed on a test server, each with the reason. */
const skipped: Record<string, string> = {
  "POST /admin/v1/clock/advance manualClockOff":
    "the clock routes answer 404 on a server started without PIX_MANUAL_CLOCK=1; every test server runs the manual clock",
  "POST /admin/v1/bank/reconciliations scheduledWindow": noBankOnTestServer,
  "POST /admin/v1/bank/reconciliations again": noBankOnTestServer,
  "POST /admin/v1/bank/reconciliations afterOutage": noBankOnTestServer,
  "POST /admin/v1/bank/reconciliations bankDown": noBankOnTestServer,
  ...Object.fromEntries(
    ["returned", "processing", "alreadyReturned", "bankDown"].map((title) => [
      `POST /admin/v1/bank/unmatched-receipts/{endToEndId}/return ${title}`,
      "a test server has no bank connected (it answers 404); server/test/bank/unmatched-return.test.ts returns receipts at the fake bank",
    ]),
  ),
};

let idempotencyKeys = 0;

/** Sends one example as arranged: the arranged path values and body over the example's. */
async function send(
  server: TestServer,
  example: ExampleRequest,
  arranged: Arranged,
  auth: { key?: string; admin?: string },
) {
  const values = { ...example.path, ...arranged.path } as Record<string, unknown>;
  const path = example.template.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(String(values[p])));
  const query = new URLSearchParams(
    Object.entries(example.query).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  const headers = Object.fromEntries(
    Object.entries(example.header).map(([k, v]) =>
      // The same idempotency key with another body is refused: each example sends its own.
      [k, k === "idempotency-key" ? `${String(v)}-${++idempotencyKeys}` : String(v)],
    ),
  );
  return rawCall<Json>(server.baseUrl, example.method, query ? `${path}?${query}` : path, {
    ...auth,
    headers,
    body: arranged.body ?? example.body,
  });
}

for (const store of eachStore("request_examples")) {
  store.describe(`the request examples, sent to a fresh server (${store.name})`, () => {
    const server = serverOn(store, { webhookUrlGuard: exampleDomainsPublic });

    test("when each example of the public document is sent with what it needs, then it answers the status it documents", async () => {
      const world = publicWorld(server);
      expect(world.examples.length).toBeGreaterThan(30);
      const wrong: string[] = [];
      for (const example of world.examples) {
        const { testKey } = await world.freshAccount();
        const arranged = await (world.arrange[name(example)] ?? (async () => ({})))();
        const answer = await send(server, example, arranged, { key: testKey });
        if (answer.status !== example.status)
          wrong.push(`${name(example)}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
      }
      expect(wrong).toEqual([]);
    }, 90_000);

    test("when each example of the operator's document is sent with what it needs, then it answers the status it documents", async () => {
      const world = adminWorld(server);
      expect(world.examples.length).toBeGreaterThan(30);
      const wrong: string[] = [];
      for (const example of world.examples.filter((e) => !skipped[name(e)])) {
        await world.freshAccount(example);
        const arranged = await (world.arrange[name(example)] ?? (async () => ({})))();
        const answer = await send(server, example, arranged, { admin: testAdminToken }).catch((error: unknown) => {
          throw new Error(`${name(example)}: ${String(error)}`, { cause: error });
        });
        if (answer.status !== example.status)
          wrong.push(`${name(example)}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
      }
      expect(wrong).toEqual([]);
    }, 90_000);

    test("when each example of the dashboard's document is sent with what it needs, then it answers the status it documents", async () => {
      const world = dashboardWorld(server);
      expect(world.examples.length).toBeGreaterThan(60);
      const wrong: string[] = [];
      for (const example of world.examples.filter((e) => !skipped[name(e)])) {
        await world.freshMerchant();
        const arranged = await (world.arrange[name(example)] ?? (async () => ({})))();
        const answer = await send(
          server,
          { ...example, header: { ...example.header, ...world.headers() } },
          arranged,
          {},
        );
        if (answer.status !== example.status)
          wrong.push(`${name(example)}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
      }
      expect(wrong).toEqual([]);
    }, 90_000);
  });
}
