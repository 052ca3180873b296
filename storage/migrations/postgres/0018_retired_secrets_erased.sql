-- A retired signing key signs nothing more: its secret half is erased when it is retired, so a
-- copy of the store taken later holds the active key's secret only. Everything else of a key is
-- kept as it was (every receipt and checkpoint it signed stays checkable): a key is retired once,
-- its secret half dropped then or later, and nothing else of it ever changes.
CREATE OR REPLACE FUNCTION server_keys_are_kept() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'server keys are kept for ever';
    END IF;
    IF NEW.retired_at IS NULL
        OR (OLD.retired_at IS NOT NULL AND NEW.retired_at IS DISTINCT FROM OLD.retired_at)
        OR (NEW.secret_key IS NOT NULL AND NEW.secret_key IS DISTINCT FROM OLD.secret_key)
        OR NEW.id IS DISTINCT FROM OLD.id
        OR NEW.public_key IS DISTINCT FROM OLD.public_key
        OR NEW.created_at IS DISTINCT FROM OLD.created_at
        OR NEW.endorsement IS DISTINCT FROM OLD.endorsement THEN
        RAISE EXCEPTION 'a server key is only ever retired, its secret half erased';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
UPDATE server_keys SET secret_key = NULL WHERE retired_at IS NOT NULL AND secret_key IS NOT NULL;
