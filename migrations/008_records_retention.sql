-- keep_records_days is how long apply records and audit events are kept: a retention of
-- their own, applied also while the history's (keep_revisions) is off, so that the reports
-- of a fleet cannot fill the disk over the years.
ALTER TABLE retention ADD COLUMN keep_records_days INTEGER NOT NULL DEFAULT 90 CHECK (keep_records_days >= 1);
