-- Shares committed before any is seen: a seat may send the SHA-256 commitment to its share with
-- the seat (`share_commitment`), and the share itself (`entropy`) once the host has closed the
-- table. `reveal_by` (milliseconds since the Unix epoch) is set when the host closes a lobby
-- whose seats committed: no seat is taken or given back after it, and the host may start
-- without a share not revealed by then.
ALTER TABLE credentials ADD COLUMN share_commitment TEXT;
ALTER TABLE games ADD COLUMN reveal_by INTEGER;
