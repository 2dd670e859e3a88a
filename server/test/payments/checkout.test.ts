import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { renderFormPage } from "../../src/checkout/pages/form.js";
import type { PageFrame } from "../../src/checkout/pages/layout.js";
import { renderReceiptPage, returnAddress } from "../../src/checkout/pages/receipt.js";
import { validationMessage } from "../../src/http/kit/validation-messages.js";
import { addSeconds } from "../../src/domain/core/time.js";
import type { components } from "../../../generated/api.js";
import {
  byId as withId,
  type ErrorBody,
  expectStatus,
  publicApi,
  rawCall,
  startTestServer,
  type TestServer,
} from "../harness.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());
// Pages show Brasília times and countdowns: every test starts at the same instant.
beforeEach(() => server.clock.set("2026-10-04T15:30:00.000Z"));

const api = (key: string) => publicApi(server.baseUrl, { key });

async function createLink(key: string, overrides: Partial<components["schemas"]["CreatePaymentLinkRequest"]> = {}) {
  const res = await api(key).POST("/api/v1/payment-links", {
    body: { amountCents: 4990, description: "Curso de fotografia - turma de outubro", ...overrides },
  });
  expectStatus(res, 201);
  return res.body;
}

async function linkCharges(key: string, paymentLinkId: string) {
  const res = await api(key).GET("/api/v1/transactions", { params: { query: { paymentLinkId } } });
  expectStatus(res, 200);
  return res.body.data;
}

async function customers(key: string) {
  const res = await api(key).GET("/api/v1/customers");
  expectStatus(res, 200);
  return res.body.data;
}

/** Pays a test charge in the sandbox. */
const pay = async (key: string, id: string) =>
  expectStatus(await api(key).POST("/api/v1/sandbox/transactions/{id}/pay", withId(id)), 200);
const deactivate = async (key: string, id: string) =>
  expectStatus(await api(key).POST("/api/v1/payment-links/{id}/deactivate", withId(id)), 200);

async function balanceOf(key: string) {
  const res = await api(key).GET("/api/v1/balance");
  expectStatus(res, 200);
  return res.body;
}

/** The checkout's status route: a page's, outside the document. */
const checkoutStatus = (location: string) =>
  rawCall<{ status: string; remainingSeconds: number }>(server.baseUrl, "GET", `${location}/status`);

interface Page {
  status: number;
  headers: Headers;
  text: string;
}

/** A payer's browser without JavaScript: keeps its cookie and reads the form's hidden fields. */
class Payer {
  private cookies = new Map<string, string>();

