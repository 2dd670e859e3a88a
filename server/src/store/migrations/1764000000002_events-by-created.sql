-- Up Migration
-- The operator's event list pages newest first on (created_at, id), like every other list.
CREATE INDEX events_by_scope_created ON events (account_id, livemode, created_at DESC, id COLLATE "C" DESC);

-- Down Migration
DROP INDEX events_by_scope_created;
