-- Up Migration

-- Refunds (devolução Pix) of paid charges, the sandbox's early release of pending money, and the
-- public event list with its filters (issue 13).

-- What a charge's refunds that did not fail return to the payer; never more than the charge.
ALTER TABLE transactions
  ADD COLUMN refunded_amount_cents bigint NOT NULL DEFAULT 0,
  ADD CONSTRAINT transactions_refunds_within_amount
    CHECK (refunded_amount_cents >= 0 AND refunded_amount_cents <= amount_cents);

CREATE TABLE refunds (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  transaction_id text COLLATE "C" NOT NULL REFERENCES transactions (id),
  status text NOT NULL CHECK (status IN ('PENDING', 'COMPLETED', 'FAILED')),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  reason text CHECK (char_length(reason) BETWEEN 3 AND 140),
  end_to_end_id text,
  failure_reason text,
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  -- Only a completed return has a Pix return id; only a failed one has a failure reason.
  CONSTRAINT refunds_end_to_end_only_completed CHECK (end_to_end_id IS NULL OR status = 'COMPLETED'),
  CONSTRAINT refunds_failure_reason_only_failed CHECK (failure_reason IS NULL OR status = 'FAILED')
);
-- A charge's refunds, newest first (GET /transactions/{id}/refunds).
CREATE INDEX refunds_by_transaction ON refunds (account_id, livemode, transaction_id, created_at DESC, id DESC);

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('charge_paid', 'withdrawal', 'withdrawal_returned', 'dispute_opened', 'dispute_won',
                  'dispute_lost', 'refund', 'refund_returned', 'pending_released'));

-- GET /api/v1/events?type=…: one kind, newest first.
CREATE INDEX events_by_scope_type_created
  ON events (account_id, livemode, type, created_at DESC, id COLLATE "C" DESC);

-- Down Migration

DROP INDEX events_by_scope_type_created;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('charge_paid', 'withdrawal', 'withdrawal_returned', 'dispute_opened', 'dispute_won', 'dispute_lost'));
DROP TABLE refunds;
ALTER TABLE transactions DROP COLUMN refunded_amount_cents;