  async get(path: string): Promise<Page> {
    return this.send(path, { method: "GET" });
  }

  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    return this.send(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** Opens the link's form and submits it with `fields` (and its own hidden tokens). */
  async submit(linkId: string, fields: Record<string, string>): Promise<Page> {
    const form = await this.get(`/checkout/${linkId}`);
    expect(form.status).toBe(200);
    return this.post(`/checkout/${linkId}`, { ...hiddenFields(form.text), ...fields });
  }

  private async send(path: string, init: RequestInit): Promise<Page> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(`${server.baseUrl}${path}`, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(";");
      const at = pair?.indexOf("=") ?? -1;
      if (pair && at > 0) this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return { status: res.status, headers: res.headers, text: await res.text() };
  }
}

/** The attributes of every `<name …>` tag of a page, in order (values as written, still escaped). */
function tags(page: string, name: string): Record<string, string>[] {
  return [...page.matchAll(new RegExp(`<${name}\\b([^>]*)>`, "g"))].map((m) =>
    Object.fromEntries([...(m[1] ?? "").matchAll(/([\w:-]+)(?:="([^"]*)")?/g)].map((a) => [a[1], a[2] ?? ""])),
  );
}

const byId = (page: string, name: string, id: string) => tags(page, name).find((a) => a.id === id);

function hiddenFields(page: string): Record<string, string> {
  return Object.fromEntries(
    tags(page, "input")
      .filter((a) => a.type === "hidden")
      .map((a) => [a.name, a.value]),
  );
}

/** The inline error shown for a form field: its text, or null when hidden. */
function fieldError(page: string, field: string): string | null {
  const box = byId(page, "p", `f-${field}-error`);
  if (!box || "hidden" in box) return null;
  return page.match(new RegExp(`id="f-${field}-error"[^>]*>([^<]*)<`))?.[1]?.trim() ?? "";
}

const payerFields = {
  name: "Maria da Silva Santos",
  email: "maria.santos@example.com.br",
  phone: "(11) 98765-4321",
  document: "529.982.247-25",
};

const addressFields = {
  zipCode: "01310-100",
  street: "Avenida Paulista",
  number: "1578",
  complement: "Conjunto 12",
  district: "Bela Vista",
  city: "São Paulo",
  state: "SP",
};

/** The charge page a successful submission redirects to. */
function chargeLocation(page: Page, linkId: string): string {
  expect(page.status).toBe(303);
  const location = page.headers.get("location") ?? "";
  expect(location).toMatch(new RegExp(`^/checkout/${linkId}/t/txn_[A-Za-z0-9]+$`));
  return location;
}

const textOf = (page: string) =>
  page
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/\s+/g, " ");

describe("GET /checkout/{id}", () => {
  test("when the link is active, then 200 with the payer's form in Portuguese and no address fields", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);

    const page = await new Payer().get(`/checkout/${link.id}`);

    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toContain('<html lang="pt-BR">');
    expect(textOf(page.text)).toContain("Curso de fotografia - turma de outubro");
    expect(textOf(page.text)).toContain("R$ 49,90");
    expect(textOf(page.text)).toContain("Pagamento para Loja Exemplo Ltda");
    for (const [id, label] of [
      ["f-name", "Nome completo"],
      ["f-email", "E-mail"],
      ["f-phone", "Celular com DDD"],
      ["f-document", "CPF ou CNPJ"],
    ]) {
      expect(page.text).toMatch(new RegExp(`<label for="${id}">\\s*${label}`));
      expect(byId(page.text, "input", id as string)).toBeDefined();
    }
    expect(byId(page.text, "input", "f-zipCode")).toBeUndefined();
    expect(Object.keys(hiddenFields(page.text)).sort()).toEqual(["_csrf", "submission"]);
  });

  test("when the link asks for the address, then the form has the address fields too", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey, { askAddress: true });

    const page = await new Payer().get(`/checkout/${link.id}`);

    expect(page.status).toBe(200);
    for (const name of Object.keys(addressFields)) {
      const control = tags(page.text, name === "state" ? "select" : "input").find((a) => a.name === name);
      expect(control?.id).toBe(`f-${name}`);
    }
    expect(page.text).toContain("<legend>Endereço</legend>");
  });

  test("when a test-mode link is opened, then every page says it is test mode; a production link does not", async () => {
    const { testKey, liveKey } = await server.newAccount();
    const testLink = await createLink(testKey);
    const liveLink = await createLink(liveKey as string);

    const testPage = await new Payer().get(`/checkout/${testLink.id}`);
    const livePage = await new Payer().get(`/checkout/${liveLink.id}`);

    expect(textOf(testPage.text)).toContain("Modo de teste");
    expect(livePage.status).toBe(200);
    expect(textOf(livePage.text)).not.toContain("Modo de teste");
  });

  test.each([
    { name: "an unknown link", path: "/checkout/plk_00000000000000000000" },
    { name: "a malformed id", path: "/checkout/not-a-link" },
    { name: "an unknown page under the checkout", path: "/checkout/plk_0000/unknown/page" },
  ])("when $name is opened, then 404 with a page in Portuguese", async ({ path }) => {
    const page = await new Payer().get(path);

    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(textOf(page.text)).toContain("Página não encontrada");
  });

  test("when the link was deactivated, then 410 and the page says it is unavailable (indisponível)", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);
    await deactivate(testKey, link.id);

    const page = await new Payer().get(`/checkout/${link.id}`);

    expect(page.status).toBe(410);
    expect(textOf(page.text)).toContain("Link de pagamento indisponível");
    expect(page.text).not.toContain("<form");
  });

  test("when a single-use link was paid, then the next payer sees it exhausted (esgotado)", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey, { maxPayments: 1 });
    const first = new Payer();
    const location = chargeLocation(await first.submit(link.id, payerFields), link.id);
    const transactionId = location.split("/").pop() as string;
    await pay(testKey, transactionId);

    const page = await new Payer().get(`/checkout/${link.id}`);

    expect(page.status).toBe(410);
    expect(textOf(page.text)).toContain("Link de pagamento esgotado");
  });

  test("when the link's expiresAt has passed, then 410 with the expired page", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey, { expiresAt: addSeconds(server.clock.now().toISOString(), 3600) });
    server.clock.advance(3600);

    const page = await new Payer().get(`/checkout/${link.id}`);

    expect(page.status).toBe(410);
    expect(textOf(page.text)).toContain("Link de pagamento expirado");
    expect(textOf(page.text)).toContain("Expirou em 04/10/2026 às 13:30:00");
  });

  test("when the description holds markup, then it is shown as text, escaped", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey, { description: `<img src=x onerror="alert(1)"> & 'aspas'` });

    const page = await new Payer().get(`/checkout/${link.id}`);

    expect(page.text).not.toContain("<img src=x");
    expect(page.text).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;aspas&#39;");
  });
});

