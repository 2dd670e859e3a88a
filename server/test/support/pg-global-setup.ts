import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { createDatabase, dropDatabase, findPostgresBin } from "../../../scripts/pg-cluster.js";
import { migrateDatabase } from "../../src/store/postgres/index.js";
import { leaseTestCluster } from "./shared-cluster.js";

declare module "vitest" {
  export interface ProvidedContext {
    /**
     * A database of the server above with every migration applied, which no one connects to: each
     * test database is copied from it (CREATE DATABASE … TEMPLATE), or null when there is none.
     */
    pgTemplate: string | null;
  }
}

/**
 * Global setup of the projects that use PostgreSQL: the server the PostgreSQL tests use. With
 * `DATABASE_URL` set, that server (its user needs CREATEDB); otherwise the run's throwaway cluster
 * (support/shared-cluster.ts: one for every project that asks), removed at the end. Each test file makes its own databases on it (support/pg.ts), so
 * files run in parallel. With neither, the PostgreSQL suites are skipped and say so.
 *
 * The migrations run once here, into a template database: a copy of it costs a tenth of
 * migrating a new database (docs/contributing.md, "Where the test time goes").
 */
export default async function setup(project: TestProject) {
  const configured = process.env.DATABASE_URL;
  let adminUrl: string;
  let stopCluster = async () => undefined as void;
  if (configured) adminUrl = configured;
  else if (!(await findPostgresBin())) {
    console.warn(
      "PostgreSQL tests SKIPPED: DATABASE_URL is unset and no server binaries are under /usr/lib/postgresql/*/bin " +
        "(apt-get install postgresql). Skipped: store conformance (postgres), postgres domain flows, " +
        "postgres concurrency (two server processes).",
    );
    project.provide("pgAdminUrl", null);
    project.provide("pgTemplate", null);
    return;
  } else {
    const cluster = await leaseTestCluster();
    adminUrl = cluster.adminUrl;
    stopCluster = () => cluster.release();
  }
  const template = `pix_template_${randomBytes(5).toString("hex")}`;
  await migrateDatabase(await createDatabase(adminUrl, template));
  project.provide("pgAdminUrl", adminUrl);
  project.provide("pgTemplate", template);
  return async () => {
    await dropDatabase(adminUrl, template);
    await stopCluster();
  };
}
