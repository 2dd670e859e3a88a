import { expect, test } from "vitest";
import type { TestServer } from "../harness.js";
import { eachStore, serverOn } from "../support/stores.js";
import { describeFailures, fuzz, type FuzzTarget } from "./fuzzer.js";
import { prepareDashboardTarget, prepareTarget } from "./target.js";

// The spec-driven fuzzer at CI size, on both stores (per-IP rate limits off, so 429s do not drown
// the rest; the dashboard's failed-log-in budgets are always on, and their 429 is declared): the
// public API with the checkout, and the merchant dashboard's document. A failure prints its seed;
// `npm run fuzz -- --seed N [--document dashboard]` replays it, and runs longer. FUZZ_SEED,
// FUZZ_REQUESTS and FUZZ_DASHBOARD_REQUESTS override the defaults.

const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const requests = Number(process.env.FUZZ_REQUESTS ?? 2000);
const dashboardRequests = Number(process.env.FUZZ_DASHBOARD_REQUESTS ?? 600);

async function run(target: FuzzTarget, count: number) {
  const report = await fuzz(target, { seed, requests: count });
  expect(report.failures, describeFailures(report)).toEqual([]);
  // A reset connection is sent again once (fuzzer.ts `send`); more than a handful is a defect.
  expect(report.retriedAfterReset, "requests sent again after a connection reset").toBeLessThanOrEqual(
    Math.max(2, Math.ceil(report.sent / 200)),
  );
  // The run must have reached the handlers, not only the validator's refusals.
  expect(Object.keys(report.statuses).some((s) => s.startsWith("2"))).toBe(true);
}

for (const store of eachStore("fuzz")) {
  store.describe(`fuzzing the public API and the checkout on the ${store.name} store`, () => {
    const server = serverOn(store);

    test(`when ${requests} generated requests (seed ${seed}) are sent, then every answer is declared, valid and not 5xx`, async () => {
      await run(await prepareTarget(store.name, server), requests);
    }, 120_000);
  });
}

for (const store of eachStore("fuzz_dashboard")) {
  store.describe(`fuzzing the dashboard API on the ${store.name} store`, () => {
    const server: TestServer = serverOn(store);

    test(`when ${dashboardRequests} generated requests (seed ${seed}) are sent, then every answer is declared, valid and not 5xx`, async () => {
      await run(await prepareDashboardTarget(store.name, server), dashboardRequests);
    }, 120_000);
  });
}
