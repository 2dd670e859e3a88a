-- Up Migration
-- Issue 36 §1: production withdrawals paid out through the platform's bank. A withdrawal sent there
-- keeps its payout's state (`payout`: whether it waits for the platform's balance at the bank;
-- null for the acquirer's withdrawals, every older one included); its transfers (jsonb) carry what
-- the bank answered. The payout job reads the PENDING ones by id, through the partial index.
-- The bank connection gains the per-transfer limit a withdrawal is split by (R$ 15.000,00 unless
-- the operator sets another).
ALTER TABLE withdrawals ADD COLUMN payout jsonb;
CREATE INDEX withdrawals_pending_at_bank ON withdrawals (id COLLATE "C")
  WHERE status = 'PENDING' AND payout IS NOT NULL;

ALTER TABLE bank_connection ADD COLUMN payout_limit_cents bigint NOT NULL DEFAULT 1500000
  CHECK (payout_limit_cents BETWEEN 100 AND 1000000000);

-- Down Migration
ALTER TABLE bank_connection DROP COLUMN payout_limit_cents;
DROP INDEX withdrawals_pending_at_bank;
ALTER TABLE withdrawals DROP COLUMN payout;
