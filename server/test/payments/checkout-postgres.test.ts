import { expect, test } from "vitest";
import { bodyOf, byId, publicApi, type TestServer } from "../harness.js";
import { postgresStore, serverOn } from "../support/stores.js";

// The hosted checkout on the PostgreSQL store: the link found by id alone, one charge per form
// under real concurrency, and the simulated payment exhausting a single-use link.

let server: TestServer;

/** Opens the form with its own cookie and returns a function that posts it. */
async function openForm(linkId: string) {
  const res = await fetch(`${server.baseUrl}/checkout/${linkId}`);
  expect(res.status).toBe(200);
  const cookie = (res.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
  const page = await res.text();
  const hidden = Object.fromEntries(
    [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]),
  );
  const post = (path: string, fields: Record<string, string>) =>
    fetch(`${server.baseUrl}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  return {
    get: (path: string) => fetch(`${server.baseUrl}${path}`, { headers: { cookie } }),
    submit: () =>
      post(`/checkout/${linkId}`, {
        ...hidden,
        name: "Maria da Silva Santos",
        email: "maria.santos@example.com.br",
        phone: "11987654321",
        document: "52998224725",
      }),
    post,
  };
}

const postgres = postgresStore("checkout");

postgres.describe("hosted checkout on the PostgreSQL store", () => {
  server = serverOn(postgres);

  test("when one form is submitted five times at once, then one charge, and every answer leads to it", async () => {
    const { testKey } = await server.newAccount();
    const api = publicApi(server.baseUrl, { key: testKey });
    const link = await bodyOf(
      api.POST("/api/v1/payment-links", {
        body: { amountCents: 4990, description: "Curso de fotografia - turma de outubro" },
      }),
      201,
    );
    const form = await openForm(link.id);

    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => form.submit()));

    expect(answers.map((a) => a.status)).toEqual([303, 303, 303, 303, 303]);
    expect(new Set(answers.map((a) => a.headers.get("location"))).size).toBe(1);
    const list = await bodyOf(api.GET("/api/v1/transactions", { params: { query: { paymentLinkId: link.id } } }), 200);
    expect(list.data).toHaveLength(1);
  });

  test("when a single-use link's charge is paid with Simular pagamento, then the link reads exhausted", async () => {
    const { testKey } = await server.newAccount();
    const api = publicApi(server.baseUrl, { key: testKey });
    const link = await bodyOf(
      api.POST("/api/v1/payment-links", {
        body: { amountCents: 4990, description: "Curso de fotografia - turma de outubro", maxPayments: 1 },
      }),
      201,
    );
    const form = await openForm(link.id);
    const location = (await form.submit()).headers.get("location") as string;
    const chargePage = await (await form.get(location)).text();
    const csrf = chargePage.match(/name="_csrf" value="([^"]+)"/)?.[1] ?? "";

    const simulated = await form.post(`${location}/simulate`, { _csrf: csrf });

    expect(simulated.status).toBe(303);
    const next = await fetch(`${server.baseUrl}/checkout/${link.id}`);
    expect(next.status).toBe(410);
    expect(await next.text()).toContain("Link de pagamento esgotado");
    const read = await bodyOf(api.GET("/api/v1/payment-links/{id}", byId(link.id)), 200);
    expect(read).toMatchObject({ active: false, exhausted: true });
  });
});
