-- Up Migration
-- The accounts' audit log (issue 25): every change made through the dashboard or the operator API,
-- who made it (a user, or the operator), when, from which IP address, the object and what changed
-- (never a secret). Append-only: the application has no statement that changes or removes an entry,
-- and the triggers below refuse UPDATE, DELETE and TRUNCATE from anyone, as for the ledger. (A
-- REVOKE would not hold: the service's own role owns the table and may grant itself back.)

CREATE TABLE audit_log (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  actor_type text NOT NULL CHECK (actor_type IN ('user', 'operator')),
  -- The user and its e-mail address at the time; both null for the operator.
  actor_user_id text COLLATE "C",
  actor_email text,
  ip text,
  action text NOT NULL,
  target_type text NOT NULL,
  target_id text NOT NULL,
  livemode boolean,
  changes jsonb NOT NULL,
  created_at timestamptz(3) NOT NULL,
  CONSTRAINT audit_log_actor CHECK (
    (actor_type = 'user') = (actor_user_id IS NOT NULL AND actor_email IS NOT NULL)
    AND (actor_type = 'operator') = (actor_user_id IS NULL AND actor_email IS NULL)
  )
);
CREATE INDEX audit_log_by_account ON audit_log (account_id, created_at DESC, id COLLATE "C" DESC);

CREATE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();

-- A log-in from an address none of the user's sessions came from is recorded: found by this index.
CREATE INDEX dashboard_sessions_by_user_ip ON dashboard_sessions (user_id, ip);

-- Down Migration
DROP INDEX dashboard_sessions_by_user_ip;
DROP TABLE audit_log;
DROP FUNCTION audit_log_refuse_change();
