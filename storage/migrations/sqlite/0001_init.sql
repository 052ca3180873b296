-- Games, their append-only event log, and player credentials.
CREATE TABLE games (
    id              TEXT PRIMARY KEY,
    ord             INTEGER NOT NULL UNIQUE,
    ruleset         TEXT NOT NULL,
    options         TEXT NOT NULL,
    status          TEXT NOT NULL,
    version         INTEGER NOT NULL DEFAULT 0,
    last_hash       TEXT NOT NULL,
    seed_commitment TEXT NOT NULL,
    seed            BLOB,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX games_by_status ON games (status, ord);

CREATE TABLE events (
    game_id        TEXT NOT NULL REFERENCES games (id),
    seq            INTEGER NOT NULL,
    event_type     TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    payload        TEXT NOT NULL,
    seat           INTEGER,
    command_id     TEXT,
    batch_last_seq INTEGER NOT NULL,
    recorded_at    TEXT NOT NULL,
    prev_hash      TEXT NOT NULL,
    hash           TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
-- A command id is recorded on the first event of its batch, once per game: retrying the
-- command finds the original batch (seq .. batch_last_seq) instead of appending again.
CREATE UNIQUE INDEX events_by_command ON events (game_id, command_id) WHERE command_id IS NOT NULL;


CREATE TABLE credentials (
    game_id      TEXT NOT NULL REFERENCES games (id),
    token_hash   TEXT NOT NULL,
    role         TEXT NOT NULL,
    seat         INTEGER,
    display_name TEXT,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (game_id, token_hash)
);

-- The log is immutable.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
