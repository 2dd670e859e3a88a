import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bodyOf, byId, publicApi, startTestServer, type TestServer } from "../harness.js";
import type { components } from "../../../generated/api.js";
import { chromiumPath, closeContexts, hasChromium, sharedChromium } from "../support/chromium.js";
import { photograph } from "../support/screenshots.js";

// The hosted checkout in a real browser: Debian's Chromium driven by playwright-core, on a phone-
// sized viewport. One browser for the file; each payer gets a fresh context (own cookies).

if (!hasChromium) {
  console.warn(
    `[checkout browser tests] skipped: ${chromiumPath} not found. Install it with: apt-get install -y chromium-headless-shell`,
  );
}

let server: TestServer;
let browser: Browser;

interface PayerTab {
  context: BrowserContext;
  page: Page;
  /** Requests to any other origin than our server; console errors (CSP violations among them) and failed assets. */
  foreignRequests: string[];
  consoleErrors: string[];
}

async function newPayer(): Promise<PayerTab> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 1,
    isMobile: true,
    hasTouch: true,
    locale: "pt-BR",
    timezoneId: "America/Sao_Paulo",
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.baseUrl });
  const page = await context.newPage();
  const tab: PayerTab = { context, page, foreignRequests: [], consoleErrors: [] };
  page.on("request", (request) => {
    if (!request.url().startsWith(`${server.baseUrl}/`)) tab.foreignRequests.push(request.url());
  });
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    // A closed link's own page answers 410 on purpose; Chromium logs that status too.
    const ownStatus = message.text().startsWith("Failed to load resource") && message.location().url === page.url();
    if (!ownStatus) tab.consoleErrors.push(message.text());
  });
  page.on("response", (response) => {
    if (response.status() >= 400 && !response.request().isNavigationRequest()) {
      tab.consoleErrors.push(`${response.status()} ${response.url()}`);
    }
  });
  page.on("pageerror", (error) => tab.consoleErrors.push(error.message));
  return tab;
}

/** test-artifacts/checkout-`name`.png with PIX_TEST_SCREENSHOTS=1 (support/screenshots.ts). */
const screenshot = (page: Page, name: string) => photograph(page, `checkout-${name}.png`);

async function createLink(key: string, overrides: Partial<components["schemas"]["CreatePaymentLinkRequest"]> = {}) {
  return bodyOf(
    publicApi(server.baseUrl, { key }).POST("/api/v1/payment-links", {
      body: { amountCents: 4990, description: "Curso de fotografia - turma de outubro", ...overrides },
    }),
    201,
  );
}

const customersOf = async (key: string) =>
  (await bodyOf(publicApi(server.baseUrl, { key }).GET("/api/v1/customers"), 200)).data;
const chargesOfLink = async (key: string, paymentLinkId: string) =>
  (
    await bodyOf(
      publicApi(server.baseUrl, { key }).GET("/api/v1/transactions", { params: { query: { paymentLinkId } } }),
      200,
    )
  ).data;

/** Types the payer's data the way a person does, key by key, so the masks run. */
async function fillPayer(page: Page, document = "52998224725") {
  await page.getByLabel("Nome completo").fill("Maria da Silva Santos");
  await page.getByLabel("E-mail").fill("maria.santos@example.com.br");
  await page.getByLabel("Celular com DDD").pressSequentially("11987654321");
  await page.getByLabel("CPF ou CNPJ").pressSequentially(document);
}

