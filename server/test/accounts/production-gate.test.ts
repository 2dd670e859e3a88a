import { expect, test } from "vitest";
import { byId, chargeBody, expectStatus, operatorApi, publicApi, type TestServer, testAdminToken } from "../harness.js";
import { signedUp } from "../support/dashboard.js";
import { dashboardMerchant } from "../support/merchant.js";
import { recurrenceBody } from "../support/recurrences.js";
import { eachStore, serverOn } from "../support/stores.js";

// Production takes and moves money only for a verified account (issue 33 §1.1), on every path: the
// dashboard's links and refunds, the hosted checkout's form, charge pages and QR codes, the
// recurrence's hosted page, and the public API. An account the operator verified and then no
// longer does is refused the same way; verified again, the same request succeeds, so the refusal
// is the verification's alone. docs/decisions/0043-production-needs-a-verified-account-and-keys-carry-their-makers-money-powers.md.

type Mode = "test" | "production";
const inMode = (mode: Mode) => ({ params: { path: { mode } } });
const inModeId = (mode: Mode, id: string) => ({ params: { path: { mode, id } } });

/** Each test signs a merchant up (argon2id) and plays several pages: on a busy machine, more than the default. */
const slow = 90_000;

const operator = (server: TestServer) => operatorApi(server.baseUrl, { token: testAdminToken });

/** The operator verifies the account, or takes the verification away. */
async function setVerified(server: TestServer, accountId: string, verified: boolean) {
  expectStatus(
    await operator(server).PATCH("/admin/v1/accounts/{id}", { ...byId(accountId), body: { verified } }),
    200,
  );
}

interface Page {
  status: number;
  headers: Headers;
  text: string;
}

/** A payer's browser without JavaScript: keeps the checkout's cookie and posts its forms. */
function payerBrowser(server: TestServer) {
  const cookies = new Map<string, string>();
  const send = async (path: string, init: RequestInit): Promise<Page> => {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(`${server.baseUrl}${path}`, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(";");
      const at = pair?.indexOf("=") ?? -1;
      if (pair && at > 0) cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  return {
    get: (path: string) => send(path, { method: "GET" }),
    post: (path: string, fields: Record<string, string>) =>
      send(path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields).toString(),
      }),
  };
}

/** The hidden fields of a page's form (`_csrf`, `submission`). */
const hiddenFields = (page: string): Record<string, string> =>
  Object.fromEntries(
    [...page.matchAll(/<input\b[^>]*type="hidden"[^>]*>/g)].map((m) => [
      /name="([^"]*)"/.exec(m[0])?.[1] ?? "",
      /value="([^"]*)"/.exec(m[0])?.[1] ?? "",
    ]),
  );

const payerFields = {
  name: "Maria da Silva Santos",
  email: "maria.santos@example.com.br",
  phone: "(11) 98765-4321",
  document: "529.982.247-25",
};

/** A page's words, without its tags. */
const textOf = (page: string) =>
  page
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/\s+/g, " ");

