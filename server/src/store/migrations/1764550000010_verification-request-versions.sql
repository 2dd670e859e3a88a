-- Up Migration
-- A verification request's version (issue 33, finding 5): 1 when first asked, one more each time
-- the merchant replaces it. The operator names the version it reviewed when it verifies or
-- rejects, and a request replaced meanwhile is refused: a decision never lands on a document the
-- operator did not read. Existing rows are their first version.

ALTER TABLE verification_requests
  ADD COLUMN version integer NOT NULL DEFAULT 1 CONSTRAINT verification_requests_version_positive CHECK (version >= 1);
ALTER TABLE verification_requests ALTER COLUMN version DROP DEFAULT;

-- Down Migration
ALTER TABLE verification_requests DROP COLUMN version;
