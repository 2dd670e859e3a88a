import type pg from "pg";
import type { RateLimitCounters, WindowCount } from "../../domain/ports/rate-limit-counters.js";
import { execute, query } from "./sql.js";

/**
 * The HTTP rate limiter's counters in PostgreSQL (its `RateLimitCounters` port), so every server
 * process on one database counts the same requests. One row per (limiter name, client key) holds
 * the current window; one atomic UPSERT counts a client's hits (with those its process counted
 * on its own, `web/rate-limit-store.ts`) or starts a new window when the last one ended (the
 * database clock decides, so processes agree). Windows start at a client's first counted hit.
 */
export function pgRateLimitCounters(pool: pg.Pool): RateLimitCounters {
  const count = (row: { hits: number; resetAt: string } | undefined): WindowCount | undefined =>
    row ? { hits: row.hits, resetAt: new Date(row.resetAt) } : undefined;
  return {
    async get(name, key) {
      const rows = await query<{ hits: number; resetAt: string }>(
        pool,
        `SELECT hits, reset_at AS "resetAt" FROM rate_limit_counters
         WHERE name = $1 AND key = $2 AND reset_at > clock_timestamp()`,
        [name, key],
      );
      return count(rows[0]);
    },
    async add(name, key, hits, windowMs) {
      const rows = await query<{ hits: number; resetAt: string }>(
        pool,
        `INSERT INTO rate_limit_counters AS c (name, key, hits, reset_at)
         VALUES ($1, $2, $3, clock_timestamp() + $4 * interval '1 millisecond')
         ON CONFLICT (name, key) DO UPDATE SET
           hits = CASE WHEN c.reset_at <= clock_timestamp() THEN excluded.hits ELSE c.hits + excluded.hits END,
           reset_at = CASE WHEN c.reset_at <= clock_timestamp() THEN excluded.reset_at ELSE c.reset_at END
         RETURNING hits, reset_at AS "resetAt"`,
        [name, key, hits, windowMs],
      );
      const counted = count(rows[0]);
      if (!counted) throw new Error("rate limit counter not returned");
      return counted;
    },
    async decrement(name, key) {
      await execute(
        pool,
        `UPDATE rate_limit_counters SET hits = greatest(hits - 1, 0)
         WHERE name = $1 AND key = $2 AND reset_at > clock_timestamp()`,
        [name, key],
      );
    },
    async reset(name, key) {
      await execute(pool, "DELETE FROM rate_limit_counters WHERE name = $1 AND key = $2", [name, key]);
    },
    async resetAll(name) {
      await execute(pool, "DELETE FROM rate_limit_counters WHERE name = $1", [name]);
    },
    async sweep(name) {
      await execute(pool, "DELETE FROM rate_limit_counters WHERE name = $1 AND reset_at < clock_timestamp()", [name]);
    },
  };
}
