-- Turn clocks: the deadline of the awaited decision (milliseconds since the Unix epoch),
-- written with every append of a clocked game; the sweep times out games past it.
ALTER TABLE games ADD COLUMN deadline INTEGER;
CREATE INDEX games_deadline ON games (deadline) WHERE deadline IS NOT NULL AND status = 'active';
