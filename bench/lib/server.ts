import { existsSync, readFileSync } from "node:fs";

/**
 * The flags `npm start` gives node (package.json's `start` script), read from there so the bench
 * measures the runtime production runs, and the baselines run with the same V8 settings.
 */
export function startFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: { start: string } };
  return scripts.start.split(/\s+/).filter((word) => word.startsWith("--"));
}

/** How to run the server: the compiled build as `npm start` runs it, else the TypeScript sources through tsx. */
export function serverArgs(): string[] {
  return existsSync("dist/server/src/main.js")
    ? [...startFlags(), "dist/server/src/main.js"]
    : [...startFlags(), "--import", "tsx", "server/src/main.ts"];
}
