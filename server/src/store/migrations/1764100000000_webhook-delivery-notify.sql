-- Up Migration
-- Delivery workers in other processes wake up when deliveries are queued instead of waiting for
-- their next poll: one NOTIFY per inserting statement, sent by PostgreSQL at commit (never for a
-- rolled-back transaction). The payload is empty: a worker just runs a pass; polling stays on.
CREATE FUNCTION notify_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('webhook_deliveries', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION notify_webhook_deliveries();

-- Down Migration
DROP TRIGGER webhook_deliveries_notify ON webhook_deliveries;
DROP FUNCTION notify_webhook_deliveries();
