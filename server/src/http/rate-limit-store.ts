import type { Store as RateLimitStore } from "express-rate-limit";

/** One client's count in the current window of a limiter. */
export interface WindowCount {
  hits: number;
  resetAt: Date;
}

/**
 * The port of the HTTP rate limiter for counters shared by several server processes: one window
 * per (limiter `name`, client `key`), starting at the client's first request.
 */
export interface RateLimitCounters {
  /** The current window's count, or undefined when no window is open. */
  get(name: string, key: string): Promise<WindowCount | undefined>;
  /** Counts one hit, opening a window of `windowMs` when none is open. */
  increment(name: string, key: string, windowMs: number): Promise<WindowCount>;
  /** Takes one hit back (never below zero). */
  decrement(name: string, key: string): Promise<void>;
  reset(name: string, key: string): Promise<void>;
  resetAll(name: string): Promise<void>;
  /** Forgets the windows that have ended. */
  sweep(name: string): Promise<void>;
}

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
