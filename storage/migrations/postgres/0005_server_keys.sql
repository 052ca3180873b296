-- The server's signing keys and the transparency log of finished games.
--
-- `server_keys`: every key the server has signed with, kept for ever so old receipts stay
-- checkable; one is active (`retired_at` NULL), whichever process created it. `secret_key` is
-- NULL for a key read from a file (`--signing-key-file`): only its public half is published.
CREATE TABLE server_keys (
    id          TEXT PRIMARY KEY,
    public_key  TEXT NOT NULL UNIQUE,
    secret_key  BYTEA,
    created_at  TIMESTAMPTZ NOT NULL,
    retired_at  TIMESTAMPTZ
);
CREATE UNIQUE INDEX server_keys_one_active ON server_keys ((retired_at IS NULL))
    WHERE retired_at IS NULL;

-- `transparency_log`: one entry per finished game, hash-chained in order (`seq` from 1).
CREATE TABLE transparency_log (
    seq        BIGINT PRIMARY KEY,
    game_id    TEXT NOT NULL UNIQUE REFERENCES games (id),
    version    BIGINT NOT NULL,
    head       TEXT NOT NULL,
    prev_hash  TEXT NOT NULL,
    hash       TEXT NOT NULL,
    logged_at  TIMESTAMPTZ NOT NULL
);
CREATE FUNCTION transparency_log_is_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the transparency log is append-only';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER transparency_log_no_update BEFORE UPDATE ON transparency_log
    FOR EACH ROW EXECUTE FUNCTION transparency_log_is_append_only();
CREATE TRIGGER transparency_log_no_delete BEFORE DELETE ON transparency_log
    FOR EACH ROW EXECUTE FUNCTION transparency_log_is_append_only();
