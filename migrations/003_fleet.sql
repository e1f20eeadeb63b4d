-- The dataplane role: an agent's token reads the feed and reports, nothing else. SQLite
-- cannot change a CHECK constraint in place, so the table is rebuilt with its rows.
CREATE TABLE tokens_new (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL UNIQUE,
    role         TEXT    NOT NULL CHECK (role IN ('viewer', 'editor', 'admin', 'dataplane')),
    hash         BLOB    NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER
);
INSERT INTO tokens_new (id, name, role, hash, created_at, last_used_at)
    SELECT id, name, role, hash, created_at, last_used_at FROM tokens;
DROP TABLE tokens;
ALTER TABLE tokens_new RENAME TO tokens;

-- instances is the fleet: one row per agent that ever reported, so that the list (and an
-- instance that went silent) survives a restart of the control plane. Whether an agent is
-- connected now is kept in memory only.
CREATE TABLE instances (
    name          TEXT    PRIMARY KEY,
    version       TEXT    NOT NULL DEFAULT '',
    first_seen    INTEGER NOT NULL, -- unix nanoseconds
    last_seen     INTEGER NOT NULL,
    applied       INTEGER NOT NULL DEFAULT 0,
    rejected      INTEGER NOT NULL DEFAULT 0,
    state         TEXT    NOT NULL DEFAULT '',
    last_apply_id INTEGER -- the newest row of applies for this instance
);
