import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { documents } from "./documents.js";
import { emitRules } from "./emit-rules.js";

// The statuses' words (`x-labels` beside an enumeration) reach generated/rules.ts only whole: a
// value without its word, or a word for no value, stops the generation instead of leaving the
// export or the app to show a raw code.

const root = join(import.meta.dirname, "../..");
const scratch = mkdtempSync(join(tmpdir(), "emit-rules-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The generated documents in a folder of their own, the dashboard's edited by `edit`. */
function documentsWith(name: string, edit: (yaml: string) => string): string {
  const dir = join(scratch, name);
  mkdirSync(dir);
  for (const { openapi } of documents) {
    const from = join(root, "generated", openapi);
    if (openapi === "dashboard-openapi.yaml") {
      writeFileSync(join(dir, openapi), edit(readFileSync(from, "utf8")));
    } else copyFileSync(from, join(dir, openapi));
  }
  return dir;
}

test("when a status has no word and a word names no status, then the generation stops and names both", () => {
  // One document for both cases: each reading of the three documents is seconds of YAML parsing.
  // The whole case is `npm run check:generated` (generated/rules.ts made again from spec/).
  const dir = documentsWith("wrong", (yaml) => {
    const withdrawal = yaml.indexOf("PixService.WithdrawalStatus:");
    const labels = yaml.indexOf("        PARTIALLY_PAID: Pago em parte\n", withdrawal);
    if (withdrawal < 0 || labels < 0) throw new Error("the dashboard document has no withdrawal labels");
    return `${yaml.slice(0, labels)}        REVERSED: Estornado\n${yaml.slice(labels + "        PARTIALLY_PAID: Pago em parte\n".length)}`;
  });

  expect(() => emitRules(dir)).toThrow(
    /WithdrawalStatus\/x-labels must label each value of the enumeration once \(without a label: PARTIALLY_PAID; not a value: REVERSED\)/,
  );
});
