-- An event's hash and the one before it as their 32 bytes, not 64 hex characters: 64 bytes less
-- in every event row and in the WAL of every append (the server reads and writes them as hex,
-- as before, through encode and decode). A value that is not a hash, which only a hand in the
-- database can leave, is kept as its own bytes and reads back as their hex: it still matches
-- nothing, and verification names it.
ALTER TABLE events
    ALTER COLUMN prev_hash TYPE BYTEA USING CASE WHEN prev_hash ~ '^[0-9a-f]{64}$'
        THEN decode(prev_hash, 'hex') ELSE convert_to(prev_hash, 'UTF8') END,
    ALTER COLUMN hash TYPE BYTEA USING CASE WHEN hash ~ '^[0-9a-f]{64}$'
        THEN decode(hash, 'hex') ELSE convert_to(hash, 'UTF8') END;