describe("POST /checkout/{id}", () => {
  test("when the payer's data is valid, then 303 to the charge's page, one charge of the link, and the payer is a customer", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey, { metadata: { campanha: "outubro" } });

    const res = await new Payer().submit(link.id, payerFields);

    const location = chargeLocation(res, link.id);
    const charges = await linkCharges(testKey, link.id);
    expect(charges).toHaveLength(1);
    expect(location).toBe(`/checkout/${link.id}/t/${charges[0]?.id}`);
    expect(charges[0]).toMatchObject({
      status: "WAITING_PAYMENT",
      amountCents: 4990,
      description: "Curso de fotografia - turma de outubro",
      paymentLinkId: link.id,
      metadata: { campanha: "outubro" },
      livemode: false,
      customer: {
        name: "Maria da Silva Santos",
        email: "maria.santos@example.com.br",
        phone: "11987654321",
        documentType: "CPF",
        document: "52998224725",
      },
    });
    const [customer] = await customers(testKey);
    expect(customer).toMatchObject({
      id: charges[0]?.customer.id,
      name: "Maria da Silva Santos",
      document: "52998224725",
      address: null,
    });
  });

  test("when the link asks for the address, then it is saved on the customer", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey, { askAddress: true });

    const res = await new Payer().submit(link.id, { ...payerFields, ...addressFields });

    chargeLocation(res, link.id);
    const [customer] = await customers(testKey);
    expect(customer?.address).toEqual({
      zipCode: "01310100",
      street: "Avenida Paulista",
      number: "1578",
      complement: "Conjunto 12",
      district: "Bela Vista",
      city: "São Paulo",
      state: "SP",
    });
  });

  test("when the payer already is a customer, then the customer is updated, not duplicated", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);
    expectStatus(
      await api(testKey).POST("/api/v1/customers", { body: { name: "Maria S.", document: "52998224725" } }),
      201,
    );

    chargeLocation(await new Payer().submit(link.id, payerFields), link.id);

    const list = await customers(testKey);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ name: "Maria da Silva Santos", email: "maria.santos@example.com.br" });
  });

  test("when the payer is a company, then a CNPJ is accepted and the charge's document type is CNPJ", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);

    const res = await new Payer().submit(link.id, { ...payerFields, document: "11.222.333/0001-81" });

    chargeLocation(res, link.id);
    const [charge] = await linkCharges(testKey, link.id);
    expect(charge?.customer).toMatchObject({ documentType: "CNPJ", document: "11222333000181" });
  });

  test("when the link is in production, then the charge is a production charge", async () => {
    const { liveKey } = await server.newAccount();
    const link = await createLink(liveKey as string);

    chargeLocation(await new Payer().submit(link.id, payerFields), link.id);

    const [charge] = await linkCharges(liveKey as string, link.id);
    expect(charge).toMatchObject({ livemode: true, paymentLinkId: link.id });
  });

  test("when the same form is submitted again (refresh, back and resubmit), then the same charge and no second one", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);
    const payer = new Payer();
    const form = await payer.get(`/checkout/${link.id}`);
    const fields = { ...hiddenFields(form.text), ...payerFields };

    const first = await payer.post(`/checkout/${link.id}`, fields);
    const again = await payer.post(`/checkout/${link.id}`, fields);
    const edited = await payer.post(`/checkout/${link.id}`, { ...fields, name: "Maria S. Santos" });

    const location = chargeLocation(first, link.id);
    expect(again.headers.get("location")).toBe(location);
    expect(edited.headers.get("location")).toBe(location);
    expect(await linkCharges(testKey, link.id)).toHaveLength(1);
  });

  test("when a form that already made its charge comes back with invalid data, then it still leads to that charge", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);
    const payer = new Payer();
    const form = await payer.get(`/checkout/${link.id}`);
    const fields = { ...hiddenFields(form.text), ...payerFields };
    const location = chargeLocation(await payer.post(`/checkout/${link.id}`, fields), link.id);

    const again = await payer.post(`/checkout/${link.id}`, { ...fields, name: "M", document: "1234567" });

    expect(again.headers.get("location")).toBe(location);
    expect(await linkCharges(testKey, link.id)).toHaveLength(1);
  });

  test("when one form is submitted twice at the same moment (double click), then one charge", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);
    const payer = new Payer();
    const form = await payer.get(`/checkout/${link.id}`);
    const fields = { ...hiddenFields(form.text), ...payerFields };

    const results = await Promise.all([1, 2, 3].map(() => payer.post(`/checkout/${link.id}`, fields)));

    const locations = new Set(results.map((r) => chargeLocation(r, link.id)));
    expect(locations.size).toBe(1);
    expect(await linkCharges(testKey, link.id)).toHaveLength(1);
  });

  test("when the payer loads the form again and submits, then that is a new submission and a new charge", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);
    const payer = new Payer();

    const first = chargeLocation(await payer.submit(link.id, payerFields), link.id);
    const second = chargeLocation(await payer.submit(link.id, payerFields), link.id);

    expect(second).not.toBe(first);
    expect(await linkCharges(testKey, link.id)).toHaveLength(2);
  });

  test.each([
    {
      name: "a CPF with wrong check digits",
      patch: { document: "529.982.247-24" },
      field: "document",
      message: "CPF inválido: confira os números digitados.",
    },
    {
      name: "a CPF of one repeated digit",
      patch: { document: "111.111.111-11" },
      field: "document",
      message: "CPF inválido",
    },
    {
      name: "a CNPJ with wrong check digits",
      patch: { document: "11.222.333/0001-82" },
      field: "document",
      message: "CNPJ inválido",
    },
    {
      name: "a document of neither shape",
      patch: { document: "1234567" },
      field: "document",
      message: "Informe um CPF (11 dígitos) ou um CNPJ (14 caracteres).",
    },
    { name: "no document", patch: { document: "" }, field: "document", message: "Informe seu CPF ou CNPJ." },
    { name: "a one-letter name", patch: { name: " M " }, field: "name", message: "de 2 a 120 caracteres" },
    { name: "a 121-character name", patch: { name: "M".repeat(121) }, field: "name", message: "de 2 a 120" },
    { name: "an e-mail without domain", patch: { email: "maria@" }, field: "email", message: "e-mail válido" },
    { name: "a 7-digit phone", patch: { phone: "9876-543" }, field: "phone", message: "de 8 a 20 dígitos" },
    { name: "a phone with letters", patch: { phone: "11 9876 ABCD" }, field: "phone", message: "de 8 a 20 dígitos" },
  ])(
    "when the form has $name, then 422, an inline error on the field, the values kept, and nothing created",
    async ({ patch, field, message }) => {
      const { testKey } = await server.newAccount();
      const link = await createLink(testKey);

      const page = await new Payer().submit(link.id, { ...payerFields, ...patch });

      expect(page.status).toBe(422);
      expect(fieldError(page.text, field)).toContain(message);
      expect(byId(page.text, "input", `f-${field}`)?.["aria-invalid"]).toBe("true");
      expect(flaggedFields(page.text)).toEqual([field]);
      expect(tags(page.text, "a").map((a) => a.href)).toContain(`#f-${field}`);
      const typed = { ...payerFields, ...patch };
      expect(byId(page.text, "input", "f-email")?.value).toBe(typed.email);
      expect(byId(page.text, "input", "f-phone")?.value).toBe(typed.phone);
      expect(await linkCharges(testKey, link.id)).toEqual([]);
      expect(await customers(testKey)).toEqual([]);
    },
  );

  test.each([
    { name: "no address at all", patch: { zipCode: "", street: "", number: "", district: "", city: "", state: "" } },
    { name: "a 7-digit CEP", patch: { zipCode: "0131-010" }, field: "zipCode" },
    { name: "a state that does not exist", patch: { state: "XX" }, field: "state" },
    { name: "a 161-character street", patch: { street: "R".repeat(161) }, field: "street" },
    { name: "a 21-character number", patch: { number: "1".repeat(21) }, field: "number" },
    { name: "an 81-character complement", patch: { complement: "C".repeat(81) }, field: "complement" },
    { name: "an 81-character district", patch: { district: "B".repeat(81) }, field: "district" },
    { name: "an 81-character city", patch: { city: "S".repeat(81) }, field: "city" },
  ])(
    "when the link asks for the address and the form has $name, then 422 and nothing created",
    async ({ patch, field }) => {
      const { testKey } = await server.newAccount();
      const link = await createLink(testKey, { askAddress: true });

      const page = await new Payer().submit(link.id, { ...payerFields, ...addressFields, ...patch });

      expect(page.status).toBe(422);
      const flagged = flaggedFields(page.text);
      if (field) expect(flagged).toEqual([field]);
      else expect(flagged.sort()).toEqual(["city", "district", "number", "state", "street", "zipCode"]);
      expect(await linkCharges(testKey, link.id)).toEqual([]);
      expect(await customers(testKey)).toEqual([]);
    },
  );

  test("when the link does not ask for the address, then address fields sent anyway are ignored", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);

    chargeLocation(await new Payer().submit(link.id, { ...payerFields, zipCode: "x", state: "XX" }), link.id);

    const [customer] = await customers(testKey);
    expect(customer?.address).toBeNull();
  });

  test("when the link was deactivated while the form was open, then 410 indisponível and nothing created", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);
    const payer = new Payer();
    const form = await payer.get(`/checkout/${link.id}`);
    await deactivate(testKey, link.id);

    const page = await payer.post(`/checkout/${link.id}`, { ...hiddenFields(form.text), ...payerFields });

    expect(page.status).toBe(410);
    expect(textOf(page.text)).toContain("indisponível");
    expect(await linkCharges(testKey, link.id)).toEqual([]);
  });

  test("when a paid single-use link's form is resubmitted, then the payer is sent to their own charge, not a new one", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey, { maxPayments: 1 });
    const payer = new Payer();
    const form = await payer.get(`/checkout/${link.id}`);
    const fields = { ...hiddenFields(form.text), ...payerFields };
    const location = chargeLocation(await payer.post(`/checkout/${link.id}`, fields), link.id);
    await pay(testKey, location.split("/").pop() as string);

    const again = await payer.post(`/checkout/${link.id}`, fields);

    expect(again.headers.get("location")).toBe(location);
    expect(await linkCharges(testKey, link.id)).toHaveLength(1);
  });

  test("when a second payer submits a single-use link that was paid meanwhile, then 410 esgotado and nothing created", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey, { maxPayments: 1 });
    const second = new Payer();
    const secondForm = await second.get(`/checkout/${link.id}`);
    const location = chargeLocation(await new Payer().submit(link.id, payerFields), link.id);
    await pay(testKey, location.split("/").pop() as string);

    const page = await second.post(`/checkout/${link.id}`, {
      ...hiddenFields(secondForm.text),
      ...payerFields,
      document: "11.222.333/0001-81",
    });

    expect(page.status).toBe(410);
    expect(textOf(page.text)).toContain("esgotado");
    expect(await linkCharges(testKey, link.id)).toHaveLength(1);
  });

  test("when the submission token is not one the form issues, then the form is refused and nothing created", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);
    const payer = new Payer();
    const form = await payer.get(`/checkout/${link.id}`);

    const page = await payer.post(`/checkout/${link.id}`, {
      ...hiddenFields(form.text),
      submission: "x",
      ...payerFields,
    });

    expect(page.status).toBe(400);
    expect(await linkCharges(testKey, link.id)).toEqual([]);
  });
});

