-- retention is the one row of the history's retention policy and of how far it has pruned.
-- It is not part of the config: a rollback must never restore an old retention policy,
-- and changing it must not make a revision or reload nginx. Zero keep_revisions is off.
-- floor is the oldest revision that may be read: revisions below it were pruned, although
-- some of their rows stay because a kept state or a kept row's body_of needs them.
CREATE TABLE retention (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    keep_revisions INTEGER NOT NULL DEFAULT 0 CHECK (keep_revisions >= 0),
    keep_days      INTEGER NOT NULL DEFAULT 0 CHECK (keep_days >= 0),
    floor          INTEGER NOT NULL DEFAULT 0
);
INSERT INTO retention (id) VALUES (1);

-- A prune looks up the rows that point at bodies at or below its cutoff; only rollback
-- rows have a body_of, so this index stays small.
CREATE INDEX object_versions_by_body_of ON object_versions (body_of) WHERE body_of IS NOT NULL;
