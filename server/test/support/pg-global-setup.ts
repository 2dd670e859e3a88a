import type { TestProject } from "vitest/node";
import { findPostgresBin, startThrowawayCluster } from "../../../scripts/pg-cluster.js";

/**
 * Global setup of the "unit" project: the PostgreSQL server the PostgreSQL tests use. With
 * `DATABASE_URL` set, that server (its user needs CREATEDB); otherwise a throwaway cluster started
 * here and removed at the end. Each test file makes its own databases on it (support/pg.ts), so
 * files run in parallel. With neither, the PostgreSQL suites are skipped and say so.
 */
export default async function setup(project: TestProject) {
  const configured = process.env.DATABASE_URL;
  if (configured) {
    project.provide("pgAdminUrl", configured);
    return;
  }
  if (!(await findPostgresBin())) {
    console.warn(
      "PostgreSQL tests SKIPPED: DATABASE_URL is unset and no server binaries are under /usr/lib/postgresql/*/bin " +
        "(apt-get install postgresql). Skipped: store conformance (postgres), postgres domain flows, " +
        "postgres concurrency (two server processes).",
    );
    project.provide("pgAdminUrl", null);
    return;
  }
  const cluster = await startThrowawayCluster();
  project.provide("pgAdminUrl", cluster.adminUrl);
  return async () => {
    await cluster.stop();
  };
}
