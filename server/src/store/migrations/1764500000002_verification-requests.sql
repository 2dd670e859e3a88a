-- Up Migration
-- Merchants' requests for verification (issue 25), made in the dashboard and decided by the
-- operator: one row per account, its latest request (a new one replaces it). Whether the account
-- operates in production stays `accounts.verified`.

CREATE TABLE verification_requests (
  -- The account's id.
  id text COLLATE "C" PRIMARY KEY REFERENCES accounts (id),
  legal_name text NOT NULL,
  document_type text NOT NULL CHECK (document_type IN ('CPF', 'CNPJ')),
  document text NOT NULL,
  status text NOT NULL CHECK (status IN ('requested', 'verified', 'rejected')),
  -- The requesting user's id and e-mail address then, as text: a removed member's request stays.
  requested_by_user_id text COLLATE "C" NOT NULL,
  requested_by_email text NOT NULL,
  created_at timestamptz(3) NOT NULL,
  decided_at timestamptz(3),
  rejection_reason text,
  updated_at timestamptz(3) NOT NULL,
  CONSTRAINT verification_requests_reason_when_rejected CHECK ((status = 'rejected') = (rejection_reason IS NOT NULL))
);
CREATE INDEX verification_requests_by_status ON verification_requests (status, created_at DESC, id COLLATE "C" DESC);

-- Down Migration
DROP TABLE verification_requests;
