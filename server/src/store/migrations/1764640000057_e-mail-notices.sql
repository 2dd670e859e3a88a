-- Up Migration
-- Record 0057: each member's choice of e-mail notices, and the notices owed (an outbox written in
-- the transaction that caused them, sent by the notices job; kept a week once sent).
CREATE TABLE notice_preferences (
  user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  account_id text NOT NULL,
  payments text NOT NULL CHECK (payments IN ('each', 'daily', 'off')),
  withdrawals boolean NOT NULL,
  disputes boolean NOT NULL,
  new_device boolean NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX notice_preferences_by_account ON notice_preferences (account_id);
CREATE INDEX notice_preferences_daily ON notice_preferences (user_id COLLATE "C") WHERE payments = 'daily';

CREATE TABLE notices (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('event', 'login', 'daily', 'mail')),
  account_id text NOT NULL,
  subject_id text NOT NULL,
  detail jsonb NOT NULL,
  due_at timestamptz NOT NULL,
  attempts integer NOT NULL,
  sent_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX notices_due ON notices (due_at, id COLLATE "C") WHERE sent_at IS NULL;
CREATE INDEX notices_sent ON notices (sent_at) WHERE sent_at IS NOT NULL;

-- Down Migration
DROP TABLE notices;
DROP TABLE notice_preferences;
