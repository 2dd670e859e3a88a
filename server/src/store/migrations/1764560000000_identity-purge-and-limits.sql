-- Up Migration
-- Issue 33: expired sessions and e-mail tokens are purged in the background (by their expiry), a
-- user's reset e-mails are counted per hour, and a reset ends the user's other reset links.
CREATE INDEX dashboard_sessions_by_expiry ON dashboard_sessions (expires_at);
CREATE INDEX email_tokens_by_expiry ON email_tokens (expires_at);
CREATE INDEX email_tokens_by_user ON email_tokens (user_id, purpose, created_at);

-- Down Migration
DROP INDEX email_tokens_by_user;
DROP INDEX email_tokens_by_expiry;
DROP INDEX dashboard_sessions_by_expiry;
