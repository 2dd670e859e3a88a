import { pino } from "pino";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createApp } from "../../src/http/app.js";
import type { components } from "../../../generated/api.js";
import { byId, expectStatus, publicApi, startTestServer, type TestServer } from "../harness.js";

const servers: TestServer[] = [];
const closers: (() => Promise<void>)[] = [];
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  servers.push(server);
});
afterAll(async () => {
  await Promise.all([...servers.map((s) => s.close()), ...closers.map((close) => close())]);
});

async function createLink(
  target: TestServer,
  key: string,
  overrides: Partial<components["schemas"]["CreatePaymentLinkRequest"]> = {},
) {
  const res = await publicApi(target.baseUrl, { key }).POST("/api/v1/payment-links", {
    body: { amountCents: 4990, description: "Curso de fotografia - turma de outubro", ...overrides },
  });
  expectStatus(res, 201);
  return res.body;
}

async function linkCharges(target: TestServer, key: string, paymentLinkId: string) {
  const res = await publicApi(target.baseUrl, { key }).GET("/api/v1/transactions", {
    params: { query: { paymentLinkId } },
  });
  expectStatus(res, 200);
  return res.body.data;
}

interface Page {
  status: number;
  headers: Headers;
  text: string;
}

/** A browser without JavaScript, against `baseUrl`: keeps its cookies. */
class Payer {
  readonly cookies = new Map<string, string>();
  constructor(private readonly baseUrl: string) {}

  get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.send(path, { method: "GET", headers });
  }

  post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    return this.send(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  private async send(path: string, init: { method: string; headers: Record<string, string>; body?: string }) {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(`${this.baseUrl}${path}`, {
      ...init,
      redirect: "manual",
      headers: { ...init.headers, ...(cookie ? { cookie } : {}) },
    });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(";");
      const at = pair?.indexOf("=") ?? -1;
      if (pair && at > 0) this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return { status: res.status, headers: res.headers, text: await res.text() };
  }
}

