-- Games listed without their histories, games a bot is due in, one holder per seat.
--
-- `players`: the seat count, read by listings (before, each listed game's log was loaded).
-- Backfilled from each game's first event.
ALTER TABLE games ADD COLUMN players INTEGER NOT NULL DEFAULT 0;
UPDATE games SET players = (e.payload ->> 'players')::int
    FROM events e
    WHERE e.game_id = games.id AND e.seq = 1 AND e.event_type = 'game_created';

-- `bot_awaited`: whether the last append left a bot to act (its vote or its turn), written by
-- every append, so a sweep finds games whose bot's move was never recorded (a crash, an
-- outage). Every active game is checked once.
ALTER TABLE games ADD COLUMN bot_awaited BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE games SET bot_awaited = TRUE WHERE status = 'active';
-- On the id, not on a column every append changes: appends stay HOT updates.
CREATE INDEX games_awaiting_bots ON games (id) WHERE bot_awaited AND status = 'active';

-- Games half-made by older versions (a row, no events: creation was three writes then, one
-- transaction now) cannot be repaired (their seat count was never recorded) and cannot be
-- deleted: they stay hidden, as every read of games asks for `version > 0`.
UPDATE games SET bot_awaited = FALSE WHERE version = 0;
COMMENT ON COLUMN games.version IS 'events in the log; 0 only for games half-made by versions before 0003, hidden from every read';

-- One holder per seat, whichever process seats them.
CREATE UNIQUE INDEX credentials_one_per_seat ON credentials (game_id, seat) WHERE seat IS NOT NULL;
