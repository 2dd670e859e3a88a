-- Up Migration
-- A dashboard session's CSRF token is no longer stored: the server derives it from the session
-- cookie's token on each request (an HMAC under it; server/src/domain/identity/sessions.ts
-- `csrfTokenOf`), so the sessions table holds no secret in clear. Sessions open at the migration
-- keep working, with a new token: a change sent with the old one is refused (403) until the web
-- app reads the session again (GET /dashboard/v1/session, on its next load).
ALTER TABLE dashboard_sessions DROP COLUMN csrf_token;

-- Down Migration
-- A random token per session (never one shared or empty): the code before this migration hands
-- each session's own to the web app.
ALTER TABLE dashboard_sessions ADD COLUMN csrf_token text NOT NULL DEFAULT md5(random()::text || clock_timestamp()::text);
ALTER TABLE dashboard_sessions ALTER COLUMN csrf_token DROP DEFAULT;
