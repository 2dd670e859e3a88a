-- Up Migration
-- Issue 35 §3 (record 0051, unmatched receipts): the operator returns an unmatched receipt to its
-- payer, a devolução of the full amount at the bank. Its state on the received Pix's row: the
-- latest attempt's id of ours, its status, and when it was returned or why the bank refused it.
ALTER TABLE received_pix
  ADD COLUMN return_status text CHECK (return_status IN ('PENDING', 'COMPLETED', 'FAILED')),
  ADD COLUMN return_id text COLLATE "C",
  ADD COLUMN return_attempts integer NOT NULL DEFAULT 0 CHECK (return_attempts >= 0),
  ADD COLUMN returned_at timestamptz(3),
  ADD COLUMN return_failure_reason text,
  ADD CONSTRAINT received_pix_return_unmatched CHECK (return_status IS NULL OR outcome = 'UNMATCHED');

-- Down Migration
ALTER TABLE received_pix
  DROP CONSTRAINT received_pix_return_unmatched,
  DROP COLUMN return_failure_reason,
  DROP COLUMN returned_at,
  DROP COLUMN return_attempts,
  DROP COLUMN return_id,
  DROP COLUMN return_status;
