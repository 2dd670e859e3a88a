-- Up Migration
-- Issue 35 §1: the platform's connection to its bank (one row at most), its health (a row of its
-- own, written field by field by the adapter and the reconciler, so an operator's change and a
-- health write never conflict) and its change log (the platform's audit trail of the connection:
-- appended, never changed). The client secret and the certificate's material are sealed by the
-- service (envelope encryption under MASTER_KEYS, docs/decisions/0050-secrets-at-rest-and-the-bank-connection.md):
-- this database never holds them in clear.
CREATE TABLE bank_connection (
  id text COLLATE "C" PRIMARY KEY CHECK (id = 'bank'),
  version integer NOT NULL CHECK (version >= 1),
  base_url text NOT NULL,
  token_url text NOT NULL,
  client_id text NOT NULL,
  client_secret text NOT NULL CHECK (client_secret LIKE 'pxs1.%'),
  certificate jsonb NOT NULL CHECK (certificate ->> 'sealed' LIKE 'pxs1.%'),
  bank_ca jsonb,
  pix_key text NOT NULL,
  dialect text NOT NULL CHECK (dialect IN ('standard', 'efi', 'inter')),
  webhook_url text,
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL
);

CREATE TABLE bank_health (
  id text COLLATE "C" PRIMARY KEY CHECK (id = 'bank'),
  last_success_at timestamptz(3),
  token_expires_at timestamptz(3),
  webhook_registered_at timestamptz(3),
  last_reconciliation_at timestamptz(3),
  last_error jsonb
);

CREATE TABLE bank_connection_changes (
  id text COLLATE "C" PRIMARY KEY,
  action text NOT NULL,
  ip text,
  changes jsonb NOT NULL,
  created_at timestamptz(3) NOT NULL
);
CREATE INDEX bank_connection_changes_by_created ON bank_connection_changes (created_at DESC, id COLLATE "C" DESC);
CREATE TRIGGER bank_connection_changes_append_only BEFORE UPDATE OR DELETE ON bank_connection_changes
  FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();

-- Down Migration
DROP TABLE bank_connection_changes;
DROP TABLE bank_health;
DROP TABLE bank_connection;
