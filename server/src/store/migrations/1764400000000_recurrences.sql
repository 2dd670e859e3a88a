-- Up Migration

-- Recurrences (Pix Automático, issue 27): the payer's authorisation of recurring debits, and the
-- cycle charges that are transactions with a recurrence and a cycle (due date and attempts).
-- Dates of the calendar (first and last date, the sandbox's simulated date) are `YYYY-MM-DD` text,
-- compared as text like the domain's strings; instants are timestamptz(3) as everywhere.

CREATE TABLE recurrences (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  -- Stored status; CREATED past expires_at reads as EXPIRED.
  status text NOT NULL CHECK (status IN ('CREATED', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED')),
  journey text NOT NULL CHECK (journey IN ('JOURNEY_2', 'JOURNEY_3')),
  payer jsonb NOT NULL,
  contract_reference text NOT NULL CHECK (char_length(contract_reference) BETWEEN 1 AND 35),
  description text NOT NULL CHECK (char_length(description) BETWEEN 3 AND 35),
  periodicity text NOT NULL CHECK (periodicity IN ('WEEKLY', 'MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL')),
  first_date text NOT NULL CHECK (first_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  last_date text CHECK (last_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' AND last_date >= first_date),
  amount_cents bigint CHECK (amount_cents > 0),
  minimum_amount_cents bigint CHECK (minimum_amount_cents > 0),
  payer_maximum_amount_cents bigint CHECK (payer_maximum_amount_cents > 0),
  retry_policy text NOT NULL CHECK (retry_policy IN ('NO_RETRY', 'RETRY_3_IN_7_DAYS')),
  automatic_charges boolean NOT NULL,
  initial_transaction_id text COLLATE "C" REFERENCES transactions (id),
  br_code text NOT NULL,
  metadata jsonb NOT NULL,
  expires_at timestamptz(3) NOT NULL,
  approved_at timestamptz(3),
  rejection jsonb,
  cancellation jsonb,
  history jsonb NOT NULL,
  simulated_date text CHECK (simulated_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  -- A fixed amount, or a variable one with an optional minimum: never both; automatic charges need
  -- the fixed amount; the payer's ceiling is a variable recurrence's.
  CONSTRAINT recurrences_fixed_or_minimum CHECK (amount_cents IS NULL OR minimum_amount_cents IS NULL),
  CONSTRAINT recurrences_automatic_only_fixed CHECK (NOT automatic_charges OR amount_cents IS NOT NULL),
  CONSTRAINT recurrences_ceiling_only_variable CHECK (payer_maximum_amount_cents IS NULL OR amount_cents IS NULL),
  -- Journey 3 and only it has an immediate charge; test recurrences alone move their calendar.
  CONSTRAINT recurrences_initial_charge_journey_3
    CHECK ((initial_transaction_id IS NOT NULL) = (journey = 'JOURNEY_3')),
  CONSTRAINT recurrences_simulated_date_test_only CHECK (simulated_date IS NULL OR NOT livemode)
);
CREATE INDEX recurrences_page ON recurrences (account_id, livemode, created_at DESC, id DESC);
-- GET /api/v1/recurrences?customerId=…
CREATE INDEX recurrences_by_customer
  ON recurrences (account_id, livemode, (payer ->> 'id'), created_at DESC, id COLLATE "C" DESC);

ALTER TABLE transactions
  ADD COLUMN recurrence_id text COLLATE "C" REFERENCES recurrences (id),
  ADD COLUMN cycle jsonb,
  ADD CONSTRAINT transactions_cycle_of_recurrence CHECK (cycle IS NULL OR recurrence_id IS NOT NULL);
-- A recurrence's charges (GET /api/v1/transactions?recurrenceId=…, and its own reads).
CREATE INDEX transactions_by_recurrence ON transactions (recurrence_id, created_at DESC, id DESC)
  WHERE recurrence_id IS NOT NULL;
-- One live charge per cycle (the Central Bank's rule): a failed or cancelled one frees the cycle.
CREATE UNIQUE INDEX transactions_one_live_charge_per_cycle ON transactions (recurrence_id, (cycle ->> 'dueDate'))
  WHERE cycle IS NOT NULL AND status NOT IN ('FAILED', 'CANCELLED');

-- Down Migration

DROP INDEX transactions_one_live_charge_per_cycle;
DROP INDEX transactions_by_recurrence;
ALTER TABLE transactions
  DROP CONSTRAINT transactions_cycle_of_recurrence,
  DROP COLUMN cycle,
  DROP COLUMN recurrence_id;
DROP TABLE recurrences;
