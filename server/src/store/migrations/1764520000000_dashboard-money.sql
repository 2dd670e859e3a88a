-- Up Migration
-- The merchant dashboard's money and objects (issue 25). Its dispute list walks a scope's disputed
-- charges newest first (few among many charges); a transaction's timeline finds the events about
-- the charge and its refunds by the id of the object they carry.
CREATE INDEX transactions_disputed_page
  ON transactions (account_id, livemode, created_at DESC, id DESC) WHERE dispute IS NOT NULL;
CREATE INDEX events_by_object ON events (account_id, livemode, (payload #>> '{data,object,id}'));

-- Down Migration
DROP INDEX events_by_object;
DROP INDEX transactions_disputed_page;
