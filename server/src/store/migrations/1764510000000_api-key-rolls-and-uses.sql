-- Up Migration
-- Keys of the merchant dashboard (issue 25). A roll gives a key a new secret and keeps the one
-- before (its digest and visible prefix) accepted until the grace the user picked ends. When a
-- key was last used is kept apart from the key's row: the public API writes it (at most once a
-- minute per key and process), and the key's row version must change only when the key does
-- (the transaction list confirms a key by it, docs/decisions.md "The listTransactions exception").
ALTER TABLE api_keys
  ADD COLUMN previous_digest text,
  ADD COLUMN previous_prefix text,
  ADD COLUMN previous_expires_at timestamptz(3),
  ADD CONSTRAINT api_keys_previous_secret_whole CHECK (
    (previous_digest IS NULL) = (previous_prefix IS NULL)
    AND (previous_digest IS NULL) = (previous_expires_at IS NULL)
  );
-- Authentication looks a secret up here only when no key's current digest is it.
CREATE UNIQUE INDEX api_keys_by_previous_digest ON api_keys (previous_digest) WHERE previous_digest IS NOT NULL;

CREATE TABLE api_key_uses (
  key_id text COLLATE "C" PRIMARY KEY REFERENCES api_keys (id),
  last_used_at timestamptz(3) NOT NULL
);

-- Down Migration
DROP TABLE api_key_uses;
DROP INDEX api_keys_by_previous_digest;
ALTER TABLE api_keys
  DROP CONSTRAINT api_keys_previous_secret_whole,
  DROP COLUMN previous_expires_at,
  DROP COLUMN previous_prefix,
  DROP COLUMN previous_digest;