function tags(page: string, name: string): Record<string, string>[] {
  return [...page.matchAll(new RegExp(`<${name}\\b([^>]*)>`, "g"))].map((m) =>
    Object.fromEntries([...(m[1] ?? "").matchAll(/([\w:-]+)(?:="([^"]*)")?/g)].map((a) => [a[1], a[2] ?? ""])),
  );
}

function hiddenFields(page: string): Record<string, string> {
  return Object.fromEntries(
    tags(page, "input")
      .filter((a) => a.type === "hidden")
      .map((a) => [a.name, a.value]),
  );
}

const payerFields = {
  name: "Maria da Silva Santos",
  email: "maria.santos@example.com.br",
  phone: "11987654321",
  document: "52998224725",
};

describe("CSRF on POST /checkout/{id}", () => {
  test.each([
    {
      name: "no token",
      forge: async (_payer: Payer, form: Record<string, string>) => ({ ...form, _csrf: "" }),
    },
    {
      name: "a tampered token",
      forge: async (_payer: Payer, form: Record<string, string>) => ({ ...form, _csrf: `${form._csrf}x` }),
    },
    {
      name: "the token of another browser's session",
      forge: async (_payer: Payer, form: Record<string, string>, linkId: string) => {
        const other = new Payer(server.baseUrl);
        const page = await other.get(`/checkout/${linkId}`);
        return { ...form, _csrf: hiddenFields(page.text)._csrf ?? "" };
      },
    },
    {
      name: "the token of another link's form",
      forge: async (payer: Payer, form: Record<string, string>, _linkId: string, otherLinkId: string) => {
        const page = await payer.get(`/checkout/${otherLinkId}`);
        return { ...form, _csrf: hiddenFields(page.text)._csrf ?? "" };
      },
    },
    {
      name: "no session cookie",
      forge: async (payer: Payer, form: Record<string, string>) => {
        payer.cookies.clear();
        return form;
      },
    },
    {
      name: "a valid token but a cross-site request (Sec-Fetch-Site)",
      forge: async (_payer: Payer, form: Record<string, string>) => form,
      headers: { "sec-fetch-site": "cross-site" },
    },
  ])("when the form carries $name, then 403 and nothing is created", async ({ forge, headers }) => {
    const { testKey } = await server.newAccount();
    const link = await createLink(server, testKey);
    const otherLink = await createLink(server, testKey);
    const payer = new Payer(server.baseUrl);
    const form = hiddenFields((await payer.get(`/checkout/${link.id}`)).text);
    const fields = await forge(payer, form, link.id, otherLink.id);

    const page = await payer.post(`/checkout/${link.id}`, { ...fields, ...payerFields }, headers ?? {});

    expect(page.status).toBe(403);
    expect(page.text).toContain("Sessão expirada");
    expect(await linkCharges(server, testKey, link.id)).toEqual([]);
  });

  test("when the same form is posted with its own token and cookie, then it is accepted (the control case)", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(server, testKey);
    const payer = new Payer(server.baseUrl);
    const form = hiddenFields((await payer.get(`/checkout/${link.id}`)).text);

    const page = await payer.post(
      `/checkout/${link.id}`,
      { ...form, ...payerFields },
      { "sec-fetch-site": "same-origin" },
    );

    expect(page.status).toBe(303);
    expect(await linkCharges(server, testKey, link.id)).toHaveLength(1);
  });

  test("when Simular pagamento is posted without its own token, then 403 and the charge still waits", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(server, testKey);
    const payer = new Payer(server.baseUrl);
    const form = hiddenFields((await payer.get(`/checkout/${link.id}`)).text);
    const location = (await payer.post(`/checkout/${link.id}`, { ...form, ...payerFields })).headers.get("location");

    const withoutToken = await payer.post(`${location}/simulate`, {});
    const withFormToken = await payer.post(`${location}/simulate`, { _csrf: form._csrf ?? "" });

    expect([withoutToken.status, withFormToken.status]).toEqual([403, 403]);
    const [charge] = await linkCharges(server, testKey, link.id);
    expect(charge?.status).toBe("WAITING_PAYMENT");
  });

  test("when the form is first opened, then the session cookie is HttpOnly, SameSite=Lax, for /checkout only, and kept", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(server, testKey);
    const payer = new Payer(server.baseUrl);

    const first = await payer.get(`/checkout/${link.id}`);
    const second = await payer.get(`/checkout/${link.id}`);

    const [cookie] = first.headers.getSetCookie();
    expect(cookie).toMatch(/^pix_checkout=[A-Za-z0-9_-]{43}; Path=\/checkout; HttpOnly; SameSite=Lax$/);
    expect(second.headers.getSetCookie()).toEqual([]);
    expect(hiddenFields(second.text)._csrf).toBe(hiddenFields(first.text)._csrf);
    expect(hiddenFields(second.text).submission).not.toBe(hiddenFields(first.text).submission);
  });
});

describe("the lengths of the checkout form", () => {
  test("when every field is filled to its maxlength, then the API takes it all and the charge is created with it", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(server, testKey, { askAddress: true });
    const payer = new Payer(server.baseUrl);
    const formPage = await payer.get(`/checkout/${link.id}`);
    const maxlength = Object.fromEntries(
      tags(formPage.text, "input")
        .filter((a) => a.maxlength !== undefined)
        .map((a) => [a.name ?? "", Number(a.maxlength)]),
    );
    const fill = (start: string, field: string) => start.padEnd(maxlength[field] ?? 0, "a");
    const full = {
      name: fill("Maria da Silva Santos ", "name"),
      email: `${fill("maria.", "email").slice(0, (maxlength.email ?? 0) - "@example.com.br".length)}@example.com.br`,
      phone: "11".padEnd(maxlength.phone ?? 0, "9"),
      document: "11.222.333/0001-81",
      zipCode: "01310-100",
      street: fill("Avenida Paulista ", "street"),
      number: "1".repeat(maxlength.number ?? 0),
      complement: fill("Conjunto ", "complement"),
      district: fill("Bela Vista ", "district"),
      city: fill("São Paulo ", "city"),
    };

    const res = await payer.post(`/checkout/${link.id}`, { ...hiddenFields(formPage.text), ...full, state: "SP" });

    expect(Object.keys(maxlength).sort()).toEqual(Object.keys(full).sort());
    for (const [field, value] of Object.entries(full)) expect(value, field).toHaveLength(maxlength[field] ?? -1);
    expect(res.status).toBe(303);
    const [charge] = await linkCharges(server, testKey, link.id);
    expect(charge?.customer).toMatchObject({ name: full.name, email: full.email });
    // The seed's person limits, as the API takes them: the form lets a payer type no less.
    expect(maxlength).toMatchObject({ name: 120, email: 160 });
  });
});

