import { readdirSync, readFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Five projects, one per kind of test (docs/contributing.md, "Tests"):
//   unit       pure code: no server, no database, no child process (`npm run test:fast`)
//   spec       the tools over the documents (scripts/): breaking-change check, generators' checks
//   component  the real HTTP stack on the memory store
//   postgres   the same component suites on PostgreSQL, and the PostgreSQL-only suites
//   browser    Chromium against the built app and pages
//   contract   the contract suite against the Prism mock and the real server
// A file's project follows from what it uses, read from its source below, so a new test file needs
// no list: a suite made with `eachStore` runs in `component` on memory and in `postgres` on
// PostgreSQL (support/stores.ts reads PIX_TEST_STORES).

const root = fileURLToPath(new URL(".", import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (name === "node_modules") return [];
    if (statSync(join(root, path)).isDirectory()) return testFiles(path);
    return /\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

const sources = ["server", "scripts", "client/test", "dashboard/test", "fake-bank"].flatMap(testFiles);
const text = (file: string) => readFileSync(join(root, file), "utf8");
const usesBothStores = (source: string) => /\beachStore\(/.test(source);
const usesPostgres = (source: string) =>
  /\b(postgresStore|describePg|createTestDatabase|startThrowawayCluster|findPostgresBin)\(|\bpgAdminUrl\b/.test(source);
const usesProcessesOrServers = (source: string) =>
  /\b(startTestServer|serverOn|spawn|execFile|execFileSync|fork|startServerProcess|startAdminProcess|startFakeBank)\(|from "(\.\.?\/)+(support\/|harness)|\.listen\(/.test(
    source,
  );

const browser = sources.filter((f) => f.startsWith("server/test/browser/"));
const rest = sources.filter((f) => !browser.includes(f)).map((file) => ({ file, source: text(file) }));
const postgres = rest.filter(({ source }) => usesBothStores(source) || usesPostgres(source)).map(({ file }) => file);
const component = rest
  .filter(({ source }) => usesBothStores(source) || (!usesPostgres(source) && usesProcessesOrServers(source)))
  .map(({ file }) => file);
const pure = rest.map(({ file }) => file).filter((file) => !postgres.includes(file) && !component.includes(file));
const spec = pure.filter((file) => file.startsWith("scripts/"));
const unit = pure.filter((file) => !spec.includes(file));

// A worker runs its files one after another in one module graph (isolate: false, in every project
// but the `-isolated` twins): importing the server's modules again for every file was more than
// half of the component files' CPU (docs/contributing.md, "Where the test time goes"). A file that
// replaces a module (`vi.mock`) keeps a graph of its own, in the `-isolated` twin of its project.
const mocks = new Set(rest.filter(({ source }) => /\bvi\.(mock|doMock)\(/.test(source)).map(({ file }) => file));
const shared = (files: string[]) => files.filter((file) => !mocks.has(file));
const isolated = (files: string[]) => files.filter((file) => mocks.has(file));

const childProcessCheck = "server/test/support/child-process-check.ts";
const pgSetup = "server/test/support/pg-global-setup.ts";
const serverBuild = "server/test/support/server-build-setup.ts";

// Hang guards, not speed checks (those are `npm run bench`): wide enough for a file that shares
// the machine with another one.
const hangGuards = { testTimeout: 40_000, hookTimeout: 60_000 };

export default defineConfig({
  test: {
    // Each project transforms the server's modules for itself (`transform` in the run's Duration
    // line, about 38 s of the main process's CPU on a clean clone): with vitest's module cache on
    // disk (node_modules/.experimental-vitest-cache, keyed by each file's content), the projects
    // after the first read what the first one wrote. component + postgres over payments/ and keys/:
    // 48.9 → 42.0 s of CPU, transform 16.7 → 8.2 s.
    experimental: { fsModuleCache: true },
    // Most files wait on PostgreSQL, child processes or Chromium rather than compute: two at a time
    // on 2 cores (docs/decisions/0038-two-test-files-at-once.md).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { test: { name: "unit", include: shared(unit), isolate: false, ...hangGuards } },
      { test: { name: "unit-isolated", include: isolated(unit), ...hangGuards } },
      // The breaking-change check compares whole documents (seconds of CPU each): out of the fast loop.
      { test: { name: "spec", include: spec, isolate: false, testTimeout: 300_000 } },
      ...[true, false].map((inOneGraph) => ({
        test: {
          name: inOneGraph ? "component" : "component-isolated",
          include: inOneGraph ? shared(component) : isolated(component),
          isolate: !inOneGraph,
          env: { PIX_TEST_STORES: "memory" },
          globalSetup: [childProcessCheck, serverBuild],
          ...hangGuards,
        },
      })),
      ...[true, false].map((inOneGraph) => ({
        test: {
          name: inOneGraph ? "postgres" : "postgres-isolated",
          include: inOneGraph ? shared(postgres) : isolated(postgres),
          isolate: !inOneGraph,
          env: { PIX_TEST_STORES: "postgres" },
          globalSetup: [childProcessCheck, pgSetup, serverBuild],
          ...hangGuards,
        },
      })),
      {
        test: {
          name: "browser",
          include: browser,
          isolate: false,
          // `expect.poll` waits for what the page does after a click (a server's answer, a render):
          // vitest's 1 s default was missed once by a first sign-up on the loaded CI machine; 10 s,
          // as a hang guard, never a speed check (those are `npm run bench`).
          expect: { poll: { timeout: 10_000 } },
          globalSetup: [childProcessCheck, pgSetup, serverBuild],
          ...hangGuards,
        },
      },
      {
        test: {
          name: "contract",
          include: ["contract-tests/**/*.test.ts"],
          isolate: false,
          globalSetup: ["contract-tests/support/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
