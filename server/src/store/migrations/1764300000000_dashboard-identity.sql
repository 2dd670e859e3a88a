-- Up Migration
-- The merchant dashboard's people (issue 25): users of an account, their server-side sessions and
-- the one-time tokens of e-mail links. Secrets are kept only as digests (the session cookie's
-- token, e-mail tokens) or argon2id hashes (passwords).

CREATE TABLE users (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  -- Lower case: the log-in name, one user per address.
  email text NOT NULL CONSTRAINT users_one_per_email UNIQUE,
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'finance', 'viewer')),
  password_hash text NOT NULL,
  email_confirmed_at timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL
);
CREATE INDEX users_by_account ON users (account_id, created_at, id);

CREATE TABLE dashboard_sessions (
  id text COLLATE "C" PRIMARY KEY,
  -- SHA-256 of the cookie's token: how a request's session is found.
  token_digest text NOT NULL CONSTRAINT dashboard_sessions_one_per_token UNIQUE,
  user_id text COLLATE "C" NOT NULL REFERENCES users (id),
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  csrf_token text NOT NULL,
  ip text,
  user_agent text,
  created_at timestamptz(3) NOT NULL,
  last_seen_at timestamptz(3) NOT NULL,
  expires_at timestamptz(3) NOT NULL,
  ended_at timestamptz(3)
);
CREATE INDEX dashboard_sessions_open_by_user ON dashboard_sessions (user_id, created_at DESC, id DESC)
  WHERE ended_at IS NULL;

CREATE TABLE email_tokens (
  -- SHA-256 of the token sent in the e-mail link.
  id text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL REFERENCES users (id),
  purpose text NOT NULL CHECK (purpose IN ('confirm_email', 'reset_password')),
  expires_at timestamptz(3) NOT NULL,
  used_at timestamptz(3),
  created_at timestamptz(3) NOT NULL
);

-- Down Migration
DROP TABLE email_tokens;
DROP TABLE dashboard_sessions;
DROP TABLE users;
