-- Up Migration
-- A replay must be the first answer byte for byte; jsonb reorders an object's keys, so the
-- response body is kept as the text that was sent. Records stored before keep their jsonb text
-- (still within their 24 h window, at worst keys in another order).
ALTER TABLE idempotency_keys ADD COLUMN response_text text;
UPDATE idempotency_keys SET response_text = response_body::text;
ALTER TABLE idempotency_keys ALTER COLUMN response_text SET NOT NULL;
ALTER TABLE idempotency_keys DROP COLUMN response_body;

-- Down Migration
ALTER TABLE idempotency_keys ADD COLUMN response_body jsonb;
UPDATE idempotency_keys SET response_body = response_text::jsonb;
ALTER TABLE idempotency_keys ALTER COLUMN response_body SET NOT NULL;
ALTER TABLE idempotency_keys DROP COLUMN response_text;
