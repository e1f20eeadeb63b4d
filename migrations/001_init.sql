-- revisions is the history: one row per write, never updated.
CREATE TABLE revisions (
    id           INTEGER PRIMARY KEY,
    parent       INTEGER NOT NULL,
    created_at   INTEGER NOT NULL, -- unix nanoseconds
    actor        TEXT    NOT NULL,
    source       TEXT    NOT NULL,
    message      TEXT    NOT NULL,
    rollback_of  INTEGER,
    change_count INTEGER NOT NULL
);

-- object_versions holds one row per object per revision that changed it, so the history
-- grows with the size of the changes, not with the size of the config. The state at
-- revision N is, for each object, its newest row at or below N unless that row is a delete.
CREATE TABLE object_versions (
    kind     TEXT    NOT NULL,
    name     TEXT    NOT NULL,
    revision INTEGER NOT NULL REFERENCES revisions (id),
    op       TEXT    NOT NULL CHECK (op IN ('create', 'update', 'delete')),
    body     BLOB,    -- the object as JSON, without version or private key; NULL on delete
    secret   BLOB,    -- a certificate's private key; read only by the applier
    PRIMARY KEY (kind, name, revision)
) WITHOUT ROWID;
CREATE INDEX object_versions_by_revision ON object_versions (revision);

CREATE TABLE audit_events (
    id         INTEGER PRIMARY KEY,
    created_at INTEGER NOT NULL,
    actor      TEXT    NOT NULL,
    action     TEXT    NOT NULL,
    target     TEXT    NOT NULL DEFAULT '',
    revision   INTEGER NOT NULL DEFAULT 0,
    outcome    TEXT    NOT NULL,
    detail     TEXT    NOT NULL DEFAULT '',
    remote     TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX audit_events_by_actor ON audit_events (actor, id);
CREATE INDEX audit_events_by_action ON audit_events (action, id);
CREATE INDEX audit_events_by_time ON audit_events (created_at);

-- tokens stores only the SHA-256 of each secret: a leaked database grants nothing.
CREATE TABLE tokens (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL UNIQUE,
    role         TEXT    NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
    hash         BLOB    NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER
);

CREATE TABLE applies (
    id          INTEGER PRIMARY KEY,
    revision    INTEGER NOT NULL,
    instance    TEXT    NOT NULL,
    mode        TEXT    NOT NULL,
    started_at  INTEGER NOT NULL,
    duration_ms REAL    NOT NULL,
    outcome     TEXT    NOT NULL,
    error       TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX applies_by_revision ON applies (revision);
