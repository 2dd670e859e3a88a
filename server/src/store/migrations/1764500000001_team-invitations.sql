-- Up Migration
-- Invitations to join an account's team (issue 25): the address, the role, the digest of the
-- link's token (the token itself is only in the e-mail), who invited, and what became of it.
-- Removing a member deletes its user, sessions and e-mail tokens (no other table refers to users).

CREATE TABLE invitations (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL REFERENCES accounts (id),
  -- Lower case.
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'finance', 'viewer')),
  token_digest text NOT NULL CONSTRAINT invitations_one_per_token UNIQUE,
  -- The inviting user's id, as text: a removed member's invitations stay.
  invited_by text COLLATE "C" NOT NULL,
  created_at timestamptz(3) NOT NULL,
  expires_at timestamptz(3) NOT NULL,
  accepted_at timestamptz(3),
  revoked_at timestamptz(3)
);
CREATE INDEX invitations_pending_by_account ON invitations (account_id, created_at DESC, id DESC)
  WHERE accepted_at IS NULL AND revoked_at IS NULL;

-- Down Migration
DROP TABLE invitations;
