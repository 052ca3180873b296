-- The latest time the server signed for each game in a refusal or a commitment (milliseconds
-- since the Unix epoch): no later event or receipt of the game is stamped earlier, across
-- restarts and processes, so a clock corrected backwards cannot make a signed refusal
-- contradict the record.
CREATE TABLE signed_times (
    game_id TEXT PRIMARY KEY,
    floor_ms BIGINT NOT NULL
);
