import type { Store as RateLimitStore } from "express-rate-limit";
import type { CounterHits, RateLimitCounters, WindowCount } from "../domain/ports/rate-limit-counters.js";

/** How often a process sends the hits it counted on its own to the shared counters. */
export const flushIntervalMs = 100;

/** One client's window, as this process knows it. */
interface Window {
  /** The shared count as last read back (every process's hits sent by then). */
  known: number;
  /** Hits counted here and not yet sent. */
  pending: number;
  resetAt: Date;
}

/**
 * express-rate-limit stores over counters shared by several processes (the PostgreSQL store's),
 * one store per limiter name, with a batched path for the clients far from their budget.
 *
 * A client whose count, as this process knows it, is under half its budget is counted here and
 * admitted at once; every `flushIntervalMs` the process sends all such hits in one statement and
 * reads back the shared counts. From half its budget on, each hit is counted in the shared
 * counter before it is decided, together with the hits not yet sent: the decision near the limit
 * is the database's. So a client's requests cost a round trip only once it has spent half a
 * budget, and the bound on overshoot: within one process the count is exact; across N processes a
 * client can pass its budget only by hits the other N − 1 processes admitted on their own and had
 * not yet sent, i.e. at most what it sent them within one flush interval (and never more than half
 * a budget each). docs/decisions.md, "Rate limits on the deployed path".
 */
export function sharedRateLimitStore(counters: RateLimitCounters): (name: string) => RateLimitStore {
  const stores = new Map<string, { windows: Map<string, Window>; windowMs: number }>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | null = null;

  /** Sends every pending hit of every limiter in one statement and reads the shared counts back. */
  const flush = async (): Promise<void> => {
    timer = undefined;
    const batch: (CounterHits & { window: Window })[] = [];
    for (const [name, { windows, windowMs }] of stores) {
      const now = Date.now();
      for (const [key, window] of windows) {
        if (window.pending > 0) {
          batch.push({ name, key, hits: window.pending, windowMs, window });
          window.pending = 0;
        } else if (window.resetAt.getTime() <= now) windows.delete(key);
      }
    }
    if (batch.length === 0) return;
    try {
      const counts = await counters.add(batch);
      batch.forEach(({ window }, i) => read(window, counts[i]));
    } catch {
      // The database is away: the hits stay counted here and go with the next flush.
      for (const { window, hits } of batch) window.pending += hits;
      schedule();
    }
  };
  const schedule = () => {
    timer ??= setTimeout(() => {
      flushing = flush().finally(() => {
        flushing = null;
      });
    }, flushIntervalMs);
    timer.unref();
  };
  const read = (window: Window, count: WindowCount | undefined) => {
    if (!count) return;
    window.known = count.hits;
    window.resetAt = count.resetAt;
  };

  return (name) => {
    const windows = new Map<string, Window>();
    const state = { windows, windowMs: 60_000 };
    stores.set(name, state);
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
    return {
      prefix: `${name}:`,
      localKeys: false,
      init(options) {
        state.windowMs = options.windowMs;
        localUnder = typeof options.limit === "number" ? Math.floor(options.limit / 2) : 0;
        sweeper = setInterval(() => {
          counters.sweep(name).catch(() => undefined);
        }, state.windowMs);
        sweeper.unref();
      },
      async get(key) {
        const count = await counters.get(name, key);
        const window = windows.get(key);
        const hits = (count?.hits ?? 0) + (window?.pending ?? 0);
        return count || window?.pending ? { totalHits: hits, resetTime: count?.resetAt ?? window?.resetAt } : undefined;
      },
      async increment(key) {
        const window = windowOf(key);
        if (window.known + window.pending + 1 < localUnder) {
          window.pending += 1;
          schedule();
          return { totalHits: window.known + window.pending, resetTime: window.resetAt };
        }
        // Near the budget: the shared counter decides, counting this hit and those not yet sent.
        const hits = window.pending + 1;
        window.pending = 0;
        try {
          const [count] = await counters.add([{ name, key, hits, windowMs: state.windowMs }]);
          if (!count) throw new Error("rate limit counter not returned");
          read(window, count);
          return { totalHits: count.hits, resetTime: count.resetAt };
        } catch (error) {
          window.pending += hits - 1;
          throw error;
        }
      },
      async decrement(key) {
        const window = windows.get(key);
        if (window && window.pending > 0) window.pending -= 1;
        else await counters.decrement(name, key);
      },
      async resetKey(key) {
        windows.delete(key);
        await counters.reset(name, key);
      },
      async resetAll() {
        windows.clear();
        await counters.resetAll(name);
      },
      async shutdown() {
        if (sweeper) clearInterval(sweeper);
        if (timer) clearTimeout(timer);
        timer = undefined;
        await (flushing ?? flush());
        stores.delete(name);
      },
    };
  };
}
