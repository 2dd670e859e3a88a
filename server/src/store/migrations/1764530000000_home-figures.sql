-- Up Migration

-- The dashboard's home figures (issue 25). What was received per Brasília day reads one account
-- and mode's PAID charges by paid_at, index-only (amount_cents is carried in the index); the open
-- disputes (few at any time) have a partial index of their own.
CREATE INDEX transactions_paid_by_day
  ON transactions (account_id, livemode, paid_at) INCLUDE (amount_cents) WHERE status = 'PAID';
CREATE INDEX transactions_open_disputes
  ON transactions (account_id, livemode) WHERE dispute ->> 'status' = 'OPEN';

-- Down Migration

DROP INDEX transactions_open_disputes;
DROP INDEX transactions_paid_by_day;
