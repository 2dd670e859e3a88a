import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestServer, type TestServer } from "../harness.js";
import { chromiumPath, hasChromium, launchChromium } from "../support/chromium.js";

// The API reference at /docs in a real browser: "Try it out" must call the server that served the
// page, whatever its host and port, not the document's default server (http://localhost:3000).

if (!hasChromium) console.warn(`[docs browser test] skipped: ${chromiumPath} not found (apt-get install -y chromium)`);

let server: TestServer;
let browser: Browser;

describe.skipIf(!hasChromium)("GET /docs in Chromium", () => {
  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  test("when Try it out executes GET /api/v1/balance, then the request goes to the serving origin and gets its answer", async () => {
    const page = await browser.newPage();
    const apiCalls: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/v1/balance")) apiCalls.push(request.url());
    });
    await page.goto(`${server.baseUrl}/docs`);
    const operation = page.locator(".opblock-get", { hasText: "/api/v1/balance" }).first();
    await operation.locator(".opblock-summary").click();
    await operation.locator(".try-out__btn").click();
    const answered = page.waitForResponse((response) => response.url().includes("/api/v1/balance"));
    await operation.locator(".execute").click();
    const response = await answered;

    expect(apiCalls).toEqual([`${server.baseUrl}/api/v1/balance`]);
    // No key was given: our server's own 401 reached the page.
    expect(response.status()).toBe(401);
    expect(await page.title()).toBe("Pix Charging Service — API reference");
    await page.close();
  }, 60_000);
});
