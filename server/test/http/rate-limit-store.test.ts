import { describe, expect, test } from "vitest";
import type { RateLimitCounters, WindowCount } from "../../src/domain/ports/rate-limit-counters.js";
import { sharedRateLimitStore } from "../../src/http/kit/rate-limit-store.js";

// The shared rate-limit counters' local path (web/rate-limit-store.ts), against counters in
// memory that record every round trip: under half a budget a client costs none; from half on,
// every hit is a round trip that carries the hits counted locally, and the shared count decides;
// a failed round trip keeps them counted here.

/** Shared counters in memory, as several processes would see the database, recording each call. */
function recordingCounters(options: { failAdds?: number } = {}) {
  const counts = new Map<string, WindowCount>();
  const calls: { name: string; key: string; hits: number }[] = [];
  let failures = options.failAdds ?? 0;
  const counters: RateLimitCounters = {
    async get(name, key) {
      return counts.get(`${name}:${key}`);
    },
    async add(name, key, hits, windowMs) {
      calls.push({ name, key, hits });
      if (failures > 0) {
        failures -= 1;
        throw new Error("database away");
      }
      const current = counts.get(`${name}:${key}`);
      const next = current
        ? { hits: current.hits + hits, resetAt: current.resetAt }
        : { hits, resetAt: new Date(Date.now() + windowMs) };
      counts.set(`${name}:${key}`, next);
      return next;
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

type Init = Parameters<NonNullable<ReturnType<ReturnType<typeof sharedRateLimitStore>>["init"]>>[0];

describe("sharedRateLimitStore", () => {
  test("when a client stays under half its budget, then its hits cost no round trip", async () => {
    const { counters, calls } = recordingCounters();
    const store = sharedRateLimitStore(counters)("get");
    store.init?.({ windowMs: 60_000, limit: 120 } as Init);

    const totals = [];
    for (let i = 0; i < 59; i++) totals.push((await store.increment("198.51.100.1")).totalHits);

    expect(totals).toEqual(Array.from({ length: 59 }, (_v, i) => i + 1));
    expect(calls).toHaveLength(0);
    store.shutdown?.();
  });

  test("when a client reaches half its budget, then each hit is counted in the shared counter, with the local ones, before it is answered", async () => {
    const { counters, calls, counts } = recordingCounters();
    const store = sharedRateLimitStore(counters)("write");
    store.init?.({ windowMs: 60_000, limit: 10 } as Init);
    // Another process already sent 6 of this client's hits.
    counts.set("write:198.51.100.2", { hits: 6, resetAt: new Date(Date.now() + 30_000) });

    const local = [];
    for (let i = 0; i < 4; i++) local.push((await store.increment("198.51.100.2")).totalHits);
    const fifth = await store.increment("198.51.100.2");
    const sixth = await store.increment("198.51.100.2");

    expect(local).toEqual([1, 2, 3, 4]);
    // The fifth carries the four counted here: 6 + 5; the window's end is the shared one.
    expect(calls.map((c) => c.hits)).toEqual([5, 1]);
    expect(fifth.totalHits).toBe(11);
    expect(fifth.resetTime).toEqual(counts.get("write:198.51.100.2")?.resetAt);
    expect(sixth.totalHits).toBe(12);
    store.shutdown?.();
  });

  test("when the shared counter is away at half the budget, then the hit fails and the local hits stay counted", async () => {
    const { counters, counts } = recordingCounters({ failAdds: 1 });
    const store = sharedRateLimitStore(counters)("write");
    store.init?.({ windowMs: 60_000, limit: 6 } as Init);

    await store.increment("198.51.100.3");
    await store.increment("198.51.100.3");
    await expect(store.increment("198.51.100.3")).rejects.toThrow("database away");
    const next = await store.increment("198.51.100.3");

    expect(next.totalHits).toBe(3);
    expect(counts.get("write:198.51.100.3")?.hits).toBe(3);
    store.shutdown?.();
  });

  test("when two limiters count one client, then each counts under its own name", async () => {
    const { counters, counts } = recordingCounters();
    const make = sharedRateLimitStore(counters);
    const get = make("get");
    const write = make("write");
    get.init?.({ windowMs: 60_000, limit: 2 } as Init);
    write.init?.({ windowMs: 60_000, limit: 2 } as Init);

    await get.increment("198.51.100.4");
    await write.increment("198.51.100.4");
    await write.increment("198.51.100.4");

    expect(counts.get("get:198.51.100.4")?.hits).toBe(1);
    expect(counts.get("write:198.51.100.4")?.hits).toBe(2);
    get.shutdown?.();
    write.shutdown?.();
  });
});