describe("GET /checkout/{id}/t/{txn}", () => {
  async function openCharge(overrides: Record<string, unknown> = {}, key: "testKey" | "liveKey" = "testKey") {
    const account = await server.newAccount();
    const apiKey = account[key] as string;
    const link = await createLink(apiKey, overrides);
    const payer = new Payer();
    const location = chargeLocation(await payer.submit(link.id, payerFields), link.id);
    const transactionId = location.split("/").pop() as string;
    return { apiKey, link, payer, location, transactionId };
  }

  test("when the charge waits for payment, then the QR image, the copy-and-paste code, amount, description and countdown", async () => {
    const { apiKey, link, payer, location, transactionId } = await openCharge();

    const page = await payer.get(location);

    expect(page.status).toBe(200);
    const read = await api(apiKey).GET("/api/v1/transactions/{id}", withId(transactionId));
    expectStatus(read, 200);
    const charge = read.body;
    expect(tags(page.text, "img")).toEqual([
      expect.objectContaining({ src: `${location}/qr.png`, alt: "QR code do Pix de R$ 49,90 para Loja Exemplo Ltda" }),
    ]);
    expect(page.text.match(/data-copy-source>\s*([^<]*)<\/textarea>/)?.[1]).toBe(charge.pix.copyPaste);
    expect(page.text).toContain("Copiar código Pix");
    const text = textOf(page.text);
    expect(text).toContain("R$ 49,90");
    expect(text).toContain(link.description);
    expect(text).toContain("Este código expira em 24:00:00");
    expect(tags(page.text, "strong").find((a) => "data-countdown" in a)?.["data-remaining"]).toBe("86400");
    expect(tags(page.text, "section").find((a) => "data-payment" in a)?.["data-status-url"]).toBe(`${location}/status`);
  });

  test("when the QR image is asked for, then a PNG of the charge's BR Code", async () => {
    const { payer, location } = await openCharge();

    const res = await fetch(`${server.baseUrl}${location}/qr.png`);
    const png = Buffer.from(await res.arrayBuffer());

    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(480);
    expect((await payer.get(`${location.replace(/txn_\w+/, "txn_00000000000000000000")}/qr.png`)).status).toBe(404);
  });

  test("when the status is polled, then WAITING_PAYMENT with the seconds left, and PAID once paid", async () => {
    const { apiKey, location, transactionId } = await openCharge();
    server.clock.advance(60);

    const before = await checkoutStatus(location);
    await pay(apiKey, transactionId);
    const after = await checkoutStatus(location);

    expect(before.status).toBe(200);
    expect(before.headers.get("cache-control")).toBe("no-store");
    expect(before.body).toEqual({ status: "WAITING_PAYMENT", remainingSeconds: 86_340 });
    expect(after.body).toEqual({ status: "PAID", remainingSeconds: 86_340 });
  });

  test("when the charge was paid, then the receipt: amount, date and time, transaction id, payer", async () => {
    const { apiKey, payer, location, transactionId } = await openCharge();
    server.clock.set("2026-10-04T18:05:09.000Z");
    await pay(apiKey, transactionId);

    const page = await payer.get(location);

    expect(page.status).toBe(200);
    const text = textOf(page.text);
    expect(text).toContain("Pagamento confirmado");
    expect(text).toContain("Valor R$ 49,90");
    expect(text).toContain("Data e hora 04/10/2026 às 15:05:09 (horário de Brasília)");
    expect(text).toContain(`ID da transação ${transactionId}`);
    expect(text).toContain("Pagador Maria da Silva Santos CPF ***.982.247-**");
    expect(text).not.toContain("52998224725");
    expect(tags(page.text, "a").filter((a) => "data-return" in a)).toEqual([]);
  });

  test("when the paid link has a returnUrl, then the receipt links back to it with svc_transaction_id and its own query", async () => {
    const { apiKey, payer, location, transactionId } = await openCharge({
      returnUrl: "https://loja.example.test/obrigado?pedido=1&origem=email",
    });
    await pay(apiKey, transactionId);

    const page = await payer.get(location);

    const href = tags(page.text, "a").find((a) => "data-return" in a)?.href ?? "";
    const url = new URL(href.replace(/&amp;/g, "&"));
    expect(url.origin + url.pathname).toBe("https://loja.example.test/obrigado");
    expect([...url.searchParams]).toEqual([
      ["pedido", "1"],
      ["origem", "email"],
      ["svc_transaction_id", transactionId],
    ]);
    expect(textOf(page.text)).toContain("Voltar para a loja");
  });

  test("when the link was deactivated after the charge was generated, then the charge stays payable on its page", async () => {
    const { apiKey, link, payer, location } = await openCharge();
    await deactivate(apiKey, link.id);

    const page = await payer.get(location);
    const simulated = await payer.post(`${location}/simulate`, hiddenFields(page.text));

    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain("Pague com Pix");
    expect(simulated.status).toBe(303);
    expect(textOf((await payer.get(location)).text)).toContain("Pagamento confirmado");
  });

  test("when the charge expired unpaid, then the page says so and offers a new Pix", async () => {
    const { link, payer, location } = await openCharge();
    server.clock.advance(24 * 3600);

    const page = await payer.get(location);
    const status = await checkoutStatus(location);

    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain("Este Pix expirou");
    expect(page.text).toMatch(
      new RegExp(`<a class="button primary" href="/checkout/${link.id}">\\s*Gerar um novo Pix`),
    );
    expect(page.text).not.toContain("qr.png");
    expect(status.body).toEqual({ status: "EXPIRED", remainingSeconds: 0 });
  });

  test.each([
    { name: "the transaction belongs to another link", other: "link" },
    { name: "the transaction does not exist", other: "missing" },
  ])("when $name, then 404 for the page, the image, the status and the simulation", async ({ other }) => {
    const { apiKey, location, transactionId } = await openCharge();
    const otherLink = await createLink(apiKey);
    const path =
      other === "link" ? `/checkout/${otherLink.id}/t/${transactionId}` : location.replace(/txn_\w+$/, "txn_0000");
    const payer = new Payer();

    const statuses = [
      (await payer.get(path)).status,
      (await payer.get(`${path}/qr.png`)).status,
      (await payer.get(`${path}/status`)).status,
      (await payer.post(`${path}/simulate`, {})).status,
    ];

    expect(statuses).toEqual([404, 404, 404, 404]);
  });
});

