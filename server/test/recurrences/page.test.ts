import { parsePix } from "pix-utils";
import { expect, test } from "vitest";
import type { components } from "../../../generated/api.js";
import { byId, expectStatus, publicApi } from "../harness.js";
import { recurrenceBody, type CreateRecurrenceRequest } from "../support/recurrences.js";
import { eachStore, serverOn, type StoreUnderTest } from "../support/stores.js";

// A recurrence's hosted page (Pix Automático), where its BR Code's field 80 points: the terms the
// payer accepts in Portuguese, the QR code while it waits, the same strict headers as the checkout.

type Recurrence = components["schemas"]["Recurrence"];

const tags = (page: string, name: string): Record<string, string>[] =>
  [...page.matchAll(new RegExp(`<${name}\\b([^>]*)>`, "g"))].map((m) =>
    Object.fromEntries([...(m[1] ?? "").matchAll(/([\w:-]+)(?:="([^"]*)")?/g)].map((a) => [a[1], a[2] ?? ""])),
  );
const textOf = (page: string) =>
  page
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ");

function pageSuite(store: StoreUnderTest) {
  const server = serverOn(store);
  const api = (key: string) => publicApi(server.baseUrl, { key });
  const get = (path: string) => fetch(`${server.baseUrl}${path}`);

  async function create(key: string, overrides: Partial<CreateRecurrenceRequest> = {}): Promise<Recurrence> {
    const made = await api(key).POST("/api/v1/recurrences", {
      body: recurrenceBody({ firstDate: "2026-11-30", ...overrides }),
    });
    expectStatus(made, 201);
    return made.body;
  }
  const pathOf = (r: Recurrence) => new URL(r.url).pathname;

  test("when a waiting recurrence's url is opened, then 200 with its terms in Portuguese, the QR code and its BR Code to copy, under the checkout's strict headers", async () => {
    const { testKey } = await server.newAccount({ document: "11222333000181" });
    const r = await create(testKey, { retryPolicy: "RETRY_3_IN_7_DAYS", lastDate: "2027-11-30" });

    const res = await get(pathOf(r));
    const html = await res.text();

    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'(;|$)/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=|javascript:/i);
    const text = textOf(html);
    for (const shown of [
      "Autorize no app do seu banco",
      "O que você autoriza",
      "Loja Exemplo Ltda",
      "CNPJ 11.222.333/0001-81",
      "Mensalidade Academia Forma",
      "ACADEMIA-2026-0042",
      "Mensal",
      "R$ 49,90 por mês",
      "30/11/2026",
      "30/11/2027",
      "até 3 novas tentativas em dias seguintes, dentro de 7 dias",
      "você pode cancelá-la até o dia anterior",
      "Modo de teste",
    ]) {
      expect(text).toContain(shown);
    }
    expect(tags(html, "img")).toEqual([expect.objectContaining({ src: `${pathOf(r)}/qr.png` })]);
    const copied = html.match(/data-copy-source>\s*([^<]*)<\/textarea/)?.[1]?.trim();
    expect(copied).toBe(r.pix.copyPaste);
    expect(parsePix(copied as string)).toMatchObject({ type: "RECURRENCE", urlRec: `pix.example.test${pathOf(r)}` });
  });

  test("when its QR image is asked for, then a PNG while it waits, and 404 once it no longer does", async () => {
    const { testKey } = await server.newAccount();
    const r = await create(testKey);

    const waiting = await get(`${pathOf(r)}/qr.png`);
    const png = Buffer.from(await waiting.arrayBuffer());
    expectStatus(await api(testKey).POST("/api/v1/sandbox/recurrences/{id}/approve", { ...byId(r.id), body: {} }), 200);
    const approved = await get(`${pathOf(r)}/qr.png`);

    expect(waiting.status).toBe(200);
    expect(waiting.headers.get("content-type")).toBe("image/png");
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(approved.status).toBe(404);
  });

  test.each([
    { name: "approved", action: "approve", title: "Autorização confirmada" },
    { name: "rejected", action: "reject", title: "Autorização recusada" },
    { name: "cancelled by the payer", action: "cancel-by-payer", title: "Autorização cancelada" },
    { name: "expired", action: "expire", title: "Prazo de autorização encerrado" },
  ])(
    "when the recurrence was $name, then the page says so, keeps the terms and shows no QR code",
    async ({ action, title }) => {
      const { testKey } = await server.newAccount();
      const r = await create(testKey);
      const moved = await fetch(`${server.baseUrl}/api/v1/sandbox/recurrences/${r.id}/${action}`, {
        method: "POST",
        headers: { "x-api-key": testKey, ...(action === "expire" ? {} : { "content-type": "application/json" }) },
        ...(action === "expire" ? {} : { body: "{}" }),
      });
      expect(moved.status).toBe(200);

      const html = await (await get(pathOf(r))).text();

      expect(textOf(html)).toContain(title);
      expect(textOf(html)).toContain("O que você autoriza");
      expect(html).not.toContain("qr.png");
      expect(html).not.toContain(r.pix.copyPaste);
    },
  );

  test("when a journey 3 recurrence's page is opened, then it names the payment now that authorises it", async () => {
    const { testKey } = await server.newAccount();
    const r = await create(testKey, { journey: "JOURNEY_3", initialPayment: { amountCents: 1990 } });
    const text = textOf(await (await get(pathOf(r))).text());
    expect(text).toContain("R$ 19,90: ao pagá-lo, você autoriza os débitos acima.");
    expect(text).toContain("Confira os termos abaixo e confirme a autorização e o pagamento.");
  });

  test("when the id names no recurrence, then 404 in Portuguese", async () => {
    for (const path of [
      "/checkout/recurrences/rec_00000000000000000000",
      "/checkout/recurrences/plk_x",
      "/checkout/recurrences/rec_1/qr.png",
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(textOf(await res.text())).toContain("Página não encontrada");
    }
  });
}

for (const store of eachStore("recurrence_page")) {
  store.describe(`a recurrence's hosted page on the ${store.name} store`, () => pageSuite(store));
}
