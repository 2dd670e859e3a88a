import type { TransactionStatus } from "../../domain/core/model.js";
import type { StoreReads } from "../../domain/ports/store.js";
import { type Queryable, query } from "./sql.js";

// The dashboard's home figures (issue 25; migration 1764530000000): aggregates of one account and
// mode computed here, each in one statement, instead of paging its charges through the domain.

type FigureReads = Pick<StoreReads["transactions"], "paidPerDay" | "countByStatus" | "openDisputes">;

export function homeFigureReads(db: Queryable): FigureReads {
  return {
    // Grouped by the Brasília calendar day of `paid_at` (the database's time zone rules), read
    // index-only from `transactions_paid_by_day` (amount_cents included).
    paidPerDay: async (scope, from, to) =>
      query<{ date: string; count: number; amountCents: number }>(
        db,
        `SELECT to_char((paid_at AT TIME ZONE 'America/Sao_Paulo')::date, 'YYYY-MM-DD') AS date,
                count(*) AS count, sum(amount_cents)::bigint AS "amountCents"
         FROM transactions
         WHERE account_id = $1 AND livemode = $2 AND status = 'PAID'
           AND paid_at >= $3::timestamptz AND paid_at < $4::timestamptz
         GROUP BY 1 ORDER BY 1`,
        [scope.accountId, scope.livemode, from, to],
      ),
    // The window of `transactions_page`; a charge waiting past its expiry counts as EXPIRED, as
    // every read shows it.
    countByStatus: async (scope, window) => {
      const rows = await query<{ status: TransactionStatus; count: number }>(
        db,
        `SELECT CASE WHEN status = 'WAITING_PAYMENT' AND expires_at <= $5::timestamptz THEN 'EXPIRED'
                     ELSE status END AS status,
                count(*) AS count
         FROM transactions
         WHERE account_id = $1 AND livemode = $2 AND created_at >= $3::timestamptz AND created_at < $4::timestamptz
         GROUP BY 1`,
        [scope.accountId, scope.livemode, window.createdFrom, window.createdTo, window.now],
      );
      return Object.fromEntries(rows.map((r) => [r.status, r.count]));
    },
    // Few rows: the partial index `transactions_open_disputes` holds only the open ones.
    openDisputes: async (scope) => {
      const rows = await query<{ count: number; amountCents: number }>(
        db,
        `SELECT count(*) AS count, coalesce(sum((dispute ->> 'amountCents')::bigint), 0)::bigint AS "amountCents"
         FROM transactions
         WHERE account_id = $1 AND livemode = $2 AND dispute ->> 'status' = 'OPEN'`,
        [scope.accountId, scope.livemode],
      );
      return rows[0] ?? { count: 0, amountCents: 0 };
    },
  };
}