describe("POST /checkout/{id}/t/{txn}/simulate", () => {
  test("when a test-mode payer presses Simular pagamento, then the charge is paid and the receipt follows", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);
    const payer = new Payer();
    const location = chargeLocation(await payer.submit(link.id, payerFields), link.id);
    const page = await payer.get(location);
    expect(textOf(page.text)).toContain("Simular pagamento");

    const res = await payer.post(`${location}/simulate`, hiddenFields(page.text));

    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(location);
    const [charge] = await linkCharges(testKey, link.id);
    expect(charge).toMatchObject({ status: "PAID", paidAt: server.clock.now().toISOString() });
    expect(textOf((await payer.get(location)).text)).toContain("Pagamento confirmado");
  });

  test("when Simular pagamento is pressed twice, then the second press changes nothing", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);
    const payer = new Payer();
    const location = chargeLocation(await payer.submit(link.id, payerFields), link.id);
    const fields = hiddenFields((await payer.get(location)).text);
    await payer.post(`${location}/simulate`, fields);
    const balance = await balanceOf(testKey);

    const again = await payer.post(`${location}/simulate`, fields);

    expect(again.status).toBe(303);
    expect(await balanceOf(testKey)).toEqual(balance);
    expect(balance.pendingCents).toBe(4990 - 80);
  });

  test("when the link is in production, then there is no Simular pagamento and the route refuses with 403", async () => {
    const { liveKey } = await server.newAccount();
    const link = await createLink(liveKey as string);
    const payer = new Payer();
    const location = chargeLocation(await payer.submit(link.id, payerFields), link.id);
    const page = await payer.get(location);
    const csrf = hiddenFields((await payer.get(`/checkout/${link.id}`)).text)._csrf as string;

    const res = await payer.post(`${location}/simulate`, { _csrf: csrf });

    expect(page.text).not.toContain("Simular pagamento");
    expect(page.text).not.toContain("/simulate");
    expect(res.status).toBe(403);
    expect(textOf(res.text)).toContain("Simulação indisponível");
    const [charge] = await linkCharges(liveKey as string, link.id);
    expect(charge?.status).toBe("WAITING_PAYMENT");
  });
});

