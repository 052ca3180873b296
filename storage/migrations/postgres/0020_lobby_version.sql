-- The lobby's version: raised by every write to a lobby (a seat taken, claimed, given back or
-- renamed, a key kept, the lobby closed, a share revealed) in that write's transaction. A signed
-- lobby act names it and is written only while the lobby is still at it, so a signature made
-- for one moment of the lobby is never spent at another.
ALTER TABLE games ADD COLUMN lobby_version BIGINT NOT NULL DEFAULT 0;
