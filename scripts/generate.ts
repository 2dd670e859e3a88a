/**
 * Rebuilds everything in `generated/` from the TypeSpec in `spec/`, one step per module under
 * `scripts/generate/`:
 *
 *   spec/main.tsp ──compile-typespec──▶ *.openapi.yaml ──example parameters, seal, server audience, error examples──▶ openapi.yaml
 *   openapi.yaml ──emit-types (openapi-typescript)──▶ api.d.ts
 *   openapi.yaml ──emit-operations──────────────────▶ operations.ts
 *   openapi.yaml ──emit-validators (Ajv standalone)─▶ request-validators.ts (the request check)
 *   both documents ──emit-rules─────────────────────▶ rules.ts (rule numbers, permissions)
 *   spec/bank/<bank>/openapi.yaml + overlay.yaml ──bank-documents──▶ bank/<bank>.yaml, bank/<bank>.d.ts
 *
 * `operations.ts` is the handler contract: for every operationId its method, path and
 * permission (from `x-permission`), and a typed request/response pair built on `api.d.ts`. The
 * server implements `Handlers`, so a route added to the spec without a handler fails `tsc`.
 *
 * Usage: `tsx scripts/generate.ts [--out DIR]` (default `generated/`). `check-generated.ts`
 * calls it with a temporary folder and compares.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { compileTypeSpec } from "./generate/compile-typespec.js";
import { documents } from "./generate/documents.js";
import { type OpenApiDocument, readOperations, renderOperations } from "./generate/emit-operations.js";
import { emitRules } from "./generate/emit-rules.js";
import { emitBankDocuments } from "./generate/bank-documents.js";
import { addErrorExamples } from "./generate/error-examples.js";
import { carryExampleParameters, readExampleParameters } from "./generate/example-parameters.js";
import { emitTypes } from "./generate/emit-types.js";
import { emitValidators } from "./generate/emit-validators.js";
import { markServerAudience, sealAsFalse } from "./generate/seal.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/** Emits every document into `outDir`. */
export async function generate(outDir: string): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "pix-tsp-"));
  try {
    const program = await compileTypeSpec(root, work);
    // The emitter drops each @opExample's parameters (the mode, the ids): carried onto its examples.
    const exampleParameters = readExampleParameters(program);
    for (const doc of documents) {
      const compiled = carryExampleParameters(
        readFileSync(join(work, doc.emitted), "utf8"),
        exampleParameters.get(doc.emitted.replace(/\.openapi\.yaml$/, "")),
      );
      const emitted = markServerAudience(sealAsFalse(compiled), doc.internal);
      const yamlText = addErrorExamples(emitted, doc.name);
      writeFileSync(join(outDir, doc.openapi), yamlText);
      // One parse for the types, the operations and the validators (emitTypes changes a copy).
      const parsed: unknown = parse(yamlText);
      writeFileSync(join(outDir, doc.types), await emitTypes(parsed));
      const roles = "roles" in doc && doc.roles;
      const ops = readOperations(parsed as OpenApiDocument, doc.permissions, roles);
      const typesModule = `./${doc.types.replace(/\.d\.ts$/, ".js")}`;
      writeFileSync(join(outDir, doc.operations), renderOperations(ops, typesModule, roles));
      writeFileSync(join(outDir, doc.validators), emitValidators(parsed as Record<string, unknown>, doc.openapi));
    }
    emitRules(outDir);
    await emitBankDocuments(root, outDir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--out");
  const outArg = i >= 0 ? process.argv[i + 1] : undefined;
  const outDir = resolve(outArg ?? join(root, "generated"));
  await generate(outDir);
  console.log(`generated → ${outDir}`);
}
