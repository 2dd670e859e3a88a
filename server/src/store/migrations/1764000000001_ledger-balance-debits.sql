-- Up Migration

-- Debits could not be applied: INSERT ... ON CONFLICT DO UPDATE checks the proposed row (a bare
-- debit, negative) against ledger_balances_never_negative before it finds the conflict, so every
-- withdrawal failed. Now a zero row is made when missing, then the entry's amount is added.
CREATE OR REPLACE FUNCTION ledger_entries_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ledger_balances (account_id, livemode, available_total_cents, blocked_cents)
  VALUES (NEW.account_id, NEW.livemode, 0, 0)
  ON CONFLICT (account_id, livemode) DO NOTHING;
  UPDATE ledger_balances SET
    available_total_cents = available_total_cents
      + CASE WHEN NEW.bucket = 'available' THEN NEW.amount_cents ELSE 0 END,
    blocked_cents = blocked_cents + CASE WHEN NEW.bucket = 'blocked' THEN NEW.amount_cents ELSE 0 END
  WHERE account_id = NEW.account_id AND livemode = NEW.livemode;
  RETURN NULL;
END
$$;

-- Down Migration

CREATE OR REPLACE FUNCTION ledger_entries_apply() RETURNS trigger LANGUAGE plpgsql AS $$
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
