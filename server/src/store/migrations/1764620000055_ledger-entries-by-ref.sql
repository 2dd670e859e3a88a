-- Up Migration
-- Record 0055: a refund reads the ledger entries of its charge and of the charge's refunds by
-- reference (`ledger.listByRefs`) rather than the scope's whole ledger.
CREATE INDEX ledger_entries_by_ref ON ledger_entries (account_id, livemode, ref_id);

-- Down Migration
DROP INDEX ledger_entries_by_ref;
