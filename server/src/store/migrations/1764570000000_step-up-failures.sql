-- Up Migration
-- Issue 33: a user's wrong step-up codes, counted whichever session sent them; past the budget,
-- step-up is refused until `locked_until`
-- (docs/decisions/0040-enrolment-asks-the-password-and-step-up-failures-lock.md). Deleted with the user.
CREATE TABLE step_up_failures (
  id text COLLATE "C" PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  failures integer NOT NULL CHECK (failures >= 0),
  window_started_at timestamptz(3) NOT NULL,
  locked_until timestamptz(3),
  updated_at timestamptz(3) NOT NULL
);

-- Down Migration
DROP TABLE step_up_failures;
