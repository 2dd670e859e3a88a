-- Up Migration
-- Issue 37 §2, the statement (extrato): a period's ledger entries by instant, and the entries
-- created since an instant (the opening balance is the balances row less them).
CREATE INDEX ledger_entries_by_time ON ledger_entries (account_id, livemode, created_at);

-- Down Migration
DROP INDEX ledger_entries_by_time;
