-- Up Migration

-- The PostgreSQL store (DESIGN §2). Conventions:
-- * ids are `text COLLATE "C"`: byte order, so keyset pagination on (created_at, id) orders ids
--   exactly as JavaScript string comparison does in the memory store;
-- * money is BIGINT cents; timestamps are timestamptz(3), the millisecond precision of the
--   domain's ISO strings (`Date#toISOString`);
-- * nested objects (customer snapshot, address, metadata, transfers, dispute, payloads,
--   attempts) are jsonb;
-- * every list reads an index in its own order: (account_id, livemode, created_at DESC, id DESC).

CREATE TABLE accounts (
  id text COLLATE "C" PRIMARY KEY,
  name text NOT NULL,
  owner_email text NOT NULL,
  verified boolean NOT NULL,
  charge_fee_cents bigint NOT NULL CHECK (charge_fee_cents >= 0),
  charge_fee_bps integer NOT NULL CHECK (charge_fee_bps >= 0),
  withdraw_fee_cents bigint NOT NULL CHECK (withdraw_fee_cents >= 0),
  release_period_days integer NOT NULL CHECK (release_period_days >= 0),
  merchant_city text NOT NULL,
  pix_key text NOT NULL,
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL
);
CREATE INDEX accounts_page ON accounts (created_at DESC, id DESC);

CREATE TABLE api_keys (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  livemode boolean NOT NULL,
  prefix text NOT NULL,
  -- SHA-256 of the secret: the only form in which a key is kept, and how it is found.
  digest text NOT NULL CONSTRAINT api_keys_one_per_digest UNIQUE,
  permissions text[] NOT NULL,
  allowed_ips text[] NOT NULL,
  daily_withdraw_limit_cents bigint CHECK (daily_withdraw_limit_cents >= 0),
  revoked_at timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL
);
CREATE INDEX api_keys_by_account ON api_keys (account_id, created_at DESC, id DESC);

CREATE TABLE customers (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  name text,
  email text,
  phone text,
  document_type text NOT NULL CHECK (document_type IN ('CPF', 'CNPJ')),
  document text NOT NULL,
  address jsonb,
  notes text,
  tags text[] NOT NULL,
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  -- One customer per document per account and mode: the upsert's key.
  CONSTRAINT customers_one_per_document UNIQUE (account_id, livemode, document)
);
CREATE INDEX customers_page ON customers (account_id, livemode, created_at DESC, id DESC);

CREATE TABLE payment_links (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  description text NOT NULL,
  active boolean NOT NULL,
  max_payments integer CHECK (max_payments > 0),
  payments_count integer NOT NULL CHECK (payments_count >= 0),
  ask_address boolean NOT NULL,
  return_url text,
  metadata jsonb,
  expires_at timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL
);
CREATE INDEX payment_links_page ON payment_links (account_id, livemode, created_at DESC, id DESC);
CREATE INDEX payment_links_active_page ON payment_links (account_id, livemode, active, created_at DESC, id DESC);

CREATE TABLE transactions (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  -- Stored status; WAITING_PAYMENT past expires_at reads as EXPIRED.
  status text NOT NULL
    CHECK (status IN ('WAITING_PAYMENT', 'PAID', 'EXPIRED', 'CANCELLED', 'FAILED', 'PENDING', 'PROCESSING')),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
  description text NOT NULL,
  br_code text NOT NULL,
  customer jsonb NOT NULL,
  payment_link_id text COLLATE "C" REFERENCES payment_links (id),
  dispute jsonb,
  metadata jsonb NOT NULL,
  expires_at timestamptz(3) NOT NULL,
  paid_at timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  -- The fee never eats the whole amount: a paid charge always credits something.
  CONSTRAINT transactions_fee_below_amount CHECK (fee_cents < amount_cents)
);
CREATE INDEX transactions_page ON transactions (account_id, livemode, created_at DESC, id DESC);
CREATE INDEX transactions_by_status ON transactions (account_id, livemode, status, expires_at);
CREATE INDEX transactions_waiting_by_expiry ON transactions (expires_at) WHERE status = 'WAITING_PAYMENT';
CREATE INDEX transactions_by_payment_link ON transactions (payment_link_id, created_at DESC, id DESC)
  WHERE payment_link_id IS NOT NULL;
CREATE UNIQUE INDEX transactions_by_dispute ON transactions ((dispute ->> 'id')) WHERE dispute IS NOT NULL;

CREATE TABLE withdrawals (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  api_key_id text COLLATE "C" REFERENCES api_keys (id),
  status text NOT NULL CHECK (status IN ('PENDING', 'PAID', 'PARTIALLY_PAID', 'FAILED')),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  fee_cents bigint NOT NULL CHECK (fee_cents >= 0),
  paid_amount_cents bigint NOT NULL CHECK (paid_amount_cents >= 0),
  returned_amount_cents bigint NOT NULL CHECK (returned_amount_cents >= 0),
  pix_key text NOT NULL,
  pix_key_type text NOT NULL CHECK (pix_key_type IN ('CPF', 'CNPJ', 'PHONE', 'EMAIL', 'EVP')),
  transfers jsonb NOT NULL,
  failure_reason text,
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  -- What was paid out and what came back never exceed what left the balance.
  CONSTRAINT withdrawals_settled_within_amount CHECK (paid_amount_cents + returned_amount_cents <= amount_cents)
);
CREATE INDEX withdrawals_page ON withdrawals (account_id, livemode, created_at DESC, id DESC);
-- The daily limit: one key's withdrawals of one (Brasília) day.
CREATE INDEX withdrawals_by_key ON withdrawals (api_key_id, created_at) WHERE api_key_id IS NOT NULL;

