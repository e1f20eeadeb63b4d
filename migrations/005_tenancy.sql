-- auto_rollback is 0 for a revision its writer marked not to be rolled back automatically
-- (X-Auto-Rollback: off or ?autoRollback=false); the applier never undoes it on its own.
ALTER TABLE revisions ADD COLUMN auto_rollback INTEGER NOT NULL DEFAULT 1;

-- count lets one audit row stand for a burst of the same event from one client: failed
-- logins are aggregated per client address and minute, so that a flood of them cannot grow
-- the database without bound.
ALTER TABLE audit_events ADD COLUMN count INTEGER NOT NULL DEFAULT 1;

-- skipped lists, as JSON, the objects an apply could not apply and why (a name that does
-- not resolve, a shared dict that is full); the rest of the apply went live.
ALTER TABLE applies ADD COLUMN skipped TEXT NOT NULL DEFAULT '';
