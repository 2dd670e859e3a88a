-- Up Migration
-- Issue 36 §2: Pix Automático at the bank. A production recurrence registered at the platform's
-- bank keeps the location of its payload (`POST /locrec`, made before the recurrence, so a lost
-- answer of `POST /rec` is found again by reading the location) and the bank's id of the
-- recurrence (`idRec`, by which the bank's callbacks name it). Its work owed to the bank
-- (registration, cancellation, following the payer's answer and each cycle charge's attempts) is a
-- bank task of kind `recurrence`.
ALTER TABLE recurrences ADD COLUMN bank_loc_id bigint;
ALTER TABLE recurrences ADD COLUMN bank_rec_id text COLLATE "C";
CREATE UNIQUE INDEX recurrences_bank_rec_id ON recurrences (bank_rec_id) WHERE bank_rec_id IS NOT NULL;
ALTER TABLE bank_tasks DROP CONSTRAINT bank_tasks_kind_check;
ALTER TABLE bank_tasks ADD CONSTRAINT bank_tasks_kind_check CHECK (kind IN ('register', 'remove', 'refund', 'recurrence'));

-- Down Migration
DELETE FROM bank_tasks WHERE kind = 'recurrence';
ALTER TABLE bank_tasks DROP CONSTRAINT bank_tasks_kind_check;
ALTER TABLE bank_tasks ADD CONSTRAINT bank_tasks_kind_check CHECK (kind IN ('register', 'remove', 'refund'));
DROP INDEX recurrences_bank_rec_id;
ALTER TABLE recurrences DROP COLUMN bank_rec_id;
ALTER TABLE recurrences DROP COLUMN bank_loc_id;
