-- Up Migration
-- GET /transactions?status=…: the first page walks this index newest first, whatever the share of
-- that status (walking the scope's page index and filtering is slow when the status is rare).
CREATE INDEX transactions_by_status_page
  ON transactions (account_id, livemode, status, created_at DESC, id DESC);

-- Down Migration
DROP INDEX transactions_by_status_page;
