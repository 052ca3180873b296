-- Who took each seat or seated a bot, as the per-client limits name a client (an address, an
-- IPv6 /64), and when: written with the seat, in its transaction, so that the limit on seats
-- one client takes is counted across every server process on the database. Rows older than an
-- hour are never read (the sweep deletes them).
CREATE TABLE seat_takes (
    game_id  TEXT NOT NULL,
    seat     INTEGER NOT NULL,
    client   TEXT NOT NULL,
    taken_at TEXT NOT NULL
);

CREATE INDEX seat_takes_client ON seat_takes (client, taken_at);
