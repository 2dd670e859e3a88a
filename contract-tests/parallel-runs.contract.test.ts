import type { TestProject } from "vitest/node";
import { afterAll, describe, expect, inject, test } from "vitest";
import setup from "./support/global-setup.js";
import type { Target } from "./support/targets.js";

// Two contract runs on one machine (two engineers, two CI jobs) must not collide. This run's own
// setup holds its servers while the test starts a second, complete set beside it: with fixed
// ports (4610, 4620, … as before) the second Prism could not bind, or found the first one's.

const ours = inject("targets");

describe("the contract suite's servers", () => {
  let teardown: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await teardown?.();
  });

  test(
    "when a second run starts while this one runs, then every server of each answers on its own port",
    {
      timeout: 180_000,
    },
    async () => {
      const provided: Record<string, unknown> = {};
      const project = {
        provide: (key: string, value: unknown) => {
          provided[key] = value;
        },
      } as unknown as TestProject;

      // Its own database, in this run's PostgreSQL server: ports are what two runs could share by
      // mistake, not a cluster (a second throwaway cluster would be seconds of initdb for nothing).
      const adminUrl = inject("postgresAdminUrl");
      const before = process.env.DATABASE_URL;
      if (adminUrl) process.env.DATABASE_URL = adminUrl;
      try {
        teardown = await setup(project);
      } finally {
        if (before === undefined) delete process.env.DATABASE_URL;
        else process.env.DATABASE_URL = before;
      }

      const theirs = provided["targets"] as Target[];
      expect(theirs.map((t) => t.name)).toEqual(ours.map((t) => t.name));
      const urls = [...ours, ...theirs].map((t) => t.baseUrl);
      expect(new Set(urls).size).toBe(urls.length);
      const proxies = [inject("proxy").baseUrl, (provided["proxy"] as { baseUrl: string }).baseUrl];
      expect(proxies[0]).not.toBe(proxies[1]);

      // Each server answers as itself: the second run's memory server knows its own seeded key only.
      for (const target of theirs) {
        const res = await fetch(`${target.baseUrl}/api/v1/balance`, { headers: { "x-api-key": target.keys.full } });
        expect(res.status, target.name).toBe(200);
      }
      const [mine, other] = [ours, theirs].map((set) => set.find((t) => t.name === "memory") as Target);
      const crossed = await fetch(`${other?.baseUrl}/api/v1/balance`, {
        headers: { "x-api-key": mine?.keys.full ?? "" },
      });
      expect(crossed.status).toBe(401);
    },
  );
});
