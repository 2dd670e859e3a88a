import { existsSync, readdirSync, readFileSync } from "node:fs";
import { type Browser, chromium, type LaunchOptions } from "playwright-core";

// The browser tests drive Debian's Chromium through playwright-core (no bundled browser download).

/**
 * Debian's headless shell (package chromium-headless-shell: the same Blink and V8 as the browser,
 * without the browser's window, as Playwright's own headless default), else Debian's whole browser
 * (package chromium): the browser project took 444 CPU-s with the browser and 328 with the shell
 * (docs/decisions/0062-the-browser-tests-run-chromiums-headless-shell.md). CHROMIUM_PATH points
 * elsewhere (or, set to a missing file, shows the skip).
 */
const headlessShell = "/usr/bin/chromium-headless-shell";
export const chromiumPath =
  process.env.CHROMIUM_PATH ?? [headlessShell, "/usr/bin/chromium"].find((path) => existsSync(path)) ?? headlessShell;

/** Whether the browser tests can run; they are skipped, and say why, when it is false. */
export const hasChromium = existsSync(chromiumPath);

const options: LaunchOptions = {
  executablePath: chromiumPath,
  headless: true,
  // Playwright gives every launch a fresh temporary --user-data-dir and removes it on close.
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};

/**
 * Features of Chromium's own window that no test looks at (the whole browser's; the headless shell
 * has no window): headless Chromium is the whole browser, and every new window (each browser
 * context) made the address bar's three WebUI popups, a renderer running Chrome's own pages each.
 * Eight contexts took 12.3 s of CPU with them and 2.7 s without.
 */
const featuresOff = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup"];

/** The pids of this process's children and their children. */
function descendants(): Map<number, string> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const found = new Map<number, string>();
  const ours = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, parent] of parentOf) {
      if (ours.has(pid) || !ours.has(parent)) continue;
      ours.add(pid);
      grew = true;
      try {
        found.set(pid, readFileSync(`/proc/${pid}/cmdline`, "utf8"));
      } catch {
        // Gone meanwhile.
      }
    }
  }
  return found;
}

/**
 * The launch options with `featuresOff` added to Playwright's own `--disable-features` list.
 * Chromium keeps only the last `--disable-features` it is given, and Playwright's list is its own
 * (not in its API), so it is read once from a first launch's command line (/proc) and passed again,
 * merged, in its place. Without /proc (not Linux), or for the headless shell (no window, so none of
 * these features), Playwright's defaults as they are.
 */
let merged: Promise<LaunchOptions> | undefined;
function launchOptions(): Promise<LaunchOptions> {
  merged ??= (async () => {
    if (!existsSync("/proc/self/stat") || /headless-shell/.test(chromiumPath)) return options;
    const before = new Set(descendants().keys());
    const probe = await chromium.launch(options);
    try {
      const arg = [...descendants()]
        .filter(([pid]) => !before.has(pid))
        .flatMap(([, cmdline]) => cmdline.split("\0"))
        .find((a) => a.startsWith("--disable-features="));
      if (arg === undefined) return options;
      const list = [...arg.slice("--disable-features=".length).split(",").filter(Boolean), ...featuresOff];
      return {
        ...options,
        ignoreDefaultArgs: [arg],
        args: [...(options.args ?? []), `--disable-features=${[...new Set(list)].join(",")}`],
      };
    } finally {
      await probe.close();
    }
  })();
  return merged;
}

/** A headless Chromium at `chromiumPath`, quiet on the network but for what the page asks. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch(await launchOptions());
}

let shared: Promise<Browser> | undefined;

/**
 * The test worker's Chromium: launched by the first browser file the worker runs and kept for the
 * next ones (the browser project's files share a module graph per worker, vitest.config.ts). A
 * launch is about 1.4 s of CPU (Chromium's browser, GPU and zygote processes starting, Playwright's
 * connection), and each file had its own. A file closes what it opened (`closeContexts` in its
 * `afterAll`); the browser goes with the worker: vitest stops a worker with SIGTERM, on which the
 * worker exits and Playwright, at the process's exit, kills the browser it launched and removes its
 * profile folder (its own `handleSIGTERM` would close the browser gracefully and leave the worker
 * running until vitest's SIGKILL, which can come first).
 */
export function sharedChromium(): Promise<Browser> {
  shared ??= (async () => {
    const browser = await chromium.launch({ ...(await launchOptions()), handleSIGTERM: false });
    browser.on("disconnected", () => (shared = undefined));
    process.once("SIGTERM", () => process.exit(0));
    return browser;
  })().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

/** Closes every context open in `browser` (a page made by `browser.newPage()` has one of its own). */
export async function closeContexts(browser: Browser | undefined): Promise<void> {
  if (browser) await Promise.all(browser.contexts().map((context) => context.close()));
}
