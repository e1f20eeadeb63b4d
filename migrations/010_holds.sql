-- holds are objects a rollback took back from what Kubernetes had written: rejected is the
-- digest of the content the rollback undid ('' when Kubernetes had deleted the object and
-- the rollback made it again). The reconciler does not write that content again; it
-- releases the hold once the cluster asks for anything else. revision is the rollback's.
CREATE TABLE holds (
    kind     TEXT    NOT NULL,
    name     TEXT    NOT NULL,
    revision INTEGER NOT NULL,
    rejected TEXT    NOT NULL,
    since    INTEGER NOT NULL,
    PRIMARY KEY (kind, name)
) WITHOUT ROWID;
