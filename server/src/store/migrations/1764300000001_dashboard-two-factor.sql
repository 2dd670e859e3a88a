-- Up Migration
-- Two-factor authentication of the dashboard's users (issue 25): the TOTP secret, the last time
-- step taken (a code works once), the digests of the recovery codes not used yet; the sessions'
-- last step-up; the accounts' security rules (an account without a row has the defaults).
ALTER TABLE users
  ADD COLUMN totp_secret text,
  ADD COLUMN totp_pending_secret text,
  ADD COLUMN totp_enabled_at timestamptz(3),
  ADD COLUMN totp_last_step bigint,
  ADD COLUMN recovery_code_digests text[] NOT NULL DEFAULT '{}',
  ADD CONSTRAINT users_totp_enabled_with_secret CHECK ((totp_enabled_at IS NULL) = (totp_secret IS NULL));

ALTER TABLE dashboard_sessions ADD COLUMN stepped_up_at timestamptz(3);

CREATE TABLE account_security (
  id text COLLATE "C" PRIMARY KEY REFERENCES accounts (id),
  require_two_factor boolean NOT NULL,
  updated_at timestamptz(3) NOT NULL
);

-- Down Migration
DROP TABLE account_security;
ALTER TABLE dashboard_sessions DROP COLUMN stepped_up_at;
ALTER TABLE users
  DROP CONSTRAINT users_totp_enabled_with_secret,
  DROP COLUMN recovery_code_digests,
  DROP COLUMN totp_last_step,
  DROP COLUMN totp_enabled_at,
  DROP COLUMN totp_pending_secret,
  DROP COLUMN totp_secret;
