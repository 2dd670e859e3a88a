import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";

// The browser tests' screenshots, in test-artifacts/.

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const artifacts = join(root, "test-artifacts");

/**
 * Whether the browser tests photograph every screen they look at (`PIX_TEST_SCREENSHOTS=1`), for a
 * person to look at. The pictures check nothing, and a full-page PNG is 50–600 ms of Chromium's
 * CPU, about 150 of them a run on the CPU-bound CI machine: by default only a screen the layout
 * check found wrong is photographed, as the failure's evidence.
 */
export const everyScreenshot = process.env.PIX_TEST_SCREENSHOTS === "1";

/** A screenshot (full-page unless told) into test-artifacts/`file`, always. */
export async function screenshot(page: Page, file: string, options: { fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, file), fullPage: options.fullPage ?? true });
}

/** `screenshot` when every screen is photographed (`everyScreenshot`). */
export async function photograph(page: Page, file: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (everyScreenshot) await screenshot(page, file, options);
}
