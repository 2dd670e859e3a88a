import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { everyScreenshot, screenshot } from "./screenshots.js";

// The dashboard's web app (dashboard/) in the browser tests: built once per file with Vite into a
// temporary folder the test server serves at /painel, pages watched for CSP violations, foreign
// requests and script errors, axe-core run on each screen, screenshots written to test-artifacts/
// (every screen with PIX_TEST_SCREENSHOTS=1; otherwise a screen the checks found wrong).

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const require = createRequire(import.meta.url);

/** The files the app is built from, as one digest: a build is reused while they stay the same. */
function panelDigest(): string {
  const hash = createHash("sha256");
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
    );
  const inputs = [...walk(join(root, "dashboard")), join(root, "generated/dashboard-api.d.ts")].sort();
  // The flavour too: builds made before the production one (in a test worker, React's
  // development build) are not reused.
  hash.update("NODE_ENV=production\0");
  for (const file of inputs) hash.update(`${file}\0`).update(readFileSync(file));
  return hash.digest("hex").slice(0, 16);
}

/**
 * `vite build` of dashboard/ into a temporary folder, as `npm run build` makes it: its path. The
 * browser test files share one build of the same sources (written aside, then renamed into place,
 * so two files never read a half-written one).
 *
 * Built in a process of its own with `NODE_ENV=production`, as `npm run build` runs: Vite takes
 * the app's `process.env.NODE_ENV` from its own process, and in a test worker that is `test`, which
 * built React's development flavour (every render twice under StrictMode, 300 KB more) — not the
 * app a merchant gets, and about a quarter more of Chromium's CPU (200 against 161 CPU-s a run).
 * docs/decisions/0061-browser-tests-drive-the-app-as-built.md.
 */
export async function buildPanel(): Promise<string> {
  const target = join(tmpdir(), `painel-${panelDigest()}`);
  if (existsSync(join(target, "index.html"))) {
    // Marked as used: pruning (below) removes only builds no run has used for a day.
    const now = new Date();
    try {
      utimesSync(target, now, now);
    } catch {
      // Pruned this instant by another run's build of other sources: built again next time.
    }
    return target;
  }
  const outDir = mkdtempSync(join(tmpdir(), "painel-build-"));
  const build = `const { build } = await import("vite");
await build({ configFile: ${JSON.stringify(join(root, "dashboard/vite.config.ts"))}, build: { outDir: process.argv[1], emptyOutDir: true }, logLevel: "error" });`;
  await new Promise<void>((done, fail) =>
    execFile(
      process.execPath,
      ["--input-type=module", "-e", build, outDir],
      { cwd: root, env: { ...process.env, NODE_ENV: "production" }, timeout: 120_000 },
      (error, _stdout, stderr) => (error ? fail(new Error(`vite build: ${error.message}\n${stderr}`)) : done()),
    ),
  );
  try {
    renameSync(outDir, target);
    pruneOldBuilds(target);
    return target;
  } catch {
    // Another file's build got there first: same sources, same files (this one is not kept).
    if (!existsSync(join(target, "index.html"))) return outDir;
    rmSync(outDir, { recursive: true, force: true });
    return target;
  }
}

/** How old a build of other sources must be before a new build removes it (a day). */
const staleBuildMs = 86_400_000;

/**
 * Removes the builds of other sources (`painel-<digest>`, and `painel-build-*` a failed build
 * left) no run has used for a day: each change to dashboard/ made a new 0.7 MB build that stayed in the
 * temporary folder. A day, not at once: another checkout's run may be serving its own build now.
 */
export function pruneOldBuilds(kept: string, dir = tmpdir()): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    if (!/^painel-([0-9a-f]{16}|build-.+)$/.test(name)) continue;
    const path = join(dir, name);
    if (path === kept) continue;
    try {
      if (now - statSync(path).mtimeMs > staleBuildMs) rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already (another run pruned it), or not ours to remove: left.
    }
  }
}

/** A port of 127.0.0.1 free now: the test server's PUBLIC_BASE_URL must name it before it starts. */
export { freePort } from "../../../scripts/pg-cluster.js";

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors (CSP violations among them), script errors, and requests to other origins. */
  problems: string[];
}

