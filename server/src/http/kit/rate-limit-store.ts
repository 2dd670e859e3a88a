import type { RateLimitCounters } from "../../domain/ports/rate-limit-counters.js";
import type { RateLimitCount, RateLimitStore } from "./rate-limit.js";

/** One client's window, as this process knows it. */
interface Window {
  /** The shared count as last read back (every process's hits counted there by then). */
  known: number;
  /** Hits counted here and not yet counted in the shared counter. */
  pending: number;
  resetAt: Date;
}

/** A store over shared counters, which can also be read and cleared (the store's contract tests). */
export interface SharedRateLimitStore extends RateLimitStore {
  /** The name its counters are kept under: budgets with different names count apart. */
  prefix: string;
  get(key: string): Promise<RateLimitCount | undefined>;
  resetKey(key: string): Promise<void>;
  resetAll(): Promise<void>;
}

/**
 * Rate-limit stores (`perMinuteLimiter`'s) over counters shared by several processes (the PostgreSQL store's),
 * one store per limiter name, that cost no round trip for a client far from its budget.
 *
 * A client whose count, as this process knows it, is under half its budget is counted in the
 * process alone and admitted at once. From half its budget on, each hit is counted in the shared
 * counter before it is decided, together with the hits the process had counted alone: the
 * decision near the limit is the database's, and the window's end is then the database's too. So
 * most clients never cost a round trip (their count is answered as a value, not a promise), and the
 * bound on overshoot: within one process the count
 * is exact; across N processes a client passes its budget only by the hits the other N − 1
 * processes admitted on their own, under half a budget each (at most (N − 1) × (⌈budget / 2⌉ −
 * 1)). docs/decisions/0017-rate-limits-with-shared-counters.md.
 */
export function sharedRateLimitStore(counters: RateLimitCounters): (name: string) => SharedRateLimitStore {
  return (name) => {
    const windows = new Map<string, Window>();
    const state = { windowMs: 60_000 };
    let localUnder = 0;
    let sweeper: NodeJS.Timeout | undefined;
    /** The client's window here, a new one when none is open. */
    const windowOf = (key: string): Window => {
      let window = windows.get(key);
      if (!window || window.resetAt.getTime() <= Date.now()) {
        window = { known: 0, pending: 0, resetAt: new Date(Date.now() + state.windowMs) };
        windows.set(key, window);
      }
      return window;
    };
    /** Near the budget: the shared counter decides, counting this hit and those not yet sent. */
    async function countShared(key: string, window: Window): Promise<RateLimitCount> {
      const hits = window.pending + 1;
      window.pending = 0;
      try {
        const count = await counters.add(name, key, hits, state.windowMs);
        window.known = count.hits;
        window.resetAt = count.resetAt;
        return { totalHits: count.hits, resetTime: count.resetAt };
      } catch (error) {
        window.pending += hits - 1;
        throw error;
      }
    }
    return {
      prefix: `${name}:`,
      init(options) {
        state.windowMs = options.windowMs;
        localUnder = Number.isFinite(options.limit) ? Math.floor(options.limit / 2) : 0;
        sweeper = setInterval(() => {
          const now = Date.now();
          for (const [key, window] of windows) if (window.resetAt.getTime() <= now) windows.delete(key);
          counters.sweep(name).catch(() => undefined);
        }, state.windowMs);
        sweeper.unref();
      },
      increment(key) {
        const window = windowOf(key);
        if (window.known + window.pending + 1 < localUnder) {
          window.pending += 1;
          return { totalHits: window.known + window.pending, resetTime: window.resetAt };
        }
        return countShared(key, window);
      },
      async decrement(key) {
        const window = windows.get(key);
        if (window && window.pending > 0) window.pending -= 1;
        else await counters.decrement(name, key);
      },
      async get(key) {
        const count = await counters.get(name, key);
        const window = windows.get(key);
        const hits = (count?.hits ?? 0) + (window?.pending ?? 0);
        return count || window?.pending ? { totalHits: hits, resetTime: count?.resetAt ?? window?.resetAt } : undefined;
      },
      async resetKey(key) {
        windows.delete(key);
        await counters.reset(name, key);
      },
      async resetAll() {
        windows.clear();
        await counters.resetAll(name);
      },
      shutdown() {
        if (sweeper) clearInterval(sweeper);
      },
    };
  };
}
