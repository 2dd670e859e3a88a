// Step 1 of `npm run generate`: compile the TypeSpec into one OpenAPI document per service.
import { join } from "node:path";
import { compile, formatDiagnostic, NodeHost, type Program, resolveCompilerOptions } from "@typespec/compiler";

/**
 * Compiles `spec/main.tsp` with the repository's `tspconfig.yaml` (as `tsp compile` does), writing
 * the emitted documents into `outDir`, and answers the program, so later steps can read what the
 * emitter leaves out (the `@opExample` parameters, scripts/generate/example-parameters.ts). On
 * failure the compiler's diagnostics go to stderr.
 */
export async function compileTypeSpec(root: string, outDir: string): Promise<Program> {
  const entrypoint = join(root, "spec/main.tsp");
  const [options, configProblems] = await resolveCompilerOptions(NodeHost, {
    entrypoint,
    cwd: root,
    env: process.env,
    overrides: { outputDir: outDir },
  });
  const program = configProblems.length === 0 ? await compile(NodeHost, entrypoint, options) : undefined;
  const diagnostics = program?.diagnostics ?? configProblems;
  // The configuration's `warn-as-error: true` makes a warning fail, as `tsp compile` does.
  const failing = diagnostics.filter((d) => d.severity === "error" || options.warningAsError);
  if (!program || failing.length > 0) {
    // Show the compiler's diagnostics, not just "compilation failed".
    process.stderr.write(`${diagnostics.map((d) => formatDiagnostic(d)).join("\n")}\n`);
    throw new Error("TypeSpec compilation failed (diagnostics above)");
  }
  return program;
}
