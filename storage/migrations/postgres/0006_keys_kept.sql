-- `server_keys` is append-only: a key is never deleted nor changed, only retired once (its
-- `retired_at` set when it is NULL), so every receipt and checkpoint it signed stays checkable.
CREATE FUNCTION server_keys_are_kept() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'server keys are kept for ever';
    END IF;
    IF OLD.retired_at IS NOT NULL
        OR NEW.retired_at IS NULL
        OR NEW.id IS DISTINCT FROM OLD.id
        OR NEW.public_key IS DISTINCT FROM OLD.public_key
        OR NEW.secret_key IS DISTINCT FROM OLD.secret_key
        OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
        RAISE EXCEPTION 'a server key is only ever retired';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER server_keys_no_delete BEFORE DELETE ON server_keys
    FOR EACH ROW EXECUTE FUNCTION server_keys_are_kept();
CREATE TRIGGER server_keys_only_retired BEFORE UPDATE ON server_keys
    FOR EACH ROW EXECUTE FUNCTION server_keys_are_kept();
