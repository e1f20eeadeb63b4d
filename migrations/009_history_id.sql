-- history_identity names this history: a random id made once, with the database. The feed
-- carries it, so that an agent that followed another history (a control plane whose data
-- directory was replaced) notices, and takes a fresh snapshot instead of a delta that
-- would apply one history's changes to the other's state.
CREATE TABLE history_identity (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    history TEXT    NOT NULL
);
INSERT INTO history_identity (id, history) VALUES (1, lower(hex(randomblob(16))));
