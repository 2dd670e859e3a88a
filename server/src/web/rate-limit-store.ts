import type { Store as RateLimitStore } from "express-rate-limit";
import type { RateLimitCounters, WindowCount } from "../domain/ports/rate-limit-counters.js";

/** express-rate-limit stores over shared counters: one store per limiter name. */
export function sharedRateLimitStore(counters: RateLimitCounters): (name: string) => RateLimitStore {
  return (name) => {
    let windowMs = 60_000;
    let sweeper: NodeJS.Timeout | undefined;
    const info = (count: WindowCount | undefined) =>
      count ? { totalHits: count.hits, resetTime: count.resetAt } : undefined;
    return {
      prefix: `${name}:`,
      localKeys: false,
      init(options) {
        windowMs = options.windowMs;
        sweeper = setInterval(() => {
          counters.sweep(name).catch(() => undefined);
        }, windowMs);
        sweeper.unref();
      },
      async get(key) {
        return info(await counters.get(name, key));
      },
      async increment(key) {
        const count = await counters.increment(name, key, windowMs);
        return { totalHits: count.hits, resetTime: count.resetAt };
      },
      async decrement(key) {
        await counters.decrement(name, key);
      },
      async resetKey(key) {
        await counters.reset(name, key);
      },
      async resetAll() {
        await counters.resetAll(name);
      },
      shutdown() {
        if (sweeper) clearInterval(sweeper);
      },
    };
  };
}
