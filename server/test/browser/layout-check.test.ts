import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { chromiumPath, closeContexts, hasChromium, sharedChromium } from "../support/chromium.js";
import { layoutProblems, seriousAccessibilityProblems, seriousAccessibilityProblemsBy } from "../support/panel.js";

// The layout check every browser suite runs on every screen (support/panel.ts `layoutProblems`):
// that it finds what it looks for, and nothing on a page that fits, at each width it tries. And
// the accessibility check's axe-core, as the checks send it to Chromium.

let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!hasChromium) return;
  browser = await sharedChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
});

afterAll(async () => {
  await closeContexts(browser);
});

/** A list of two rows, the amounts in a column of `amountWidth` px, inside a box that scrolls or not. */
const list = (amountWidth: number, scrolls: boolean, extra = "") => `<!doctype html>
<html><body style="margin:0">
  <div style="overflow-x:${scrolls ? "auto" : "visible"}">
    <table style="border-collapse:collapse"><tbody>
      <tr><td>Pedido 1</td><td>R$ 10,00</td></tr>
      <tr><td data-label="Status" data-essential>Pago</td><td style="min-width:${amountWidth}px">R$ 20,00</td></tr>
    </tbody></table>
  </div>${extra}
</body></html>`;

describe.skipIf(!hasChromium)(`the layout check (${chromiumPath})`, () => {
  test("when everything fits at every width, then it finds nothing", async () => {
    await page.setContent(list(100, true));
    expect(await layoutProblems(page, "cabe")).toEqual([]);
  });

  test("when an element is wider than the window, then it names the width and the element, at the phone's widths only", async () => {
    await page.setContent(list(100, true, `<p class="largo" style="width:700px">Texto largo</p>`));
    const found = await layoutProblems(page, "largo");
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/^largo at 360px: 340px wider than the window \(.*p\.largo Texto largo/);
    expect(found[1]).toMatch(/^largo at 390px: 310px wider than the window/);
  });

  test("when a row's amount lies past the edge of the box that scrolls it, then it names the cell, at each width where it does", async () => {
    await page.setContent(list(900, true));
    const found = await layoutProblems(page, "valor");
    expect(found).toEqual([
      "valor at 360px: 2 row cell(s) out of view (cell R$ 10,00 | cell R$ 20,00)",
      "valor at 390px: 2 row cell(s) out of view (cell R$ 10,00 | cell R$ 20,00)",
      "valor at 768px: 2 row cell(s) out of view (cell R$ 10,00 | cell R$ 20,00)",
    ]);
  });

  test("when a screen is looked at again under its name, then only a phone's and a laptop's widths are checked", async () => {
    await page.setContent(list(900, true));
    const found = await layoutProblems(page, "valor");
    expect(found).toEqual(["valor at 390px: 2 row cell(s) out of view (cell R$ 10,00 | cell R$ 20,00)"]);
  });
});

/** A page with a serious or critical violation of several kinds, and text past ASCII. */
const inaccessible = `<!doctype html>
<html lang="pt-BR"><head><title>Página</title></head><body><main>
  <h1>Cobranças – “teste”…</h1>
  <img src="data:,">
  <p style="color:#c8c8c8;background:#fff">Contraste baixo: R$ 10,00 ε</p>
  <input type="text"><button></button><a href="#"></a><div role="buton">x</div>
</main></body></html>`;

describe.skipIf(!hasChromium)("the accessibility check", () => {
  test("when axe-core runs as the checks send it (its characters past ASCII escaped), then it finds what the published script finds", async () => {
    // Arrange
    const published = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

    // Act: each in a new document (`setContent` alone keeps the window, and axe in it)
    await page.goto("about:blank");
    await page.setContent(inaccessible);
    const sent = await seriousAccessibilityProblems(page);
    await page.goto("about:blank");
    await page.setContent(inaccessible);
    const original = await seriousAccessibilityProblemsBy(page, published);

    // Assert
    expect(/[\u0080-\uffff]/.test(published)).toBe(true);
    expect(sent.map((problem) => problem.split(":")[0])).toEqual(
      expect.arrayContaining([
        "critical aria-roles",
        "critical button-name",
        "critical image-alt",
        "serious link-name",
      ]),
    );
    expect(sent).toEqual(original);
  });
});
