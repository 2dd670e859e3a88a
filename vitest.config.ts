import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
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
          testTimeout: 20_000,
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
