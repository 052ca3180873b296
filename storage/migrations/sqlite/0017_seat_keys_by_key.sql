-- The seats a player's key holds, found by the key: one stream announces every game where
-- that key's seat is awaited (GET /players/{key}/stream).
CREATE INDEX credentials_by_public_key ON credentials (public_key) WHERE public_key IS NOT NULL;
