-- A rollback restores thousands of objects to versions the history already holds. Its rows
-- point at the row that holds each body instead of repeating it: body_of is the revision of
-- that row (same kind and name), and body and secret stay NULL. A row is never removed while
-- another row's body_of names it.
ALTER TABLE object_versions ADD COLUMN body_of INTEGER;