-- Money movements. Appended, never changed: balances are their sums.
CREATE TABLE ledger_entries (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text COLLATE "C" NOT NULL CONSTRAINT ledger_entries_id_unique UNIQUE,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  bucket text NOT NULL CHECK (bucket IN ('available', 'blocked')),
  amount_cents bigint NOT NULL,
  release_at timestamptz(3),
  kind text NOT NULL
    CHECK (kind IN ('charge_paid', 'withdrawal', 'withdrawal_returned', 'dispute_opened', 'dispute_won', 'dispute_lost')),
  ref_id text NOT NULL,
  created_at timestamptz(3) NOT NULL
);
CREATE INDEX ledger_entries_by_scope ON ledger_entries (account_id, livemode, seq);
-- Pending money: credits whose release is still ahead.
CREATE INDEX ledger_entries_pending ON ledger_entries (account_id, livemode, release_at)
  WHERE bucket = 'available' AND release_at IS NOT NULL;

CREATE FUNCTION ledger_entries_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger entries are append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_refuse_change();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_refuse_change();

-- Per account and mode: the sum of the entries, kept by the insert trigger below. Its CHECK makes
-- a negative balance impossible whatever the application does: `available_total_cents` counts
-- pending + available (the part of `available` that depends on the instant is computed on read).
CREATE TABLE ledger_balances (
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  available_total_cents bigint NOT NULL,
  blocked_cents bigint NOT NULL,
  PRIMARY KEY (account_id, livemode),
  CONSTRAINT ledger_balances_never_negative CHECK (available_total_cents >= 0 AND blocked_cents >= 0)
);

CREATE FUNCTION ledger_entries_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_balances AS b (account_id, livemode, available_total_cents, blocked_cents)
  VALUES (
    NEW.account_id,
    NEW.livemode,
    CASE WHEN NEW.bucket = 'available' THEN NEW.amount_cents ELSE 0 END,
    CASE WHEN NEW.bucket = 'blocked' THEN NEW.amount_cents ELSE 0 END
  )
  ON CONFLICT (account_id, livemode) DO UPDATE SET
    available_total_cents = b.available_total_cents + EXCLUDED.available_total_cents,
    blocked_cents = b.blocked_cents + EXCLUDED.blocked_cents;
  RETURN NULL;
END
$$;
CREATE TRIGGER ledger_entries_update_balance AFTER INSERT ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_apply();

-- Only the ledger trigger moves a balance (it runs at trigger depth 2 here).
CREATE FUNCTION ledger_balances_refuse_direct_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF pg_trigger_depth() < 2 THEN
    RAISE EXCEPTION 'ledger balances change only through ledger entries: % refused', TG_OP
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$;
CREATE TRIGGER ledger_balances_only_from_ledger BEFORE INSERT OR UPDATE OR DELETE ON ledger_balances
  FOR EACH ROW EXECUTE FUNCTION ledger_balances_refuse_direct_change();

-- The webhook outbox, written in the transaction that caused each event.
CREATE TABLE events (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text COLLATE "C" NOT NULL CONSTRAINT events_id_unique UNIQUE,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  type text NOT NULL,
  payload jsonb NOT NULL,
  created_at timestamptz(3) NOT NULL
);
CREATE INDEX events_by_scope ON events (account_id, livemode, seq);

CREATE TABLE idempotency_keys (
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  operation text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  response_status integer NOT NULL,
  response_body jsonb NOT NULL,
  created_at timestamptz(3) NOT NULL,
  -- One remembered outcome per scope, operation and key.
  CONSTRAINT idempotency_keys_one_per_key PRIMARY KEY (account_id, livemode, operation, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

CREATE TABLE webhook_endpoints (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamptz(3),
  disabled_at timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL
);
CREATE INDEX webhook_endpoints_by_account ON webhook_endpoints (account_id, created_at DESC, id DESC);
CREATE INDEX webhook_endpoints_enabled ON webhook_endpoints (account_id, livemode) WHERE disabled_at IS NULL;

-- No foreign key to webhook_endpoints: deleting an endpoint keeps its delivery history.
CREATE TABLE webhook_deliveries (
  id text COLLATE "C" PRIMARY KEY,
  event_id text COLLATE "C" NOT NULL REFERENCES events (id),
  endpoint_id text COLLATE "C" NOT NULL,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  status text NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
  attempts jsonb NOT NULL,
  next_attempt_at timestamptz(3),
  locked_until timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);

-- Per-IP request counters shared by every server process. UNLOGGED: a crash forgets the current
-- minute's counts, which costs nothing worth a WAL write per request.
CREATE UNLOGGED TABLE rate_limit_counters (
  name text NOT NULL,
  key text NOT NULL,
  hits integer NOT NULL CHECK (hits >= 0),
  reset_at timestamptz(3) NOT NULL,
  PRIMARY KEY (name, key)
);
CREATE INDEX rate_limit_counters_by_reset ON rate_limit_counters (reset_at);

-- Down Migration

DROP TABLE rate_limit_counters;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
DROP TABLE idempotency_keys;
DROP TABLE events;
DROP TABLE ledger_balances;
DROP FUNCTION ledger_balances_refuse_direct_change();
DROP TABLE ledger_entries;
DROP FUNCTION ledger_entries_apply();
DROP FUNCTION ledger_entries_refuse_change();
DROP TABLE withdrawals;
DROP TABLE transactions;
DROP TABLE payment_links;
DROP TABLE customers;
DROP TABLE api_keys;
DROP TABLE accounts;
