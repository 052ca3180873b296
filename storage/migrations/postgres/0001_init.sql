-- Games, their append-only event log, and player credentials.
CREATE TABLE games (
    id              TEXT PRIMARY KEY,
    ord             BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    ruleset         TEXT NOT NULL,
    options         JSONB NOT NULL,
    status          TEXT NOT NULL,
    version         BIGINT NOT NULL DEFAULT 0,
    last_hash       TEXT NOT NULL,
    seed_commitment TEXT NOT NULL,
    seed            BYTEA,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
) WITH (fillfactor = 50); -- room for HOT updates of version and last_hash on every append
CREATE INDEX games_by_status ON games (status, ord);

CREATE TABLE events (
    game_id        TEXT NOT NULL REFERENCES games (id),
    seq            BIGINT NOT NULL,
    event_type     TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    payload        JSONB NOT NULL,
    seat           INTEGER,
    command_id     TEXT,
    batch_last_seq BIGINT NOT NULL,
    recorded_at    TIMESTAMPTZ NOT NULL,
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
    created_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (game_id, token_hash)
);

-- The log is immutable.
CREATE FUNCTION events_are_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_append_only();
