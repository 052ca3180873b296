-- Games listed without their histories, games a bot is due in, one holder per seat.
--
-- `players`: the seat count, read by listings. Backfilled from each game's first event.
ALTER TABLE games ADD COLUMN players INTEGER NOT NULL DEFAULT 0;
UPDATE games SET players = COALESCE((SELECT json_extract(e.payload, '$.players') FROM events e
    WHERE e.game_id = games.id AND e.seq = 1 AND e.event_type = 'game_created'), 0);

-- `bot_awaited`: whether the last append left a bot to act; every active game is checked once.
ALTER TABLE games ADD COLUMN bot_awaited INTEGER NOT NULL DEFAULT 0;
UPDATE games SET bot_awaited = 1 WHERE status = 'active';
-- On the id, not on a column every append changes: appends stay HOT updates.
CREATE INDEX games_awaiting_bots ON games (id) WHERE bot_awaited AND status = 'active';

-- Games half-made by older versions (a row, no events) stay hidden: every read of games asks
-- for `version > 0`.
UPDATE games SET bot_awaited = 0 WHERE version = 0;

-- One holder per seat, whichever process seats them.
CREATE UNIQUE INDEX credentials_one_per_seat ON credentials (game_id, seat) WHERE seat IS NOT NULL;
