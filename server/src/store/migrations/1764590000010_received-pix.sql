-- Up Migration
-- Issue 35: production money through the bank (docs/decisions, received Pix exactly once). Each
-- Pix the platform's account received, by its end-to-end id, written in the same transaction as
-- its credit, so a second callback, process or reconciliation finds it and credits nothing; an
-- UNMATCHED one paid no charge of ours and is held for the operator.
CREATE TABLE received_pix (
  id text COLLATE "C" PRIMARY KEY,
  txid text COLLATE "C",
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  paid_at timestamptz(3) NOT NULL,
  payer_name text,
  payer_document text,
  outcome text NOT NULL CHECK (outcome IN ('CREDITED', 'UNMATCHED')),
  transaction_id text COLLATE "C",
  account_id text COLLATE "C",
  livemode boolean,
  reason text,
  created_at timestamptz(3) NOT NULL,
  CHECK ((outcome = 'CREDITED') = (transaction_id IS NOT NULL))
);
CREATE UNIQUE INDEX received_pix_credited ON received_pix (transaction_id) WHERE outcome = 'CREDITED';
CREATE INDEX received_pix_unmatched ON received_pix (created_at DESC, id COLLATE "C" DESC)
  WHERE outcome = 'UNMATCHED';

-- What is still owed to the bank for a charge (register, remove) or a refund (its outcome); a row
-- is deleted once done. Workers claim due rows with FOR UPDATE SKIP LOCKED.
CREATE TABLE bank_tasks (
  id text COLLATE "C" PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('register', 'remove', 'refund')),
  subject_id text COLLATE "C" NOT NULL,
  account_id text COLLATE "C" NOT NULL,
  livemode boolean NOT NULL,
  due_at timestamptz(3) NOT NULL,
  attempts integer NOT NULL CHECK (attempts >= 0),
  last_error text,
  created_at timestamptz(3) NOT NULL
);
CREATE INDEX bank_tasks_due ON bank_tasks (due_at, id COLLATE "C");

-- Why a charge the bank refused to register is FAILED.
ALTER TABLE transactions ADD COLUMN failure_reason text;

-- Down Migration
ALTER TABLE transactions DROP COLUMN failure_reason;
DROP TABLE bank_tasks;
DROP TABLE received_pix;
