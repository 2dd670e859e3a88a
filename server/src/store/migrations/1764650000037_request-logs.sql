-- Up Migration
-- Issue 37 §2, the request logs (docs/decisions/0058-request-logs.md): the public API's requests
-- made with a key, kept 7 days. Partitioned by day on created_at (RANGE): the request-logs job
-- makes each day's partition ahead (request_logs_YYYYMMDD, UNLOGGED: a crash may lose what the
-- logs held, never money) and drops the days past the window whole, by DROP TABLE; a batch for a
-- day not made yet makes it first. No primary key: an entry is named by its id within its scope,
-- and the index serves the page and the read by id alike.
CREATE TABLE request_logs (
  id text NOT NULL,
  account_id text NOT NULL,
  livemode boolean NOT NULL,
  key_id text NOT NULL,
  key_name text NOT NULL,
  key_prefix text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  route text NOT NULL,
  query text,
  status integer NOT NULL,
  duration_ms integer NOT NULL,
  request_id text NOT NULL,
  request_body text,
  request_body_truncated boolean NOT NULL,
  response_body text,
  response_body_truncated boolean NOT NULL,
  created_at timestamptz NOT NULL
) PARTITION BY RANGE (created_at);
CREATE INDEX request_logs_page ON request_logs (account_id, livemode, created_at DESC, id COLLATE "C" DESC);

-- Bodies compressed with lz4 where the server was built with it (cheaper than pglz for the same
-- JSON); partitions take their parent's setting.
DO $$
BEGIN
  ALTER TABLE request_logs ALTER COLUMN request_body SET COMPRESSION lz4;
  ALTER TABLE request_logs ALTER COLUMN response_body SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
  NULL;
END
$$;

-- Down Migration
DROP TABLE request_logs;
