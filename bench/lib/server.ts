import { existsSync } from "node:fs";

/** How to run the server: the compiled build when there is one, else the TypeScript sources through tsx. */
export function serverArgs(): string[] {
  return existsSync("dist/server/src/main.js")
    ? ["dist/server/src/main.js"]
    : ["--import", "tsx", "server/src/main.ts"];
}