describe("Content-Security-Policy and headers of the checkout pages", () => {
  async function pages() {
    const { testKey } = await server.newAccount();
    const link = await createLink(server, testKey, {
      askAddress: true,
      returnUrl: "https://loja.example.test/obrigado?pedido=1",
    });
    const payer = new Payer(server.baseUrl);
    const formPage = await payer.get(`/checkout/${link.id}`);
    const invalid = await payer.post(`/checkout/${link.id}`, { ...hiddenFields(formPage.text), name: "x" });
    const location = (
      await payer.post(`/checkout/${link.id}`, {
        ...hiddenFields(formPage.text),
        ...payerFields,
        zipCode: "01310100",
        street: "Avenida Paulista",
        number: "1578",
        district: "Bela Vista",
        city: "São Paulo",
        state: "SP",
      })
    ).headers.get("location") as string;
    const payment = await payer.get(location);
    await payer.post(`${location}/simulate`, hiddenFields(payment.text));
    const receipt = await payer.get(location);
    expectStatus(
      await publicApi(server.baseUrl, { key: testKey }).POST("/api/v1/payment-links/{id}/deactivate", byId(link.id)),
      200,
    );
    const closed = await payer.get(`/checkout/${link.id}`);
    const missing = await payer.get("/checkout/plk_00000000000000000000");
    return { form: formPage, invalid, payment, receipt, closed, missing };
  }

  test("when any page is served, then a nonce-only script policy, no inline script or style, no framing, nothing from elsewhere", async () => {
    const all = await pages();
    expect(Object.values(all).map((p) => p.status)).toEqual([200, 422, 200, 200, 410, 404]);

    for (const [name, page] of Object.entries(all)) {
      const csp = page.headers.get("content-security-policy") ?? "";
      const nonce = csp.match(/script-src 'nonce-([A-Za-z0-9+/=]+)'(;|$)/)?.[1];
      expect(nonce, name).toBeTruthy();
      expect(csp.split("; ").sort(), name).toEqual(
        [
          "default-src 'none'",
          `script-src 'nonce-${nonce}'`,
          "style-src 'self'",
          "img-src 'self'",
          "connect-src 'self'",
          "form-action 'self'",
          "frame-ancestors 'none'",
          "base-uri 'none'",
        ].sort(),
      );
      const scripts = tags(page.text, "script");
      expect(scripts, name).toEqual([
        expect.objectContaining({ src: expect.stringMatching(/^\/checkout\/assets\/checkout\.js\?v=/), nonce }),
      ]);
      expect(page.text, name).toMatch(/<script [^>]*><\/script>/);
      expect(page.text, name).not.toMatch(/<style|\sstyle=|\son[a-z]+=|javascript:/i);
      for (const tag of ["script", "link", "img"]) {
        for (const attrs of tags(page.text, tag)) expect(attrs.src ?? attrs.href ?? "", name).toMatch(/^\/checkout\//);
      }
      expect(page.headers.get("x-frame-options"), name).toBe("DENY");
      expect(page.headers.get("x-content-type-options"), name).toBe("nosniff");
      expect(page.headers.get("referrer-policy"), name).toBe("no-referrer");
      expect(page.headers.get("cache-control"), name).toBe("no-store");
    }
    const nonces = Object.values(all).map((p) => p.headers.get("content-security-policy"));
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  test("when the assets are asked for, then our stylesheet and script, cached by version", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(server, testKey);
    const page = await new Payer(server.baseUrl).get(`/checkout/${link.id}`);
    const css = tags(page.text, "link").find((a) => a.rel === "stylesheet")?.href as string;
    const js = tags(page.text, "script")[0]?.src as string;

    const [cssRes, jsRes, unknown, inherited] = await Promise.all(
      [css, js, "/checkout/assets/other.js", "/checkout/assets/__proto__"].map((path) =>
        fetch(`${server.baseUrl}${path}`),
      ),
    );

    expect(cssRes?.status).toBe(200);
    expect(cssRes?.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(cssRes?.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(jsRes?.status).toBe(200);
    expect(jsRes?.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await jsRes?.text()).toContain("data-checkout-form");
    expect(unknown?.status).toBe(404);
    expect(inherited?.status).toBe(404);
  });
});

describe("rate limits of the checkout", () => {
  test("when the app's budgets are small, then the checkout uses them: 429 with Retry-After past the GET budget, API counted apart", async () => {
    const limited = await startTestServer({ rateLimits: { get: 3, write: 2, withdrawals: 1 } });
    servers.push(limited);
    const { testKey } = await limited.newAccount();
    const link = await createLink(limited, testKey);
    const payer = new Payer(limited.baseUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await payer.get(`/checkout/${link.id}`)).status);
    const asset = await fetch(`${limited.baseUrl}/checkout/assets/checkout.css`);

    const over = await payer.get(`/checkout/${link.id}`);

    expect(statuses).toEqual([200, 200, 200]);
    expect(asset.status).toBe(200);
    expect(over.status).toBe(429);
    expect(over.headers.get("content-type")).toMatch(/^text\/html/);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(over.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(over.text).toContain("Muitas tentativas");
    expect((await publicApi(limited.baseUrl, { key: testKey }).GET("/api/v1/balance")).status).toBe(200);
  });

  test("when the POST budget is spent, then the next submission is 429 and creates nothing", async () => {
    const limited = await startTestServer({ rateLimits: { get: 100, write: 2, withdrawals: 1 } });
    servers.push(limited);
    const { testKey } = await limited.newAccount();
    const link = await createLink(limited, testKey);
    const payer = new Payer(limited.baseUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const form = hiddenFields((await payer.get(`/checkout/${link.id}`)).text);
      statuses.push((await payer.post(`/checkout/${link.id}`, { ...form, ...payerFields })).status);
    }

    expect(statuses).toEqual([303, 303, 429]);
    expect(await linkCharges(limited, testKey, link.id)).toHaveLength(2);
  });

  test("when the checkout is given its own budgets, then they apply to it alone", async () => {
    const app = createApp({
      domain: server.domain,
      logger: pino({ level: "silent" }),
      rateLimits: "off",
      checkout: { rateLimits: { get: 1, write: 1 } },
    });
    const listener = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => listener.once("listening", () => resolve()));
    closers.push(
      () =>
        new Promise((resolve) => {
          listener.closeAllConnections();
          listener.close(() => resolve());
        }),
    );
    const baseUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    const { testKey } = await server.newAccount();
    const link = await createLink(server, testKey);
    const payer = new Payer(baseUrl);

    const first = await payer.get(`/checkout/${link.id}`);
    const second = await payer.get(`/checkout/${link.id}`);
    const apiCalls = await Promise.all(
      [1, 2, 3].map(() => publicApi(baseUrl, { key: testKey }).GET("/api/v1/balance")),
    );

    expect([first.status, second.status]).toEqual([200, 429]);
    expect(apiCalls.map((r) => r.status)).toEqual([200, 200, 200]);
  });
});