describe("the payer's rules are the API's", () => {
  test.each([
    { name: "an e-mail without domain", field: "email", value: "maria@" },
    { name: "a 161-character e-mail", field: "email", value: `${"m".repeat(150)}@example.com` },
  ])(
    "when the form has $name, then the inline error is the API's message for the same value",
    async ({ field, value }) => {
      const { testKey } = await server.newAccount();
      const link = await createLink(testKey);
      // The value the form refuses, sent to the API as it is: a body the document refuses, untyped.
      const apiAnswer = await rawCall<ErrorBody>(server.baseUrl, "POST", "/api/v1/charges/pix", {
        key: testKey,
        body: {
          amountCents: 4990,
          description: "Curso de fotografia - turma de outubro",
          customer: {
            name: "Maria da Silva Santos",
            phone: "11987654321",
            documentType: "CPF",
            document: "52998224725",
            [field]: value,
          },
        },
      });

      const page = await new Payer().submit(link.id, { ...payerFields, [field]: value });

      expect(apiAnswer.status).toBe(400);
      const apiMessage = apiAnswer.body.errors?.find((e) => e.path === `customer.${field}`)?.message;
      expect(apiMessage).toBeTruthy();
      expect(page.status).toBe(422);
      expect(fieldError(page.text, field)).toBe(apiMessage);
    },
  );

  test("when a link asks for the address and a required address field is empty, then the API's wording for a missing field", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey, { askAddress: true });

    const page = await new Payer().submit(link.id, { ...payerFields, ...addressFields, city: "" });

    expect(page.status).toBe(422);
    expect(fieldError(page.text, "city")).toBe(
      validationMessage({
        keyword: "required",
        instancePath: "/address",
        schemaPath: "",
        params: { missingProperty: "city" },
      }),
    );
  });

  test.each([
    {
      error: { keyword: "minLength", params: { limit: 2 } },
      bounds: { minLength: 2, maxLength: 120 },
      expected: "deve ter de 2 a 120 caracteres",
    },
    {
      error: { keyword: "pattern", params: { pattern: "^[0-9]+$" } },
      bounds: { minLength: 8, maxLength: 20, pattern: "^[0-9]+$" },
      expected: "deve ter de 8 a 20 dígitos",
    },
    {
      error: { keyword: "maxLength", params: { limit: 8 } },
      bounds: { minLength: 8, maxLength: 8, pattern: "^[0-9]+$" },
      expected: "deve ter 8 dígitos",
    },
    {
      error: { keyword: "maxLength", params: { limit: 160 } },
      bounds: { maxLength: 160 },
      expected: "deve ter no máximo 160 caracteres",
    },
  ])(
    "when a length rule fails with bounds $bounds, then the message says '$expected'",
    ({ error, bounds, expected }) => {
      expect(validationMessage({ ...error, instancePath: "/name", schemaPath: "" }, bounds)).toBe(expected);
    },
  );
});

