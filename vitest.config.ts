import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Vitest's default is one file per core but one (on 2 cores: one at a time). Most files here
    // wait on PostgreSQL, child processes or Chromium rather than compute, so two at a time on 2
    // cores took the run from 17 to 11 minutes (docs/decisions.md, "Test run time").
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "server/**/*.test.ts",
            "client/test/**/*.test.ts",
            "scripts/**/*.test.ts",
            "dashboard/test/**/*.test.ts",
          ],
          // A throwaway PostgreSQL cluster for the PostgreSQL suites (unless DATABASE_URL is set).
          // Fails the run when a child process outlives it (support/child-process-check.ts).
          globalSetup: [
            "server/test/support/child-process-check.ts",
            "server/test/support/pg-global-setup.ts",
            "server/test/support/server-build-setup.ts",
          ],
          // Hang guards, not speed checks (those are `npm run bench`): wide enough for a file that
          // shares the machine with another one.
          testTimeout: 40_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "contract",
          include: ["contract-tests/**/*.test.ts"],
          globalSetup: ["contract-tests/support/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
