-- `server_keys` is append-only: a key is never deleted nor changed, only retired once (its
-- `retired_at` set when it is NULL), so every receipt and checkpoint it signed stays checkable.
CREATE TRIGGER server_keys_no_delete BEFORE DELETE ON server_keys
BEGIN
    SELECT RAISE(ABORT, 'server keys are kept for ever');
END;
CREATE TRIGGER server_keys_only_retired BEFORE UPDATE ON server_keys
WHEN OLD.retired_at IS NOT NULL
    OR NEW.retired_at IS NULL
    OR NEW.id IS NOT OLD.id
    OR NEW.public_key IS NOT OLD.public_key
    OR NEW.secret_key IS NOT OLD.secret_key
    OR NEW.created_at IS NOT OLD.created_at
BEGIN
    SELECT RAISE(ABORT, 'a server key is only ever retired');
END;
