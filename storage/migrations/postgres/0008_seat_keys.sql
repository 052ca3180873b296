-- A player's Ed25519 public key (64 hex digits), sent when taking or claiming the seat: recorded
-- in the log at the start (the `seat_key_registered` event), after which every act of the seat
-- must carry the player's signature.
ALTER TABLE credentials ADD COLUMN public_key TEXT;
