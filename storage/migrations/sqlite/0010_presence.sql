-- Who follows which game live, shared by every server process on the database: each process
-- records its open event streams per game and seat (-1: spectators) and beats in
-- `presence_processes`; a process that stops beating is forgotten.
CREATE TABLE presence_processes (
    process TEXT PRIMARY KEY,
    beat_at BIGINT NOT NULL
);

CREATE TABLE presence (
    process TEXT NOT NULL,
    game_id TEXT NOT NULL,
    seat BIGINT NOT NULL,
    streams BIGINT NOT NULL,
    PRIMARY KEY (process, game_id, seat)
);