describe.skipIf(!hasChromium)(
  `hosted checkout in Chromium${hasChromium ? "" : ` (skipped: no ${chromiumPath})`}`,
  () => {
    beforeAll(async () => {
      server = await startTestServer();
      browser = await sharedChromium();
    }, 60_000);

    afterAll(async () => {
      await closeContexts(browser);
      await server?.close();
    });

    test("when a payer fills the form with the address, then the Pix page shows the QR and the copy code, and notices the payment by itself", async () => {
      const { testKey } = await server.newAccount();
      const link = await createLink(testKey, { askAddress: true });
      const payer = await newPayer();
      const { page } = payer;

      await page.goto(`${server.baseUrl}/checkout/${link.id}`);
      await fillPayer(page);
      await page.getByLabel("CEP").pressSequentially("01310100");
      await page.getByLabel("Rua").fill("Avenida Paulista");
      await page.getByLabel("Número").fill("1578");
      await page.getByLabel("Complemento").fill("Conjunto 12");
      await page.getByLabel("Bairro").fill("Bela Vista");
      await page.getByLabel("Cidade").fill("São Paulo");
      await page.getByLabel("Estado").selectOption("SP");
      expect(await page.getByLabel("CPF ou CNPJ").inputValue()).toBe("529.982.247-25");
      expect(await page.getByLabel("Celular com DDD").inputValue()).toBe("(11) 98765-4321");
      expect(await page.getByLabel("CEP").inputValue()).toBe("01310-100");
      await screenshot(page, "1-form-with-address");
      await page.getByRole("button", { name: "Gerar Pix de R$ 49,90" }).click();
      await page.waitForURL(/\/t\/txn_[A-Za-z0-9]+$/);

      const transactionId = page.url().split("/").pop() as string;
      const charge = await bodyOf(
        publicApi(server.baseUrl, { key: testKey }).GET("/api/v1/transactions/{id}", byId(transactionId)),
        200,
      );
      const qr = page.getByRole("img", { name: "QR code do Pix de R$ 49,90 para Loja Exemplo Ltda" });
      await qr.waitFor();
      expect(await qr.evaluate((img: any) => img.complete && img.naturalWidth)).toBe(480);
      expect(await page.getByLabel("Pix copia e cola").inputValue()).toBe(charge.pix.copyPaste);
      await page.getByRole("button", { name: "Copiar código Pix" }).click();
      await page.getByText("Código copiado. Cole no app do seu banco").waitFor();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(charge.pix.copyPaste);
      expect(await page.locator("[data-countdown]").textContent()).toMatch(/^2[34]:[0-5]\d:[0-5]\d$/);
      expect(await page.getByRole("button", { name: "Simular pagamento" }).isVisible()).toBe(true);
      await screenshot(page, "2-payment");

      await bodyOf(
        publicApi(server.baseUrl, { key: testKey }).POST("/api/v1/sandbox/transactions/{id}/pay", byId(transactionId)),
        200,
      );
      await page.getByRole("heading", { name: "Pagamento confirmado" }).waitFor({ timeout: 15_000 });

      const receipt = (await page.locator(".details").innerText()).replace(/\s+/g, " ");
      expect(receipt).toContain("R$ 49,90");
      expect(receipt).toContain(transactionId);
      expect(receipt).toContain("Maria da Silva Santos");
      expect(receipt).toMatch(/\d{2}\/\d{2}\/\d{4} às \d{2}:\d{2}:\d{2}/);
      await screenshot(page, "3-receipt");
      const [customer] = await customersOf(testKey);
      expect(customer?.address).toMatchObject({ zipCode: "01310100", street: "Avenida Paulista", state: "SP" });
      expect(payer.foreignRequests).toEqual([]);
      expect(payer.consoleErrors).toEqual([]);
      await payer.context.close();
    }, 40_000);

    test("when a payer without address simulates the payment and goes back to the store, then returnUrl gets svc_transaction_id; a second payer sees esgotado", async () => {
      const { testKey } = await server.newAccount();
      const link = await createLink(testKey, {
        maxPayments: 1,
        returnUrl: "https://loja.example.test/obrigado?pedido=1",
      });
      const payer = await newPayer();
      const { page } = payer;
      await page.route("https://loja.example.test/**", (route) =>
        route.fulfill({ status: 200, contentType: "text/html", body: "<title>Loja</title><h1>Obrigado!</h1>" }),
      );

      await page.goto(`${server.baseUrl}/checkout/${link.id}`);
      expect(await page.locator("#f-zipCode").count()).toBe(0);
      await fillPayer(page);
      await screenshot(page, "4-form-without-address");
      await page.getByRole("button", { name: "Gerar Pix de R$ 49,90" }).click();
      await page.waitForURL(/\/t\/txn_[A-Za-z0-9]+$/);
      const transactionId = page.url().split("/").pop() as string;
      expect(await page.getByText("Modo de teste", { exact: true }).first().isVisible()).toBe(true);
      await page.getByRole("button", { name: "Simular pagamento" }).click();
      await page.getByRole("heading", { name: "Pagamento confirmado" }).waitFor();
      await page.getByRole("link", { name: "Voltar para a loja" }).click();
      await page.waitForURL(/^https:\/\/loja\.example\.test\//);

      const back = new URL(page.url());
      expect(back.pathname).toBe("/obrigado");
      expect(back.searchParams.get("pedido")).toBe("1");
      expect(back.searchParams.get("svc_transaction_id")).toBe(transactionId);
      const [paid] = await chargesOfLink(testKey, link.id);
      expect(paid).toMatchObject({ id: transactionId, status: "PAID" });
      expect(payer.foreignRequests).toEqual([back.toString()]);
      expect(payer.consoleErrors).toEqual([]);
      await payer.context.close();

      const second = await newPayer();
      await second.page.goto(`${server.baseUrl}/checkout/${link.id}`);
      await second.page.getByRole("heading", { name: "Link de pagamento esgotado" }).waitFor();
      expect(await second.page.locator("form").count()).toBe(0);
      await screenshot(second.page, "5-exhausted");
      expect(second.consoleErrors).toEqual([]);
      await second.context.close();
    }, 40_000);

    test.each([
      { kind: "a CNPJ", document: "11.222.333/0001-81", shown: "CNPJ 11.222.333/0001-81", hidden: null },
      { kind: "a CPF", document: "529.982.247-25", shown: "CPF ***.982.247-**", hidden: "529.982.247-25" },
    ])(
      "when the merchant has $kind, then the form, the Pix page and the receipt show it under the name",
      async ({ kind, document, shown, hidden }) => {
        const { testKey } = await server.newAccount({ name: "Padaria Pão Quente Ltda", document });
        const link = await createLink(testKey);
        const payer = await newPayer();
        const { page } = payer;
        const merchant = async () =>
          (await page.locator("[data-merchant], .details").first().innerText()).replace(/\s+/g, " ");

        await page.goto(`${server.baseUrl}/checkout/${link.id}`);
        const onForm = await merchant();
        await fillPayer(page, "11144477735");
        await page.getByRole("button", { name: "Gerar Pix de R$ 49,90" }).click();
        await page.waitForURL(/\/t\/txn_[A-Za-z0-9]+$/);
        const onPix = await merchant();
        await screenshot(page, `5-merchant-${kind === "a CNPJ" ? "cnpj" : "cpf"}`);
        await page.getByRole("button", { name: "Simular pagamento" }).click();
        await page.getByRole("heading", { name: "Pagamento confirmado" }).waitFor();
        const onReceipt = (await page.locator(".details").innerText()).replace(/\s+/g, " ");

        expect(onForm).toBe(`Recebedor: Padaria Pão Quente Ltda ${shown}`);
        expect(onPix).toBe(`Recebedor: Padaria Pão Quente Ltda ${shown}`);
        expect(onReceipt).toContain(`Recebedor Padaria Pão Quente Ltda ${shown} Pagador`);
        expect(await page.locator("[data-merchant-document]").isVisible()).toBe(true);
        if (hidden) expect(await page.content()).not.toContain(hidden);
        expect(payer.consoleErrors).toEqual([]);
        await payer.context.close();
      },
      40_000,
    );

    test("when the merchant's name wraps on the receipt at 390 px, then the CNPJ line starts where the name's lines do", async () => {
      const { testKey } = await server.newAccount({
        name: "Padaria e Confeitaria Pão Quente do Bairro Ltda",
        document: "11.222.333/0001-81",
      });
      const link = await createLink(testKey);
      const payer = await newPayer();
      const { page } = payer;
      await page.goto(`${server.baseUrl}/checkout/${link.id}`);
      await fillPayer(page);
      await page.getByRole("button", { name: "Gerar Pix de R$ 49,90" }).click();
      await page.waitForURL(/\/t\/txn_[A-Za-z0-9]+$/);
      await page.getByRole("button", { name: "Simular pagamento" }).click();
      await page.getByRole("heading", { name: "Pagamento confirmado" }).waitFor();
      await screenshot(page, "6-receipt-long-name");

      // The left edge of each line the name's text is laid out in, and of the document's line.
      const edges = await page.locator(".details [data-merchant-document]").evaluate((line: any) => {
        const range = line.ownerDocument.createRange();
        range.selectNodeContents(line.closest("dd").firstChild);
        const lines = [...range.getClientRects()].map((r: any) => Math.round(r.left));
        return { lines, document: Math.round(line.getBoundingClientRect().left) as number };
      });

      expect(edges.lines.length).toBeGreaterThan(1);
      for (const left of edges.lines) expect(Math.abs(left - edges.document)).toBeLessThanOrEqual(1);
      expect(payer.consoleErrors).toEqual([]);
      await payer.context.close();
    }, 40_000);

    test("when the CPF is invalid, then the page shows an inline error on the field and creates nothing", async () => {
      const { testKey } = await server.newAccount();
      const link = await createLink(testKey);
      const payer = await newPayer();
      const { page } = payer;
      const formUrl = `${server.baseUrl}/checkout/${link.id}`;

      await page.goto(formUrl);
      await fillPayer(page, "52998224724");
      await page.getByRole("button", { name: "Gerar Pix de R$ 49,90" }).click();

      const error = page.locator("#f-document-error");
      await error.waitFor();
      expect(await error.textContent()).toBe("CPF inválido: confira os números digitados.");
      expect(await page.getByLabel("CPF ou CNPJ").getAttribute("aria-invalid")).toBe("true");
      expect(await page.evaluate("document.activeElement?.id")).toBe("f-document");
      expect(await page.getByRole("alert").innerText()).toContain("CPF ou CNPJ: CPF inválido");
      expect(page.url()).toBe(formUrl);
      await screenshot(page, "6-invalid-cpf");
      expect(await chargesOfLink(testKey, link.id)).toEqual([]);
      expect(await customersOf(testKey)).toEqual([]);

      await page.getByLabel("CPF ou CNPJ").fill("");
      await page.getByLabel("CPF ou CNPJ").pressSequentially("52998224725");
      expect(await error.isHidden()).toBe(true);
      expect(payer.consoleErrors).toEqual([]);
      await payer.context.close();
    });

    test("when the payer corrects every field the server flagged, then the error summary goes away as they type, and comes back for a field emptied again", async () => {
      const { testKey } = await server.newAccount();
      const link = await createLink(testKey);
      const payer = await newPayer();
      const { page } = payer;
      await page.goto(`${server.baseUrl}/checkout/${link.id}`);
      await fillPayer(page);
      await page.getByLabel("Nome completo").fill("M");
      await page.getByLabel("E-mail").fill("maria@");
      const answer = page.waitForResponse((r) => r.request().method() === "POST");
      await page.getByRole("button", { name: "Gerar Pix de R$ 49,90" }).click();
      expect((await answer).status()).toBe(422);
      const summary = page.locator("#resumo-erros");
      const lines = summary.locator("li:visible");
      await summary.waitFor();
      expect(await summary.getByRole("heading").innerText()).toBe("Confira os dados abaixo");
      expect(await lines.allInnerTexts()).toEqual([
        expect.stringMatching(/^Nome completo: /),
        expect.stringMatching(/^E-mail: /),
      ]);
      expect(await page.evaluate("document.activeElement?.id")).toBe("f-name");
      await screenshot(page, "8-form-with-errors");

      await page.getByLabel("Nome completo").fill("Maria da Silva Santos");
      expect(await summary.isVisible()).toBe(true);
      expect(await lines.allInnerTexts()).toEqual([expect.stringMatching(/^E-mail: /)]);
      expect(await page.locator("#f-name-error").isHidden()).toBe(true);
      expect(await page.getByLabel("Nome completo").getAttribute("aria-invalid")).toBeNull();

      await page.getByLabel("E-mail").fill("maria.santos@example.com.br");
      expect(await summary.isHidden()).toBe(true);

      await page.getByLabel("E-mail").fill("");
      expect(await summary.isVisible()).toBe(true);
      expect(await lines.allInnerTexts()).toEqual([expect.stringMatching(/^E-mail: /)]);
      expect(await page.locator("#f-email-error").isVisible()).toBe(true);

      await page.getByLabel("E-mail").fill("maria.santos@example.com.br");
      await page.getByRole("button", { name: "Gerar Pix de R$ 49,90" }).click();
      await page.waitForURL(/\/t\/txn_[A-Za-z0-9]+$/);
      expect(payer.consoleErrors).toEqual([]);
      await payer.context.close();
    });

    test("when the link was deactivated, then the payer sees indisponível", async () => {
      const { testKey } = await server.newAccount();
      const link = await createLink(testKey);
      await bodyOf(
        publicApi(server.baseUrl, { key: testKey }).POST("/api/v1/payment-links/{id}/deactivate", byId(link.id)),
        200,
      );
      const payer = await newPayer();

      await payer.page.goto(`${server.baseUrl}/checkout/${link.id}`);

      await payer.page.getByRole("heading", { name: "Link de pagamento indisponível" }).waitFor();
      expect(await payer.page.locator("form").count()).toBe(0);
      await screenshot(payer.page, "7-unavailable");
      expect(payer.consoleErrors).toEqual([]);
      await payer.context.close();
    });
  },
);
