import type { ExportLease, ExportLeases } from "../../domain/ports/export-leases.js";
import { execute, type Queryable, query } from "./sql.js";

/**
 * The CSV exports under way in PostgreSQL (`ExportLeases`), shared by every server process on the
 * database: one row per slot of a user (`export_leases`). A take claims the lowest slot that is
 * free (no row, or its lease expired) in one statement; when another process's take claimed the
 * same slot a moment before, the unique key makes this one wait for it and then find the slot
 * held (`ON CONFLICT … WHERE`), and the next free slot is tried. Each statement runs on its own,
 * outside any transaction, and is not repeated on a lost connection (a repeated take could hold a
 * second slot).
 */
export function pgExportLeases(db: Queryable): ExportLeases {
  return {
    async take(lease: ExportLease, limit: number, now: string) {
      for (let attempt = 0; attempt < limit; attempt++) {
        const taken = await query<{ slot: number }>(
          db,
          `INSERT INTO export_leases AS l (user_id, slot, lease_id, expires_at)
           SELECT $1, s.slot, $2, $3::timestamptz
           FROM generate_series(1, $4::integer) AS s (slot)
           WHERE NOT EXISTS (
             SELECT 1 FROM export_leases e
             WHERE e.user_id = $1 AND e.slot = s.slot AND e.expires_at > $5::timestamptz
           )
           ORDER BY s.slot
           LIMIT 1
           ON CONFLICT (user_id, slot) DO UPDATE SET lease_id = excluded.lease_id, expires_at = excluded.expires_at
             WHERE l.expires_at <= $5::timestamptz
           RETURNING slot`,
          [lease.userId, lease.id, lease.expiresAt, limit, now],
        );
        if (taken.length > 0) return true;
        const held = await query<{ held: number }>(
          db,
          `SELECT count(*)::integer AS held FROM export_leases
           WHERE user_id = $1 AND slot <= $2::integer AND expires_at > $3::timestamptz`,
          [lease.userId, limit, now],
        );
        if ((held[0]?.held ?? 0) >= limit) return false;
      }
      return false;
    },
    async renew(leaseId, expiresAt) {
      await execute(db, "UPDATE export_leases SET expires_at = $2::timestamptz WHERE lease_id = $1", [
        leaseId,
        expiresAt,
      ]);
    },
    async release(leaseId) {
      await execute(db, "DELETE FROM export_leases WHERE lease_id = $1", [leaseId]);
    },
  };
}
