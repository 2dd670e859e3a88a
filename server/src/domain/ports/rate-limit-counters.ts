// The port of the web layer's rate limiter for counters shared by several server processes,
// implemented by the PostgreSQL adapter (`store/postgres/rate-limit-counters.ts`).

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
  /** Counts `hits` more for a client, opening a window of `windowMs` when none is open; answers the count after it. */
  add(name: string, key: string, hits: number, windowMs: number): Promise<WindowCount>;
  /** Takes one hit back (never below zero). */
  decrement(name: string, key: string): Promise<void>;
  reset(name: string, key: string): Promise<void>;
  resetAll(name: string): Promise<void>;
  /** Forgets the windows that have ended. */
  sweep(name: string): Promise<void>;
}