describe("who is charging", () => {
  test("when the form and the receipt are shown, then both name the merchant (Recebedor)", async () => {
    const { testKey } = await server.newAccount();
    const link = await createLink(testKey);
    const payer = new Payer();
    const form = await payer.get(`/checkout/${link.id}`);
    const location = chargeLocation(await payer.submit(link.id, payerFields), link.id);
    await pay(testKey, location.split("/").pop() as string);

    const receipt = await payer.get(location);

    expect(textOf(form.text)).toContain("Recebedor: Loja Exemplo Ltda");
    expect(textOf(receipt.text)).toContain("Recebedor Loja Exemplo Ltda");
    // Accounts store no document yet: nothing is made up.
    expect(textOf(form.text)).not.toMatch(/CNPJ \d/);
  });

  const frame: PageFrame = { nonce: "n", assets: { css: "/c.css", js: "/c.js", icon: "/i.svg" } };
  const link = {
    id: "plk_1",
    description: "Curso de fotografia",
    amountCents: 4990,
    askAddress: false,
    returnUrl: null,
  } as unknown as Parameters<typeof renderFormPage>[1]["link"];
  const transaction = {
    id: "txn_1",
    amountCents: 4990,
    description: "Curso de fotografia",
    paidAt: "2026-10-04T15:30:00.000Z",
    customer: { name: "Maria da Silva Santos", documentType: "CPF", document: "52998224725" },
  } as unknown as Parameters<typeof renderReceiptPage>[1]["transaction"];

  test.each([
    { name: "a CNPJ", document: "11222333000181", shown: "CNPJ 11.222.333/0001-81" },
    { name: "no document", document: null, shown: null },
  ])(
    "when the merchant has $name, then the form and the receipt show it formatted, or only the name",
    ({ document, shown }) => {
      const payee = { merchantName: "Loja Exemplo Ltda", merchantDocument: document, testMode: false };

      const pages = [
        renderFormPage(frame, { link, payee, csrfToken: "t", submissionToken: "s" }),
        renderReceiptPage(frame, { link, transaction, payee }),
      ].map(textOf);

      for (const page of pages) {
        expect(page).toContain("Loja Exemplo Ltda");
        if (shown) expect(page).toContain(shown);
        else expect(page).not.toMatch(/CNPJ \d/);
      }
    },
  );
});

