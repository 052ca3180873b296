-- A key's proof of possession (128 hex digits): its holder's signature of the statement
-- {"scheme": "saboteur-key-v1", "game", "key"}, sent with the key when taking or claiming the
-- seat and recorded with it at the start (`seat_key_registered`'s `proof`).
ALTER TABLE credentials ADD COLUMN key_proof TEXT;
