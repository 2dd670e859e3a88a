// Step 1 of `npm run generate`: compile the TypeSpec into one OpenAPI document per service.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

/**
 * Runs the TypeSpec compiler on `spec/main.tsp` with the repository's `tspconfig.yaml`, writing the
 * emitted documents into `outDir`. On failure the compiler's diagnostics go to stderr.
 */
export function compileTypeSpec(root: string, outDir: string): void {
  try {
    execFileSync(
      process.execPath,
      [
        join(root, "node_modules/@typespec/compiler/cmd/tsp.js"),
        "compile",
        join(root, "spec/main.tsp"),
        "--output-dir",
        outDir,
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
  } catch (error) {
    // Show the compiler's diagnostics, not just "Command failed".
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    process.stderr.write(`${stdout?.toString() ?? ""}${stderr?.toString() ?? ""}`);
    throw new Error("TypeSpec compilation failed (diagnostics above)");
  }
}
