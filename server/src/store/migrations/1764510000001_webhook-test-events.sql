-- Up Migration
-- Deliveries for the merchant dashboard (issue 25). Each names its event's kind, for the
-- endpoint's deliveries list without a read of every event. A test event (`webhook.test`, sent to
-- one endpoint from the dashboard) is no event of the account (no events list holds it), so its
-- delivery carries its envelope itself, and event_id names a row of events only when test_event
-- is NULL: the foreign key cannot say "unless", so it goes, and the check keeps what a test
-- delivery may carry.
ALTER TABLE webhook_deliveries
  DROP CONSTRAINT webhook_deliveries_event_id_fkey,
  ADD COLUMN event_type text,
  ADD COLUMN test_event jsonb;
UPDATE webhook_deliveries d SET event_type = e.type FROM events e WHERE e.id = d.event_id;
ALTER TABLE webhook_deliveries
  ALTER COLUMN event_type SET NOT NULL,
  ADD CONSTRAINT webhook_deliveries_test_event_kind CHECK (
    test_event IS NULL
    OR (event_type = 'webhook.test' AND test_event ->> 'type' = 'webhook.test' AND test_event ->> 'id' = event_id)
  );

-- Down Migration
DELETE FROM webhook_deliveries WHERE test_event IS NOT NULL;
ALTER TABLE webhook_deliveries
  DROP CONSTRAINT webhook_deliveries_test_event_kind,
  DROP COLUMN test_event,
  DROP COLUMN event_type,
  ADD CONSTRAINT webhook_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES events (id);
