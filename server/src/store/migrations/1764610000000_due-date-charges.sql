-- Up Migration
-- Issue 38: a charge with a due date keeps its terms, the plan's fee when it was created, and once
-- paid the breakdown of what was paid (`DueDateChargeRecord` in domain/core/model.ts); null on
-- every other charge. The row's amount_cents is the original amount until paid, then the amount
-- paid (records 0052, 0053).
ALTER TABLE transactions ADD COLUMN due_date_charge jsonb;

-- Down Migration
ALTER TABLE transactions DROP COLUMN due_date_charge;
