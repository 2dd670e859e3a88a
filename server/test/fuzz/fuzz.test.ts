import { expect, test } from "vitest";
import type { TestServer } from "../harness.js";
import { eachStore, serverOn } from "../support/stores.js";
import { describeFailures, fuzz } from "./fuzzer.js";
import { prepareTarget } from "./target.js";

// The spec-driven fuzzer at CI size, on both stores (rate limits off, so 429s do not drown the
// rest). A failure prints its seed; `npm run fuzz -- --seed N` replays it, and runs longer.
// FUZZ_SEED and FUZZ_REQUESTS override the defaults.

const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const requests = Number(process.env.FUZZ_REQUESTS ?? 2000);

async function run(name: string, server: TestServer) {
  const target = await prepareTarget(name, server);
  const report = await fuzz(target, { seed, requests });
  expect(report.failures, describeFailures(report)).toEqual([]);
  // The run must have reached the handlers, not only the validator's refusals.
  expect(Object.keys(report.statuses).some((s) => s.startsWith("2"))).toBe(true);
}

for (const store of eachStore("fuzz")) {
  store.describe(`fuzzing the public API and the checkout on the ${store.name} store`, () => {
    const server = serverOn(store);

    test(`when ${requests} generated requests (seed ${seed}) are sent, then every answer is declared, valid and not 5xx`, async () => {
      await run(store.name, server);
    }, 120_000);
  });
}
