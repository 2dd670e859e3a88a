import { balanceTotals, type LedgerSums } from "../../domain/balance/index.js";
import type { LedgerPeriod, LedgerRelease, Scope } from "../../domain/core/model.js";
import { ledgerTable } from "./rows.js";
import { selectMany } from "./statements.js";
import { type Queryable, query } from "./sql.js";

// The statement's reads of one period (issue 37 §2), the SQL of `ledgerPeriodOf`
// (domain/balance/rules.ts), each through an index (migration 1764630000037):
// - the opening balance: the balances row (the sums of every entry) less the entries created since
//   `from` (ledger_entries_by_time), and the pending part through the partial index of pending money;
// - the period's entries: ledger_entries_by_time;
// - the releases of the period, by instant: the partial index of pending money (release_at).

export function ledgerPeriodRead(db: Queryable) {
  return async (scope: Scope, from: string, to: string): Promise<LedgerPeriod> => {
    const args = [scope.accountId, scope.livemode, from];
    const [sums] = await query<LedgerSums & Record<string, number>>(
      db,
      `SELECT coalesce(b.available_total_cents, 0) - coalesce(since.available, 0) AS "availableTotalCents",
              coalesce(b.blocked_cents, 0) - coalesce(since.blocked, 0) AS "blockedCents",
              coalesce((SELECT sum(e.amount_cents) FROM ledger_entries e
                        WHERE e.account_id = $1 AND e.livemode = $2 AND e.bucket = 'available'
                          AND e.release_at IS NOT NULL AND e.release_at >= $3::timestamptz
                          AND e.created_at < $3::timestamptz), 0)::bigint AS "pendingCents"
       FROM (SELECT 1) AS one
       LEFT JOIN ledger_balances b ON b.account_id = $1 AND b.livemode = $2
       LEFT JOIN LATERAL (
         SELECT coalesce(sum(e.amount_cents) FILTER (WHERE e.bucket = 'available'), 0)::bigint AS available,
                coalesce(sum(e.amount_cents) FILTER (WHERE e.bucket = 'blocked'), 0)::bigint AS blocked
         FROM ledger_entries e
         WHERE e.account_id = $1 AND e.livemode = $2 AND e.created_at >= $3::timestamptz
       ) AS since ON true`,
      args,
    );
    const entries = await selectMany(
      db,
      ledgerTable,
      "account_id = $1 AND livemode = $2 AND created_at >= $3::timestamptz AND created_at < $4::timestamptz",
      [...args, to],
      "seq",
    );
    const releases = await query<LedgerRelease & Record<string, unknown>>(
      db,
      `SELECT release_at AS "releaseAt", sum(amount_cents)::bigint AS "amountCents" FROM ledger_entries
       WHERE account_id = $1 AND livemode = $2 AND bucket = 'available' AND release_at IS NOT NULL
         AND release_at >= $3::timestamptz AND release_at < $4::timestamptz AND created_at < release_at
       GROUP BY release_at ORDER BY release_at`,
      [...args, to],
    );
    return {
      opening: balanceTotals(sums ?? { availableTotalCents: 0, blockedCents: 0, pendingCents: 0 }),
      entries,
      releases,
    };
  };
}
