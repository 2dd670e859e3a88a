-- Up Migration
-- The merchant's CNPJ or CPF, shown on the hosted checkout and receipt (docs/decisions.md "Merchant
-- document"). Digits only, as customers keep theirs. Accounts opened before it have none: both
-- columns are null, and they are null or set together.
ALTER TABLE accounts
  ADD COLUMN document_type text CHECK (document_type IN ('CPF', 'CNPJ')),
  ADD COLUMN document text,
  ADD CONSTRAINT accounts_document_with_type CHECK ((document_type IS NULL) = (document IS NULL));

-- Down Migration
ALTER TABLE accounts
  DROP CONSTRAINT accounts_document_with_type,
  DROP COLUMN document,
  DROP COLUMN document_type;