/** A new person's browser (own cookies), in Brasília time and Portuguese. */
export async function openBrowserTab(
  newContext: () => Promise<BrowserContext>,
  origin: string,
  expectedStatuses: (status: number, url: string) => boolean = () => false,
): Promise<WatchedPage> {
  const context = await newContext();
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  const page = await context.newPage();
  const watched: WatchedPage = { page, context, problems: [] };
  page.on("request", (request) => {
    if (!request.url().startsWith(`${origin}/`)) watched.problems.push(`foreign request ${request.url()}`);
  });
  page.on("console", (message) => {
    // Failed requests are judged by the response handler below.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
      watched.problems.push(`console: ${message.text()}`);
    }
  });
  page.on("response", (response) => {
    const status = response.status();
    if (status < 400 || expectedStatuses(status, response.url())) return;
    const problem = `${status} ${response.request().method()} ${response.url()}`;
    // The answer that opens the step-up dialog is part of every dangerous operation.
    if (status !== 403) return void watched.problems.push(problem);
    response.json().then(
      (body: { code?: string }) => body.code !== "STEP_UP_REQUIRED" && watched.problems.push(`${problem} ${body.code}`),
      () => watched.problems.push(problem),
    );
  });
  page.on("pageerror", (error) => watched.problems.push(`page error: ${error.message}`));
  return watched;
}

/**
 * axe-core's script as evaluated in each document, its 17 characters past ASCII (©, –, …, ε and the
 * like, in comments, strings and patterns) written as `\uXXXX` escapes: the same program, but a text
 * of one byte a character, where one such character made the whole 650 KB travel to Chromium and be
 * parsed as UTF-16. Evaluating it took 64 × 390 ms of a browser run's time; alone, 200 → 140 ms
 * each. `layout-check.test.ts` holds that it finds what the published script finds.
 */
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8").replace(
  /[\u0080-\uffff]/g,
  (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
);

/** axe-core's serious and critical findings on the page as it is now (WCAG 2.1 A/AA and best practices). */
export function seriousAccessibilityProblems(page: Page): Promise<string[]> {
  return seriousAccessibilityProblemsBy(page, axeSource);
}

