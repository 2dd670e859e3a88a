import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

// The browser tests drive Debian's Chromium through playwright-core (no bundled browser download).

/** Debian's Chromium; CHROMIUM_PATH points elsewhere (or, set to a missing file, shows the skip). */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Whether the browser tests can run; they are skipped, and say why, when it is false. */
export const hasChromium = existsSync(chromiumPath);

/** A headless Chromium at `chromiumPath`, quiet on the network but for what the page asks. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
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
  });
}
