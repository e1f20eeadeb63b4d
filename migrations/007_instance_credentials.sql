-- Per-instance credentials, and revocations that last. A token of role dataplane is now a
-- join token: an agent exchanges it once for a credential of role instance, bound to its
-- instance name (instance). A deleted token keeps its row, with revoked_at set, so that a
-- secret given again at a start (RESTYPLANE_DATAPLANE_TOKEN) is known as revoked instead of
-- made anew; a revoked credential keeps its instance's name from being joined again until
-- an admin forgets the instance. SQLite cannot change a CHECK constraint or a column's
-- UNIQUE in place, so the table is rebuilt with its rows.
CREATE TABLE tokens_new (
    id           INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL,
    role         TEXT    NOT NULL CHECK (role IN ('viewer', 'editor', 'admin', 'dataplane', 'instance')),
    hash         BLOB    NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    instance     TEXT    UNIQUE, -- role instance: the instance name the credential speaks for
    revoked_at   INTEGER,        -- unix nanoseconds; NULL while the token is valid
    CHECK ((role = 'instance') = (instance IS NOT NULL))
);
INSERT INTO tokens_new (id, name, role, hash, created_at, last_used_at)
    SELECT id, name, role, hash, created_at, last_used_at FROM tokens;
DROP TABLE tokens;
ALTER TABLE tokens_new RENAME TO tokens;
-- A name is unique among the valid API tokens; credentials are named by their instance.
CREATE UNIQUE INDEX tokens_by_live_name ON tokens (name) WHERE revoked_at IS NULL AND instance IS NULL;
