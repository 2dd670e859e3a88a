import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

// The shape the code keeps (README, "Layout"): requests flow http → domain → ports, adapters
// implement the domain's ports, and no source file grows past what a newcomer can read at once.

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

function filesUnder(dir: string, accept: (path: string) => boolean): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return name === "node_modules" ? [] : filesUnder(path, accept);
    return accept(path) ? [path] : [];
  });
}

/** Relative imports of a TypeScript file, resolved to paths from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), "utf8");
  return [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/gms)].map((m) =>
    relative(root, resolve(join(root, dirname(file)), m[1] as string)),
  );
}

const isSource = (path: string) => /\.(ts|tsp|js|mjs)$/.test(path) && !/\.test\.ts$/.test(path);

describe("the layering", () => {
  test("when the domain's imports are read, then none reaches the HTTP layer, the stores, the checkout, webhooks or the CLI", () => {
    const domain = filesUnder("server/src/domain", (p) => p.endsWith(".ts"));
    expect(domain.length).toBeGreaterThan(20);
    const outward = domain.flatMap((file) =>
      importsOf(file)
        .filter((target) => /^server\/src\/(http|store|checkout|webhooks|admin)\//.test(target))
        .map((target) => `${file} → ${target}`),
    );
    expect(outward).toEqual([]);
  });

  test("when the stores' imports are read, then they know the ports (the domain's, and the HTTP layer's counter store) and nothing else of the HTTP layer or the checkout", () => {
    const stores = filesUnder("server/src/store", (p) => p.endsWith(".ts"));
    const outward = stores.flatMap((file) =>
      importsOf(file)
        .filter((target) => /^server\/src\/(http|checkout|admin)\//.test(target))
        // The HTTP layer's port for shared rate-limit counters, which the PostgreSQL adapter implements.
        .filter((target) => target !== "server/src/http/rate-limit-store.js")
        .map((target) => `${file} → ${target}`),
    );
    expect(outward).toEqual([]);
  });

  test("when the scripts' imports are read, then none reaches into the tests", () => {
    const scripts = filesUnder("scripts", (p) => p.endsWith(".ts") && !p.endsWith(".test.ts"));
    const intoTests = scripts.flatMap((file) =>
      importsOf(file)
        .filter((target) => /(^|\/)(test|contract-tests)\//.test(target))
        .map((target) => `${file} → ${target}`),
    );
    expect(intoTests).toEqual([]);
  });
});

describe("file size", () => {
  test("when every source file of the server, scripts, client and spec is measured, then none is over 420 lines", () => {
    const sources = ["server/src", "scripts", "client/src", "spec"].flatMap((dir) =>
      filesUnder(dir, (p) => isSource(p) && !p.startsWith("spec/releases/")),
    );
    expect(sources.length).toBeGreaterThan(80);
    const long = sources
      .map((file) => ({ file, lines: readFileSync(join(root, file), "utf8").split("\n").length }))
      .filter(({ lines }) => lines > 420);
    expect(long).toEqual([]);
  });
});