for (const store of eachStore("production_gate")) {
  store.describe(`production needs a verified account on the ${store.name} store`, () => {
    const server = serverOn(store);

    test(
      "when a never-verified account creates a production payment link in the dashboard, then 403 ACCOUNT_NOT_ACTIVE and no link exists, while a test link is made",
      async () => {
        const { browser } = await signedUp(server);
        const link = { amountCents: 15_000, description: "Pagamento de tributo federal" };

        const production = await browser.api.POST("/dashboard/v1/modes/{mode}/payment-links", {
          ...inMode("production"),
          body: link,
        });
        const listed = await browser.api.GET("/dashboard/v1/modes/{mode}/payment-links", inMode("production"));
        const testLink = await browser.api.POST("/dashboard/v1/modes/{mode}/payment-links", {
          ...inMode("test"),
          body: link,
        });

        expectStatus(production, 403);
        expect(production.body).toMatchObject({ ok: false, code: "ACCOUNT_NOT_ACTIVE" });
        expectStatus(listed, 200);
        expect(listed.body.data).toEqual([]);
        expectStatus(testLink, 201);
        expect(testLink.body.livemode).toBe(false);
      },
      slow,
    );

    test(
      "when the operator takes an account's verification away, then its production link's checkout shows neither form nor code, a form already open makes no charge, and a waiting charge's page and QR code show no code; verified again, the form is back",
      async () => {
        const { browser, accountId } = await dashboardMerchant(server, { production: true });
        const created = await browser.api.POST("/dashboard/v1/modes/{mode}/payment-links", {
          ...inMode("production"),
          body: { amountCents: 4_990, description: "Curso de fotografia - turma de outubro" },
        });
        expectStatus(created, 201);
        const linkPath = `/checkout/${created.body.id}`;
        const payer = payerBrowser(server);
        const firstForm = await payer.get(linkPath);
        expect(firstForm.status).toBe(200);
        const submitted = await payer.post(linkPath, { ...hiddenFields(firstForm.text), ...payerFields });
        expect(submitted.status).toBe(303);
        const chargePath = submitted.headers.get("location") ?? "";
        const transactionId = /\/t\/(txn_[A-Za-z0-9]+)$/.exec(chargePath)?.[1] ?? "";
        const charge = await browser.api.GET(
          "/dashboard/v1/modes/{mode}/transactions/{id}",
          inModeId("production", transactionId),
        );
        expectStatus(charge, 200);
        const brCode = charge.body.transaction.pix.copyPaste;
        const payableBefore = await payer.get(chargePath);
        expect(payableBefore.text).toContain(brCode);
        const secondForm = await payer.get(linkPath);
        expect(secondForm.status).toBe(200);
        await setVerified(server, accountId, false);

        const form = await payer.get(linkPath);
        const posted = await payer.post(linkPath, { ...hiddenFields(secondForm.text), ...payerFields });
        const chargePage = await payer.get(chargePath);
        const qr = await payer.get(`${chargePath}/qr.png`);
        const charges = await browser.api.GET("/dashboard/v1/modes/{mode}/transactions", {
          params: { path: { mode: "production" }, query: { paymentLinkId: created.body.id } },
        });
        await setVerified(server, accountId, true);
        const formAgain = await payer.get(linkPath);

        for (const page of [form, posted, chargePage, qr]) {
          expect(page.status).toBe(403);
          expect(page.headers.get("content-type")).toMatch(/^text\/html/);
          expect(textOf(page.text)).toContain("Link de pagamento indisponível");
          expect(page.text).not.toContain(brCode);
          expect(page.text).not.toContain("<form");
          // The name and the words of a merchant nobody verified are not shown to payers.
          expect(page.text).not.toContain("Loja Exemplo Ltda");
          expect(page.text).not.toContain("Curso de fotografia");
        }
        expect(posted.headers.get("location")).toBeNull();
        expectStatus(charges, 200);
        expect(charges.body.data.map((t) => t.id)).toEqual([transactionId]);
        expect(formAgain.status).toBe(200);
        expect(formAgain.text).toContain("<form");
      },
      slow,
    );

    test(
      "when the operator takes an account's verification away, then a production refund in the dashboard answers 403 ACCOUNT_NOT_ACTIVE and moves nothing; verified again, the same refund is made",
      async () => {
        const { accountId, live, logIn } = await dashboardMerchant(server, { production: true });
        if (!live) throw new Error("no production key");
        const charge = await live.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 20_000 }) });
        expectStatus(charge, 201);
        expectStatus(
          await operator(server).POST("/admin/v1/simulator/transactions/{id}/pay", byId(charge.body.id)),
          200,
        );
        server.clock.advance(2 * 86_400);
        const browser = await logIn();
        const refund = () =>
          browser.api.POST("/dashboard/v1/modes/{mode}/transactions/{id}/refunds", {
            ...inModeId("production", charge.body.id),
            body: { amountCents: 5_000, reason: "Produto devolvido pelo cliente" },
          });
        const balance = async () => {
          const answer = await browser.api.GET("/dashboard/v1/modes/{mode}/balance", inMode("production"));
          expectStatus(answer, 200);
          return answer.body.availableCents;
        };
        const availableBefore = await balance();
        await setVerified(server, accountId, false);

        const refused = await refund();
        const availableUnverified = await balance();
        const refundsUnverified = await browser.api.GET(
          "/dashboard/v1/modes/{mode}/transactions/{id}",
          inModeId("production", charge.body.id),
        );
        await setVerified(server, accountId, true);
        const made = await refund();

        expectStatus(refused, 403);
        expect(refused.body).toMatchObject({ ok: false, code: "ACCOUNT_NOT_ACTIVE" });
        expect(availableUnverified).toBe(availableBefore);
        expectStatus(refundsUnverified, 200);
        expect(refundsUnverified.body.transaction.refundedAmountCents).toBe(0);
        expectStatus(made, 201);
        expect(made.body).toMatchObject({ amountCents: 5_000, livemode: true });
      },
      slow,
    );

    test(
      "when the operator takes an account's verification away, then its production recurrence's hosted page answers 403 without the terms or the QR code",
      async () => {
        const account = await server.newAccount({ name: "Academia Forma Ltda" });
        const live = publicApi(server.baseUrl, { key: account.liveKey ?? "" });
        const created = await live.POST("/api/v1/recurrences", { body: recurrenceBody() });
        expectStatus(created, 201);
        const pagePath = `/checkout/recurrences/${created.body.id}`;
        const payer = payerBrowser(server);
        const before = await payer.get(pagePath);
        expect(before.status).toBe(200);
        expect(before.text).toContain(`${pagePath}/qr.png`);
        await setVerified(server, account.account.id, false);

        const page = await payer.get(pagePath);
        const qr = await payer.get(`${pagePath}/qr.png`);

        for (const answer of [page, qr]) {
          expect(answer.status).toBe(403);
          expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
          expect(textOf(answer.text)).toContain("Autorização indisponível");
          expect(answer.text).not.toContain("qr.png");
          expect(answer.text).not.toContain("Academia Forma");
          expect(answer.text).not.toContain("Mensalidade Academia Forma");
        }
      },
      slow,
    );

    test(
      "when a production key's account is no longer verified, then the public API refuses its links, charges, refunds and recurrences with 403 ACCOUNT_NOT_ACTIVE",
      async () => {
        const account = await server.newAccount();
        const live = publicApi(server.baseUrl, { key: account.liveKey ?? "" });
        const paid = await live.POST("/api/v1/charges/pix", { body: chargeBody({ amountCents: 20_000 }) });
        expectStatus(paid, 201);
        await setVerified(server, account.account.id, false);

        const answers = [
          await live.POST("/api/v1/payment-links", { body: { amountCents: 4_990, description: "Curso" } }),
          await live.POST("/api/v1/charges/pix", { body: chargeBody() }),
          await live.POST("/api/v1/transactions/{id}/refunds", { ...byId(paid.body.id), body: { amountCents: 1_000 } }),
          await live.POST("/api/v1/recurrences", { body: recurrenceBody() }),
        ];

        expect(answers.map((a) => [a.status, (a.body as { code?: string }).code])).toEqual(
          answers.map(() => [403, "ACCOUNT_NOT_ACTIVE"]),
        );
      },
      slow,
    );
  });
}
