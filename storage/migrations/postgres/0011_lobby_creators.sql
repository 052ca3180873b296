-- Who made each game, as the per-client limits name a client (an address, an IPv6 /64): the
-- cap on lobbies per client is counted here, so it holds across every server process on the
-- database.
CREATE TABLE lobby_creators (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    client TEXT NOT NULL
);

CREATE INDEX lobby_creators_client ON lobby_creators (client);
