import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser";
import extractDepcruiseConfig from "dependency-cruiser/config-utl/extract-depcruise-config";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { afterAll, describe, expect, test } from "vitest";

// The import rules of .dependency-cruiser.cjs (docs/architecture.md, "Rooms"): no file-level cycle
// anywhere, type-only imports included, and a domain feature entered only through its index.ts.

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

async function violationsIn(paths: string[], cwd = root): Promise<IViolation[]> {
  const previous = process.cwd();
  process.chdir(cwd);
  try {
    const ruleSet = await extractDepcruiseConfig(join(root, ".dependency-cruiser.cjs"));
    const tsConfig = extractTSConfig(join(root, "tsconfig.json"));
    const result = await cruise(
      paths,
      { ...ruleSet.options, ruleSet, validate: true, tsPreCompilationDeps: true },
      undefined,
      { tsConfig },
    );
    return (result.output as ICruiseResult).summary.violations;
  } finally {
    process.chdir(previous);
  }
}

const described = (v: IViolation) =>
  `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(" → ")})` : ""}`;

describe("the import rules", () => {
  test("when the server, the web app, the client and the scripts are cruised, then no rule is broken", async () => {
    const violations = await violationsIn(["server/src", "dashboard/src", "client/src", "scripts"]);
    expect(violations.map(described)).toEqual([]);
  }, 120_000);

  describe("the rules can fail", () => {
    const scratch = mkdtempSync(join(tmpdir(), "import-rules-"));
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));
    const put = (path: string, text: string) => {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    };

    test("when two files import each other's types, or a feature is entered past its index, then each is a violation", async () => {
      put("tsconfig.json", JSON.stringify({ compilerOptions: { module: "nodenext", strict: true } }));
      put("server/src/domain/keys/a.ts", 'import type { B } from "./b.js";\nexport type A = B | 1;\n');
      put("server/src/domain/keys/b.ts", 'import type { A } from "./a.js";\nexport type B = A | 2;\n');
      put("server/src/domain/keys/index.ts", 'export * from "./a.js";\n');
      put("server/src/domain/payments/c.ts", 'import type { A } from "../keys/a.js";\nexport type C = A;\n');
      put("server/src/http/d.ts", 'import type { A } from "../domain/keys/b.js";\nexport type D = A;\n');

      const rules = (await violationsIn(["server"], scratch)).map((v) => v.rule.name);

      expect(rules).toContain("no-circular");
      expect(rules).toContain("feature-through-index");
      expect(rules).toContain("outside-through-index");
    }, 60_000);
  });
});
