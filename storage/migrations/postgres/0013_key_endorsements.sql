-- Each signing key after the first is published with the previous key's signature of it (its
-- endorsement), so a client that kept the first key can follow every rotation from it. Absent
-- for the first key, for keys rotated in before endorsements existed, and for a key rotated in
-- after one kept outside the store.
ALTER TABLE server_keys ADD COLUMN endorsement TEXT;
