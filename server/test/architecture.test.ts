import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

// The shape the code keeps (docs/architecture.md, "Layout"): requests flow http → domain → ports, adapters
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

/**
 * The layer of a file: its folder under server/src (or the file itself, at the top), or `generated`;
 * `http/kit` (what the APIs and the hosted checkout share) is a layer of its own.
 */
function layerOf(path: string): string {
  if (path.startsWith("generated/")) return "generated";
  if (path.startsWith("server/src/http/kit/")) return "http/kit";
  const inServer = /^server\/src\/([^/]+?)(?:\.[jt]s)?(?:\/|$)/.exec(path);
  return inServer?.[1] ?? path.split("/")[0] ?? path;
}

/**
 * What each layer may import besides itself: arrows run one way (docs/architecture.md, "Layout"). The domain
 * knows only its ports and the Pix rules; adapters (store) and the web layers know the domain;
 * `http/kit` holds what the API and the hosted checkout share, so neither imports the other's insides
 * (the API composes the checkout's router); the CLI speaks HTTP to the server and knows none of
 * its modules. The bank adapter (the platform's bank, issue 35) is an adapter of a domain port.
 * The entry points (`main.ts` of the server, the worker and the CLI) wire everything.
 */
const allowed: Record<string, readonly string[]> = {
  domain: ["pix", "generated"],
  pix: [],
  store: ["domain", "pix", "generated"],
  "http/kit": ["domain", "generated"],
  checkout: ["http/kit", "domain", "pix", "generated"],
  http: ["checkout", "http/kit", "domain", "pix", "generated"],
  webhooks: ["domain", "pix", "generated"],
  // The bank adapter implements the domain's PixBank port; it reads the bank's document as the APIs do.
  bank: ["domain", "http/kit", "generated"],
  cli: ["config", "generated"],
  config: ["domain"],
  logger: ["domain"],
  mail: ["domain"],
  shutdown: ["domain"],
  jobs: ["domain"],
};
const entryPoints = new Set(["server/src/main.ts", "server/src/webhooks/main.ts", "server/src/cli/main.ts"]);

describe("the layering", () => {
  test("when every server source file's imports are read, then each reaches only the layers its own may", () => {
    const files = filesUnder("server/src", (p) => p.endsWith(".ts") && !p.endsWith(".test.ts"));
    const layers = new Set(files.map(layerOf));
    expect([...layers].filter((layer) => layer !== "main" && !(layer in allowed))).toEqual([]);
    const wrong = files
      .filter((file) => !entryPoints.has(file))
      .flatMap((file) => {
        const from = layerOf(file);
        return importsOf(file)
          .filter((target) => {
            const to = layerOf(target);
            return to !== from && !(allowed[from] ?? []).includes(to);
          })
          .map((target) => `${file} → ${target}`);
      });
    expect(wrong).toEqual([]);
  });

  test("when the allowed arrows are followed, then no layer reaches itself again (no cycle)", () => {
    const reaches = (from: string, seen: Set<string> = new Set()): Set<string> => {
      for (const to of allowed[from] ?? []) {
        if (seen.has(to)) continue;
        seen.add(to);
        reaches(to, seen);
      }
      return seen;
    };
    expect(Object.keys(allowed).filter((layer) => reaches(layer).has(layer))).toEqual([]);
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

describe("cohesion", () => {
  // A folder is a room: what is in it shares a subject, so its files need no prefix saying which
  // (payments/recurrences/calendar.ts, not recurrence-calendar.ts), and a room that grows past
  // twenty files is two rooms (docs/decisions/0045-feature-rooms.md). Size alone is no rule.
  const folders = (dir: string): string[] =>
    readdirSync(join(root, dir)).flatMap((name) => {
      const path = join(dir, name);
      return statSync(join(root, path)).isDirectory() ? [path, ...folders(path)] : [];
    });
  const sourceFolders = ["server/src", "dashboard/src", "client/src"].flatMap((dir) => [dir, ...folders(dir)]);
  const filesIn = (dir: string) =>
    readdirSync(join(root, dir)).filter((name) => /\.(ts|tsx)$/.test(name) && !name.endsWith(".test.ts"));

  test("when each source folder is listed, then no file repeats its folder's name as a prefix", () => {
    const prefixed = sourceFolders.flatMap((dir) => {
      const room = dir.split("/").at(-1) ?? "";
      const stem = room.replace(/s$/, "");
      return filesIn(dir)
        .filter((name) => name.startsWith(`${room}-`) || name.startsWith(`${stem}-`))
        .map((name) => `${dir}/${name}`);
    });
    expect(prefixed).toEqual([]);
  });

  test("when each source folder is counted, then none holds more than twenty source files", () => {
    expect(sourceFolders.length).toBeGreaterThan(20);
    const crowded = sourceFolders
      .map((dir) => ({ dir, files: filesIn(dir).length }))
      .filter(({ dir, files }) => files > 20 && !dir.endsWith("/migrations"));
    expect(crowded).toEqual([]);
  });
});