/** The same, with axe-core's script as `source` (a test compares the sent one with the published one). */
export async function seriousAccessibilityProblemsBy(page: Page, source: string): Promise<string[]> {
  // Once per document: a screen the app reached without loading a page still has it (evaluating
  // axe-core's 650 KB took 190–260 ms each time on the loaded 2-core machine).
  if (!(await page.evaluate("typeof axe !== 'undefined'"))) await page.evaluate(source);
  // A string, evaluated in the page: this file is type-checked without the DOM's types.
  // `resultTypes`: only the violations are read, so axe-core builds the nodes' details (selectors,
  // HTML, messages) for them alone, not for every passing node (axe's own performance option: its
  // time in dashboard.test.ts 4.9 → 4.1 s for 33 screens).
  const found = (await page.evaluate(`axe
    .run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
      resultTypes: ["violations"],
    })
    .then((result) => result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 3).map((n) => String(n.target)),
    })))`)) as { id: string; impact: string; nodes: string[] }[];
  return found
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.join(", ")}`);
}

/** The widths the layout is checked at: phones, a tablet, laptops; the last (1280) stays set. */
const layoutWidths = [360, 390, 768, 1440, 1280] as const;

/**
 * What is wrong with the page's layout at the window's width now: the page scrolls sideways, or a
 * list row's amount (a cell with "R$ …") or a cell marked `data-essential` (status, amount) lies
 * outside the window or the box that scrolls it, so a person must scroll to read it. Rows out of
 * sight (a closed <details>) are not judged.
 */
async function layoutProblemsNow(page: Page, name: string): Promise<string[]> {
  const wrong: string[] = [];
  // One evaluation for the window's width, its overflow and the rows' cells out of view (each
  // evaluation is a round trip to Chromium, a few a width, a few widths a screen).
  // A string, evaluated in the page: this file is type-checked without the DOM's types.
  const { width, overflow, hidden } = (await page.evaluate(`(() => {
    const outside = [];
    for (const row of document.querySelectorAll("tbody tr")) {
      if (row.getClientRects().length === 0) continue;
      for (const cell of row.cells) {
        if (!cell.hasAttribute("data-essential") && !/R\\$\\s?-?\\d/.test(cell.textContent || "")) continue;
        let left = 0;
        let right = window.innerWidth;
        for (let box = cell.parentElement; box; box = box.parentElement) {
          if (getComputedStyle(box).overflowX === "visible") continue;
          const r = box.getBoundingClientRect();
          left = Math.max(left, r.left);
          right = Math.min(right, r.right);
        }
        const r = cell.getBoundingClientRect();
        if (r.left < left - 0.5 || r.right > right + 0.5) {
          outside.push((cell.getAttribute("data-label") || "cell") + " " + (cell.textContent || "").trim().slice(0, 30));
        }
      }
    }
    return {
      width: window.innerWidth,
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      hidden: outside,
    };
  })()`)) as { width: number; overflow: number; hidden: string[] };
  if (overflow > 0) {
    // The deepest elements that stick out, to say what to fix.
    const culprits = (await page.evaluate(`[...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
      .filter((e) => ![...e.children].some((c) => c.getBoundingClientRect().right > window.innerWidth + 0.5))
      .slice(0, 3)
      .map((e) => e.tagName.toLowerCase() + (e.className ? "." + String(e.className).split(" ")[0] : "") + " " + (e.textContent || "").slice(0, 30))`)) as string[];
    wrong.push(`${name} at ${width}px: ${overflow}px wider than the window (${culprits.join(" | ")})`);
  }
  if (hidden.length > 0) {
    wrong.push(`${name} at ${width}px: ${hidden.length} row cell(s) out of view (${hidden.slice(0, 3).join(" | ")})`);
  }
  return wrong;
}

/**
 * The screenshots taken by this worker: a screen a suite looks at on both stores is photographed
 * once (on the first, the memory store), the picture a person looks at being the same screen; a
 * full-page PNG is 50–150 ms of Chromium's CPU each, hundreds of them a run.
 */
const photographed = new Set<string>();

/**
 * The screens this worker has checked at every width. A screen looked at again under the same name
 * (the same screen on the other store) is checked at a phone's and a laptop's width, 390 and 1280
 * px, the widths every screen is held to on both stores: the layout is the app's, the same on both,
 * and each width is a resize and its reflow in Chromium.
 */
const everyWidthChecked = new Set<string>();

/**
 * The layout check at every width of `layoutWidths` (no sideways scrolling of the page, every
 * row's amount and status in view; at 390 and 1280 px only when a screen of this name was checked
 * at every width already), with full-page screenshots (test-artifacts/painel-<name>-<width>.png,
 * once per run) at a phone's and a laptop's width with PIX_TEST_SCREENSHOTS=1, else at a width
 * where the check found something wrong. Returns what is wrong; the laptop's width stays set.
 */
export async function layoutProblems(page: Page, name: string): Promise<string[]> {
  const wrong: string[] = [];
  const widths = everyWidthChecked.has(name) ? layoutWidths.filter((w) => w === 390 || w === 1280) : layoutWidths;
  everyWidthChecked.add(name);
  for (const width of widths) {
    await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
    const here = await layoutProblemsNow(page, name);
    wrong.push(...here);
    const file = `painel-${name}-${width}.png`;
    const wanted = everyScreenshot ? width === 390 || width === 1280 : here.length > 0;
    if (wanted && !photographed.has(file)) {
      photographed.add(file);
      await screenshot(page, file);
    }
  }
  return wrong;
}

/**
 * One screen looked at as a person would: the layout check at every width (`layoutProblems`: at
 * 390 and 1280 px when looked at before under its name; screenshots at 390 and 1280 px) and
 * axe-core's serious and critical findings. Returns what is wrong; the laptop's width stays set.
 */
export async function lookAt(page: Page, name: string): Promise<string[]> {
  const wrong = await layoutProblems(page, name);
  wrong.push(...(await seriousAccessibilityProblems(page)).map((problem) => `${name}: ${problem}`));
  return wrong;
}
