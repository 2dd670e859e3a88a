import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestServer, type TestServer } from "../harness.js";
import { chromiumPath, closeContexts, hasChromium, sharedChromium } from "../support/chromium.js";
import { photograph } from "../support/screenshots.js";

// The documentation site at /docs (docs/decisions/0039-documentation-site-vitepress-and-swagger-ui.md),
// built once for this file as `npm run docs:build` builds it: its pages with their search index and
// the three API references, served by the server. Then in a real browser: the site searches offline
// with no request to another origin and no CSP violation, and "Try it out" in the public reference
// calls the server that served the page, whatever its host and port, not the document's default
// server (http://localhost:3000).

if (!hasChromium)
  console.warn(`[docs browser test] skipped: ${chromiumPath} not found (apt-get install -y chromium-headless-shell)`);

const root = fileURLToPath(new URL("../../..", import.meta.url));
const references = [
  { page: "/docs/api/public/", document: "/docs/api/openapi.yaml", path: "/api/v1/charges/pix:" },
  { page: "/docs/api/dashboard/", document: "/docs/api/dashboard-openapi.yaml", path: "/dashboard/v1/sign-up:" },
  { page: "/docs/api/admin/", document: "/docs/api/admin-openapi.yaml", path: "/admin/v1/accounts:" },
];

let site: string;
let server: TestServer;
let unbuilt: TestServer;

beforeAll(async () => {
  site = mkdtempSync(join(tmpdir(), "pix-docs-"));
  execFileSync(process.execPath, ["scripts/build-docs.mjs", `--outdir=${site}`], { cwd: root, timeout: 280_000 });
  server = await startTestServer({ docsDirectory: site });
  unbuilt = await startTestServer({ docsDirectory: null });
}, 300_000);

afterAll(async () => {
  await server?.close();
  await unbuilt?.close();
  if (site) rmSync(site, { recursive: true, force: true });
});

