-- Games, their append-only event log, command ids for idempotency, and player credentials.
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
);
CREATE INDEX games_by_status ON games (status, ord);

CREATE TABLE events (
    game_id        TEXT NOT NULL REFERENCES games (id),
    seq            BIGINT NOT NULL,
    event_type     TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    payload        JSONB NOT NULL,
    seat           INTEGER,
    command_id     TEXT,
    recorded_at    TIMESTAMPTZ NOT NULL,
    prev_hash      TEXT NOT NULL,
    hash           TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE command_ids (
    game_id    TEXT NOT NULL REFERENCES games (id),
    command_id TEXT NOT NULL,
    first_seq  BIGINT NOT NULL,
    last_seq   BIGINT NOT NULL,
    PRIMARY KEY (game_id, command_id)
);

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
