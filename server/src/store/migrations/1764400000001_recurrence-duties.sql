-- Up Migration

-- The background pass over recurrences (Pix Automático): CREATED ones whose expiry has come, and
-- APPROVED ones whose cycles are charged automatically, across every account.
CREATE INDEX recurrences_created_by_expiry ON recurrences (expires_at, id) WHERE status = 'CREATED';
CREATE INDEX recurrences_automatic ON recurrences (id) WHERE status = 'APPROVED' AND automatic_charges;

-- Down Migration

DROP INDEX recurrences_automatic;
DROP INDEX recurrences_created_by_expiry;
