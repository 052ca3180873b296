-- A player's share in the seed of the deals (64 hex digits), sent when taking the seat and
-- mixed into the seed at the start (the `seed_mixed` event records it).
ALTER TABLE credentials ADD COLUMN entropy TEXT;