describe("returnAddress", () => {
  test.each([
    {
      name: "no query",
      returnUrl: "https://loja.example/obrigado",
      expected: "https://loja.example/obrigado?svc_transaction_id=txn_1",
    },
    {
      name: "a query, kept as it was written",
      returnUrl: "https://loja.example/obrigado?pedido=1&nome=Jo%C3%A3o+Silva",
      expected: "https://loja.example/obrigado?pedido=1&nome=Jo%C3%A3o+Silva&svc_transaction_id=txn_1",
    },
    {
      name: "a fragment",
      returnUrl: "https://loja.example/obrigado?pedido=1#topo",
      expected: "https://loja.example/obrigado?pedido=1&svc_transaction_id=txn_1#topo",
    },
    {
      name: "an svc_transaction_id already",
      returnUrl: "https://loja.example/obrigado?svc_transaction_id=old&pedido=1",
      expected: "https://loja.example/obrigado?svc_transaction_id=txn_1&pedido=1",
    },
  ])("when the returnUrl has $name, then svc_transaction_id is added and the rest kept", ({ returnUrl, expected }) => {
    expect(returnAddress(returnUrl, "txn_1")).toBe(expected);
  });

  test("when the returnUrl is not http(s), then there is no return address", () => {
    expect(returnAddress("javascript:alert(1)", "txn_1")).toBeNull();
  });
});

/** The form fields marked invalid, in page order. */
const flaggedFields = (page: string) =>
  [...tags(page, "input"), ...tags(page, "select")]
    .filter((a) => a["aria-invalid"] === "true")
    .map((a) => (a.id ?? "").replace(/^f-/, ""));
