/**
 * Fails when `generated/` differs from what `spec/` produces now: rebuilds into a temporary folder
 * and compares every file byte for byte, in both directions.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generate } from "./generate.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const committed = join(root, "generated");
const fresh = mkdtempSync(join(tmpdir(), "pix-generated-"));
try {
  await generate(fresh);
  // Every file, in sub-folders too (generated/bank/).
  const files = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => statSync(join(dir, name)).isFile())
      : [];
  const names = new Set([...files(fresh), ...files(committed)]);
  const drift = [...names].filter((name) => {
    const a = join(committed, name);
    const b = join(fresh, name);
    return !existsSync(a) || !existsSync(b) || !readFileSync(a).equals(readFileSync(b));
  });
  if (drift.length > 0) {
    console.error(`generated/ is out of date with spec/: ${drift.join(", ")}\nRun \`npm run generate\` and commit.`);
    process.exit(1);
  }
  console.log(`generated/ is up to date (${names.size} files).`);
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