describe("GET /docs", () => {
  test("when the site is built, then /docs/ serves its pages, the search index over them and the three references with their documents", async () => {
    // Act
    const bare = await fetch(`${server.baseUrl}/docs`, { redirect: "manual" });
    const home = await fetch(`${server.baseUrl}/docs/`);
    const html = await home.text();
    const page = await fetch(`${server.baseUrl}/docs/recurring-pix.html`);
    const chunks = readdirSync(join(site, "assets/chunks"));
    const indexFile = chunks.find((name) => name.startsWith("@localSearchIndexroot."));
    const index = await fetch(`${server.baseUrl}/docs/assets/chunks/${indexFile}`);
    const indexText = await index.text();

    // Assert
    expect(bare.status).toBe(301);
    expect(bare.headers.get("location")).toBe("/docs/");
    expect(home.status).toBe(200);
    expect(html).toContain("Pix Charging Service");
    expect(html).toContain('href="/docs/quickstart.html"');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Início rápido: uma assinatura com Pix Automático");
    expect(indexFile).toBeDefined();
    expect(index.status).toBe(200);
    // The index holds the pages' words: Portuguese pages, English pages and the decision records.
    for (const word of ["Automático", "idempotency", "Standard Webhooks", "VitePress"])
      expect(indexText).toContain(word);
    for (const reference of references) {
      const pageAnswer = await fetch(`${server.baseUrl}${reference.page}`);
      const documentAnswer = await fetch(`${server.baseUrl}${reference.document}`);
      expect(pageAnswer.status, reference.page).toBe(200);
      expect(await pageAnswer.text()).toContain(`data-document="${reference.document}"`);
      expect(documentAnswer.status, reference.document).toBe(200);
      expect(await documentAnswer.text()).toContain(reference.path);
    }
    expect((await fetch(`${server.baseUrl}/docs/no-such-page.html`)).status).toBe(404);
  });

  test("when the site is built, then its pages run only their own scripts and the inline ones the build hashed, and cannot be framed", async () => {
    const hashes = JSON.parse(readFileSync(join(site, ".csp-script-hashes.json"), "utf8")) as string[];

    const home = await fetch(`${server.baseUrl}/docs/`);
    const csp = home.headers.get("content-security-policy") ?? "";

    expect(hashes.length).toBeGreaterThan(0);
    expect(csp).toContain(`script-src 'self' ${hashes.join(" ")}`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(home.headers.get("x-frame-options")).toBe("DENY");
    expect(await home.text()).not.toMatch(/<(script|link)\b[^>]*\b(src|href)="https?:/);
  });

  test("when the site is not built, then /docs says in Portuguese how to build it, and the references are served anyway", async () => {
    const home = await fetch(`${unbuilt.baseUrl}/docs`);
    const reference = await fetch(`${unbuilt.baseUrl}/docs/api/public/`);
    const document = await fetch(`${unbuilt.baseUrl}/docs/api/openapi.yaml`);

    expect(home.status).toBe(200);
    expect(await home.text()).toContain("Rode <code>npm run docs:build</code>");
    expect(home.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(reference.status).toBe(200);
    expect(document.status).toBe(200);
    expect(await document.text()).toContain("/api/v1/charges/pix:");
  });
});

describe.skipIf(!hasChromium)("GET /docs in Chromium", () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await sharedChromium();
  }, 60_000);

  afterAll(async () => {
    await closeContexts(browser);
  });

  /** A page that records every request to another origin and every CSP violation it reports. */
  async function watchedPage(origin: string): Promise<{ page: Page; foreign: string[]; violations: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const foreign: string[] = [];
    const violations: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(origin) && !request.url().startsWith("data:")) foreign.push(request.url());
    });
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    return { page, foreign, violations };
  }

  test("when the site is opened and searched, then the search finds the Pix Automático page offline, with no request to another origin and no CSP violation", async () => {
    const { page, foreign, violations } = await watchedPage(server.baseUrl);
    await page.goto(`${server.baseUrl}/docs/`);
    await photograph(page, "docs-home-1280.png", { fullPage: false });

    await page.getByRole("button", { name: "Buscar" }).first().click();
    await page.locator("#localsearch-input").fill("recorrência jornada");
    const hit = page.locator(".VPLocalSearchBox .result").first();
    await hit.waitFor();
    await photograph(page, "docs-search-1280.png", { fullPage: false });
    const hitText = await hit.innerText();
    await hit.click();
    await page.waitForURL(/recurring-pix\.html/);
    // The site's router changes the address before it renders the page: the heading is awaited
    // (a fresh clone's run read the home page's heading right after the address changed).
    await page.locator("h1").filter({ hasText: "Pix Automático" }).first().waitFor({ timeout: 15_000 });

    expect(hitText).toContain("Pix Automático");
    expect(await page.locator("h1").first().innerText()).toContain("Pix Automático");
    expect(foreign).toEqual([]);
    expect(violations).toEqual([]);
    await page.close();
  }, 60_000);

  test("when Try it out executes GET /api/v1/balance, then the request goes to the serving origin and gets its answer", async () => {
    const { page, foreign, violations } = await watchedPage(server.baseUrl);
    const apiCalls: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/v1/balance")) apiCalls.push(request.url());
    });
    await page.goto(`${server.baseUrl}/docs/api/public/`);
    const operation = page.locator(".opblock-get", { hasText: "/api/v1/balance" }).first();
    await operation.locator(".opblock-summary").click();
    await operation.locator(".try-out__btn").click();
    const answered = page.waitForResponse((response) => response.url().includes("/api/v1/balance"));
    await operation.locator(".execute").click();
    const response = await answered;
    await photograph(page, "docs-reference-1280.png", { fullPage: false });

    expect(apiCalls).toEqual([`${server.baseUrl}/api/v1/balance`]);
    // No key was given: our server's own 401 reached the page.
    expect(response.status()).toBe(401);
    expect(await page.title()).toBe("Pix Charging Service — API reference");
    expect(foreign).toEqual([]);
    expect(violations).toEqual([]);
    await page.close();
  }, 60_000);

  test.each(references)(
    "when the reference $page is opened, then Swagger UI renders its document",
    async (reference) => {
      const { page, foreign, violations } = await watchedPage(server.baseUrl);
      await page.goto(`${server.baseUrl}${reference.page}`);
      await page.locator(".opblock").first().waitFor();

      expect(await page.locator(".opblock").count()).toBeGreaterThan(5);
      expect(foreign).toEqual([]);
      expect(violations).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
