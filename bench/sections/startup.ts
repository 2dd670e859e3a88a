import { freePort } from "../../scripts/pg-cluster.js";
import { median } from "../lib/load.js";
import { cpuMsOf, startNode } from "../lib/process.js";
import { serverArgs } from "../lib/server.js";

/**
 * Milliseconds from spawning the server to its first `/health` answer: the median of `runs`; and
 * the CPU the server had used by then (median). The target is on the first, on a quiet machine;
 * on a loaded one the wall time is mostly waiting for a core, and the CPU time says what the
 * server itself spent.
 */
export async function startupToHealth(runs = 3): Promise<{ ms: number; cpuMs: number; compiled: boolean }> {
  const args = serverArgs();
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const server = await startNode(args, { port: await freePort(), env: { RATE_LIMITS: "off" }, pollMs: 5 });
    times.push(performance.now() - t);
    cpu.push(cpuMsOf(server.pid));
    await server.stop();
  }
  return { ms: median(times), cpuMs: median(cpu), compiled: !args.includes("tsx") };
}

/** One API's first requests, sent together to a server that has not answered under its prefix yet. */
export interface FirstRequests {
  /** The API, by its prefix. */
  surface: string;
  /** Milliseconds until the slowest of them was answered. */
  slowestMs: number;
  /** The statuses answered, in order. */
  statuses: number[];
  /** The status each should have answered. */
  expected: number;
}

const adminToken = "adm_bench_0123456789abcdefghijkl";

/**
 * Each API's request check (its generated validators) is loaded at the first request under its
 * prefix, not at start-up: what those first requests pay, and that none of them fails meanwhile.
 * A fresh server; once its development key is printed, `together` requests at once to each API
 * (one API after the other, so each set meets its validators still loading): a public read, a
 * dashboard log-in without its fields (refused by the check: 400), an operator list.
 */
export async function firstRequestsPerSurface(together = 5): Promise<FirstRequests[]> {
  const server = await startNode(serverArgs(), {
    port: await freePort(),
    env: { RATE_LIMITS: "off", ADMIN_TOKEN: adminToken },
    pollMs: 5,
  });
  try {
    const devKey = () => /(svc_test_[A-Za-z0-9]+)/.exec(server.output())?.[1];
    for (let waited = 0; !devKey() && waited < 30_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    const key = devKey();
    if (!key) throw new Error(`no development key printed:\n${server.output()}`);
    const surfaces: { surface: string; path: string; init: RequestInit; expected: number }[] = [
      { surface: "/api/", path: "/api/v1/balance", init: { headers: { "x-api-key": key } }, expected: 200 },
      {
        surface: "/dashboard/",
        path: "/dashboard/v1/session",
        init: { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
        expected: 400,
      },
      {
        surface: "/admin/",
        path: "/admin/v1/accounts?limit=1",
        init: { headers: { authorization: `Bearer ${adminToken}` } },
        expected: 200,
      },
    ];
    const out: FirstRequests[] = [];
    for (const { surface, path, init, expected } of surfaces) {
      const t = performance.now();
      const statuses = await Promise.all(
        Array.from({ length: together }, () =>
          fetch(server.baseUrl + path, init).then(
            async (res) => {
              await res.arrayBuffer();
              return res.status;
            },
            () => 0, // no answer at all
          ),
        ),
      );
      out.push({ surface, slowestMs: performance.now() - t, statuses, expected });
    }
    return out;
  } finally {
    await server.stop();
  }
}
