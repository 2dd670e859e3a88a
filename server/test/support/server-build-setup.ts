import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where the run's one build of the server goes (support/server-process.ts builds it on first use). */
    serverBuildDir: string;
  }
}

const root = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * Global setup of the projects that start servers: a folder for the run's server build, and one
 * beside it (`-cli`) for the operator CLI's bundles (support/admin-process.ts), removed at the end.
 */
export default function setup(project: TestProject) {
  const dir = join(root, "test-artifacts", `server-build-${process.pid}`);
  project.provide("serverBuildDir", dir);
  return () => {
    for (const path of [dir, `${dir}.lock`, `${dir}-cli`]) rmSync(path, { recursive: true, force: true });
  };
}
