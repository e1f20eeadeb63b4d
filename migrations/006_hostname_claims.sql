-- hostname_claims says which Kubernetes namespace holds each hostname its Ingresses may
-- route. A row is made when a namespace first names an unclaimed hostname ('claim') or when
-- an admin grants it ('grant'); since is when, in unix nanoseconds. A claim is released
-- when no Ingress of its namespace names the hostname any more; a grant only by an admin.
CREATE TABLE hostname_claims (
    hostname  TEXT    PRIMARY KEY,
    namespace TEXT    NOT NULL,
    since     INTEGER NOT NULL,
    how       TEXT    NOT NULL CHECK (how IN ('claim', 'grant'))
) WITHOUT ROWID;
