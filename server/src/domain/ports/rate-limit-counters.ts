// The port of the web layer's rate limiter for counters shared by several server processes,
// implemented by the PostgreSQL adapter (`store/postgres/rate-limit-counters.ts`).

/** One client's count in the current window of a limiter. */
export interface WindowCount {
  hits: number;
  resetAt: Date;
}

/** Hits of one client of one limiter, to count. */
export interface CounterHits {
  name: string;
  key: string;
  hits: number;
  windowMs: number;
}

/**
 * The port of the HTTP rate limiter for counters shared by several server processes: one window
 * per (limiter `name`, client `key`), starting at the client's first request.
 */
export interface RateLimitCounters {
  /** The current window's count, or undefined when no window is open. */
  get(name: string, key: string): Promise<WindowCount | undefined>;
  /**
   * Counts `hits` more for each (name, key) in one round trip, opening a window of `windowMs` for
   * a client with none open, and answers each client's count after it, in the order given.
   */
  add(hits: readonly CounterHits[]): Promise<WindowCount[]>;
  /** Takes one hit back (never below zero). */
  decrement(name: string, key: string): Promise<void>;
  reset(name: string, key: string): Promise<void>;
  resetAll(name: string): Promise<void>;
  /** Forgets the windows that have ended. */
  sweep(name: string): Promise<void>;
}
