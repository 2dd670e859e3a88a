import type pg from "pg";
import type { CounterHits, RateLimitCounters, WindowCount } from "../../domain/ports/rate-limit-counters.js";
import { execute, query } from "./sql.js";

/**
 * The HTTP rate limiter's counters in PostgreSQL (its `RateLimitCounters` port), so every server
 * process on one database counts the same requests. One row per (limiter name, client key) holds
 * the current window; one atomic UPSERT counts a batch of hits (see `web/rate-limit-store.ts`) or
 * starts a new window when the last one ended (the database clock decides, so processes agree). Windows start at a client's
 * first request, as in express-rate-limit's own memory store.
 */
const compare = (a: CounterHits | undefined, b: CounterHits | undefined) =>
  (a?.name ?? "").localeCompare(b?.name ?? "") ||
  ((a?.key ?? "") < (b?.key ?? "") ? -1 : (a?.key ?? "") > (b?.key ?? "") ? 1 : 0);

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
    async add(batch) {
      if (batch.length === 0) return [];
      // One statement for every client: rows are locked in (name, key) order, so two processes
      // adding overlapping batches at once cannot deadlock.
      const order = batch.map((_hit, i) => i).sort((x, y) => compare(batch[x], batch[y]));
      const rows = await query<{ i: number; hits: number; resetAt: string }>(
        pool,
        `WITH batch AS (
           SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::int[], $5::bigint[])
             AS b(i, name, key, hits, window_ms)
         ), counted AS (
           INSERT INTO rate_limit_counters AS c (name, key, hits, reset_at)
           SELECT name, key, hits, clock_timestamp() + window_ms * interval '1 millisecond' FROM batch ORDER BY i
           ON CONFLICT (name, key) DO UPDATE SET
             hits = CASE WHEN c.reset_at <= clock_timestamp() THEN excluded.hits ELSE c.hits + excluded.hits END,
             reset_at = CASE WHEN c.reset_at <= clock_timestamp() THEN excluded.reset_at ELSE c.reset_at END
           RETURNING name, key, hits, reset_at
         )
         SELECT b.i, c.hits, c.reset_at AS "resetAt" FROM counted c JOIN batch b USING (name, key)`,
        [
          order.map((_i, n) => n),
          order.map((i) => batch[i]?.name),
          order.map((i) => batch[i]?.key),
          order.map((i) => batch[i]?.hits),
          order.map((i) => batch[i]?.windowMs),
        ],
      );
      const counts: WindowCount[] = new Array(batch.length);
      for (const row of rows) {
        const original = order[row.i];
        if (original !== undefined) counts[original] = { hits: row.hits, resetAt: new Date(row.resetAt) };
      }
      if (counts.some((c) => c === undefined) || counts.length !== batch.length) {
        throw new Error("rate limit counters not returned");
      }
      return counts;
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
