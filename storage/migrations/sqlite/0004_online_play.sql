-- Playing online: turn clocks and rematches.

-- Turn clocks: the deadline of the awaited decision (milliseconds since the Unix epoch),
-- written with every append of a clocked game; the sweep times out games past it.
ALTER TABLE games ADD COLUMN deadline INTEGER;
CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL AND status = 'active';

-- Rematches: the game a game was created from, once at most (the series follows the links).
ALTER TABLE games ADD COLUMN previous_game TEXT;
CREATE UNIQUE INDEX games_previous ON games (previous_game) WHERE previous_game IS NOT NULL;
