-- The server's signing keys and the transparency log of finished games.
--
-- `server_keys`: every key the server has signed with, kept for ever so old receipts stay
-- checkable; one is active (`retired_at` NULL), whichever process created it. `secret_key` is
-- NULL for a key read from a file (`--signing-key-file`): only its public half is published.
CREATE TABLE server_keys (
    id          TEXT PRIMARY KEY,
    public_key  TEXT NOT NULL UNIQUE,
    secret_key  BLOB,
    created_at  TEXT NOT NULL,
    retired_at  TEXT
);
CREATE UNIQUE INDEX server_keys_one_active ON server_keys ((retired_at IS NULL))
    WHERE retired_at IS NULL;

-- `transparency_log`: one entry per finished game, hash-chained in order (`seq` from 1).
CREATE TABLE transparency_log (
    seq        INTEGER PRIMARY KEY,
    game_id    TEXT NOT NULL UNIQUE REFERENCES games (id),
    version    INTEGER NOT NULL,
    head       TEXT NOT NULL,
    prev_hash  TEXT NOT NULL,
    hash       TEXT NOT NULL,
    logged_at  TEXT NOT NULL
);
CREATE TRIGGER transparency_log_no_update BEFORE UPDATE ON transparency_log
BEGIN
    SELECT RAISE(ABORT, 'the transparency log is append-only');
END;
CREATE TRIGGER transparency_log_no_delete BEFORE DELETE ON transparency_log
BEGIN
    SELECT RAISE(ABORT, 'the transparency log is append-only');
END;
