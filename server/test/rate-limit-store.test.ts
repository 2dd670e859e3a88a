import { describe, expect, test } from "vitest";
import type { CounterHits, RateLimitCounters, WindowCount } from "../src/domain/ports/rate-limit-counters.js";
import { flushIntervalMs, sharedRateLimitStore } from "../src/web/rate-limit-store.js";

// The batched path of the shared rate-limit counters (web/rate-limit-store.ts), against counters
// in memory that record every round trip: under half a budget a client costs none per request
// (its hits go in one batch per flush); from half on, every hit is a round trip and the shared
// count decides; hits a failed flush could not send are sent with the next one.

/** Shared counters in memory, as several processes would see the database, recording each call. */
function recordingCounters(options: { failAdds?: number } = {}) {
  const counts = new Map<string, WindowCount>();
  const calls: CounterHits[][] = [];
  let failures = options.failAdds ?? 0;
  const counters: RateLimitCounters = {
    async get(name, key) {
      return counts.get(`${name}:${key}`);
    },
    async add(batch) {
      calls.push([...batch]);
      if (failures > 0) {
        failures -= 1;
        throw new Error("database away");
      }
      return batch.map(({ name, key, hits, windowMs }) => {
        const current = counts.get(`${name}:${key}`);
        const next = current
          ? { hits: current.hits + hits, resetAt: current.resetAt }
          : { hits, resetAt: new Date(Date.now() + windowMs) };
        counts.set(`${name}:${key}`, next);
        return next;
      });
    },
    async decrement() {},
    async reset(name, key) {
      counts.delete(`${name}:${key}`);
    },
    async resetAll() {
      counts.clear();
    },
    async sweep() {},
  };
  return { counters, calls, counts };
}

const settle = () => new Promise((r) => setTimeout(r, flushIntervalMs * 2 + 20));
type Init = Parameters<NonNullable<ReturnType<ReturnType<typeof sharedRateLimitStore>>["init"]>>[0];

describe("sharedRateLimitStore", () => {
  test("when a client stays under half its budget, then its hits cost no round trip each and go in one batch", async () => {
    const { counters, calls, counts } = recordingCounters();
    const store = sharedRateLimitStore(counters)("get");
    store.init?.({ windowMs: 60_000, limit: 120 } as Init);

    const totals = [];
    for (let i = 0; i < 59; i++) totals.push((await store.increment("198.51.100.1")).totalHits);
    const roundTripsBefore = calls.length;
    await settle();

    expect(totals).toEqual(Array.from({ length: 59 }, (_v, i) => i + 1));
    expect(roundTripsBefore).toBe(0);
    expect(calls).toHaveLength(1);
    expect(counts.get("get:198.51.100.1")?.hits).toBe(59);
    await store.shutdown?.();
  });

  test("when a client reaches half its budget, then each hit is counted in the shared counter before it is answered", async () => {
    const { counters, calls, counts } = recordingCounters();
    const store = sharedRateLimitStore(counters)("write");
    store.init?.({ windowMs: 60_000, limit: 10 } as Init);
    // Another process already counted 6 of this client's hits.
    counts.set("write:198.51.100.2", { hits: 6, resetAt: new Date(Date.now() + 60_000) });

    const first = await store.increment("198.51.100.2");
    const second = await store.increment("198.51.100.2");
    const third = await store.increment("198.51.100.2");
    const fourth = await store.increment("198.51.100.2");
    await settle();

    // The first four were counted here (under 5, half of 10) and sent in one batch; the shared count then read 10.
    expect([first, second, third, fourth].map((c) => c.totalHits)).toEqual([1, 2, 3, 4]);
    expect(calls).toHaveLength(1);
    const fifth = await store.increment("198.51.100.2");
    expect(fifth.totalHits).toBe(11);
    expect(calls).toHaveLength(2);
    await store.shutdown?.();
  });

  test("when a flush fails, then its hits are kept and sent with the next flush", async () => {
    const { counters, calls, counts } = recordingCounters({ failAdds: 1 });
    const store = sharedRateLimitStore(counters)("get");
    store.init?.({ windowMs: 60_000, limit: 120 } as Init);

    for (let i = 0; i < 3; i++) await store.increment("198.51.100.3");
    await settle();
    await settle();

    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(counts.get("get:198.51.100.3")?.hits).toBe(3);
    await store.shutdown?.();
  });

  test("when two limiters count one client, then one batch carries both, each under its own name", async () => {
    const { counters, calls, counts } = recordingCounters();
    const make = sharedRateLimitStore(counters);
    const get = make("get");
    const write = make("write");
    get.init?.({ windowMs: 60_000, limit: 120 } as Init);
    write.init?.({ windowMs: 60_000, limit: 60 } as Init);

    await get.increment("198.51.100.4");
    await write.increment("198.51.100.4");
    await write.increment("198.51.100.4");
    await settle();

    expect(calls).toHaveLength(1);
    expect(counts.get("get:198.51.100.4")?.hits).toBe(1);
    expect(counts.get("write:198.51.100.4")?.hits).toBe(2);
    await get.shutdown?.();
    await write.shutdown?.();
  });
});
