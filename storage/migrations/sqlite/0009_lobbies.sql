-- Lobbies (games nobody started) by when they were made: counting the ones not yet expired,
-- and finding where a page of them starts, read only their range, however many older lobbies
-- were abandoned.
CREATE INDEX games_lobbies ON games (created_at) WHERE status = 'lobby';
