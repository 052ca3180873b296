-- A retired signing key signs nothing more: its secret half is erased when it is retired, so a
-- copy of the store taken later holds the active key's secret only. Everything else of a key is
-- kept as it was (every receipt and checkpoint it signed stays checkable): a key is retired once,
-- its secret half dropped then or later, and nothing else of it ever changes.
DROP TRIGGER server_keys_only_retired;
CREATE TRIGGER server_keys_only_retired BEFORE UPDATE ON server_keys
WHEN NEW.retired_at IS NULL
    OR (OLD.retired_at IS NOT NULL AND NEW.retired_at IS NOT OLD.retired_at)
    OR (NEW.secret_key IS NOT NULL AND NEW.secret_key IS NOT OLD.secret_key)
    OR NEW.id IS NOT OLD.id
    OR NEW.public_key IS NOT OLD.public_key
    OR NEW.created_at IS NOT OLD.created_at
    OR NEW.endorsement IS NOT OLD.endorsement
BEGIN
    SELECT RAISE(ABORT, 'a server key is only ever retired, its secret half erased');
END;
UPDATE server_keys SET secret_key = NULL WHERE retired_at IS NOT NULL AND secret_key IS NOT NULL;
