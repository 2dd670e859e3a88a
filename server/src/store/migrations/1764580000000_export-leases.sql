-- Up Migration
-- Issue 33 §12: a user's CSV exports under way, at most two at once whichever server process
-- streams them (docs/decisions/0046-csv-exports-two-at-once-per-user.md). One row per slot of a
-- user, so a user never has more rows than slots; a slot whose lease expired (its process died
-- mid-export) is free again. Deleted with the user.
CREATE TABLE export_leases (
  user_id text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  slot integer NOT NULL CHECK (slot >= 1),
  lease_id text COLLATE "C" NOT NULL,
  expires_at timestamptz(3) NOT NULL,
  PRIMARY KEY (user_id, slot)
);
CREATE INDEX export_leases_lease_id ON export_leases (lease_id);

-- Down Migration
DROP TABLE export_leases;
