-- The columns every append changes, last and side by side. An append updates its game's row in
-- place (a HOT update), and PostgreSQL's WAL record of such an update holds the bytes from the
-- first column that changed to the last; with the seed's commitment, the seed and the creation
-- time between `version` and `updated_at`, that was about 190 bytes a move. Each column is added
-- again at the end, filled from the old one, and the old one dropped (a dropped column costs a
-- new row nothing). The indexes on them go with them and are made again, as before.
ALTER TABLE games
    ADD COLUMN version_moved BIGINT,
    ADD COLUMN last_hash_moved TEXT,
    ADD COLUMN updated_at_moved TIMESTAMPTZ,
    ADD COLUMN bot_awaited_moved BOOLEAN,
    ADD COLUMN deadline_moved BIGINT;
UPDATE games SET version_moved = version, last_hash_moved = last_hash,
    updated_at_moved = updated_at, bot_awaited_moved = bot_awaited, deadline_moved = deadline;
ALTER TABLE games
    DROP COLUMN version,
    DROP COLUMN last_hash,
    DROP COLUMN updated_at,
    DROP COLUMN bot_awaited,
    DROP COLUMN deadline;
ALTER TABLE games RENAME COLUMN version_moved TO version;
ALTER TABLE games RENAME COLUMN last_hash_moved TO last_hash;
ALTER TABLE games RENAME COLUMN updated_at_moved TO updated_at;
ALTER TABLE games RENAME COLUMN bot_awaited_moved TO bot_awaited;
ALTER TABLE games RENAME COLUMN deadline_moved TO deadline;
ALTER TABLE games
    ALTER COLUMN version SET NOT NULL,
    ALTER COLUMN version SET DEFAULT 0,
    ALTER COLUMN last_hash SET NOT NULL,
    ALTER COLUMN updated_at SET NOT NULL,
    ALTER COLUMN bot_awaited SET NOT NULL,
    ALTER COLUMN bot_awaited SET DEFAULT FALSE;
COMMENT ON COLUMN games.version IS 'events in the log; 0 only for games half-made by versions before 0003, hidden from every read';
CREATE INDEX games_awaiting_bots ON games (id) WHERE bot_awaited AND status = 'active';
CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL AND status = 'active';
