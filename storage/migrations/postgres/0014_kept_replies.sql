-- The first reply to a creation or a rematch sent with an `Idempotency-Key`, written in the
-- transaction that makes the game, so that a retry answers it again (the host's token
-- included) through any process, after a restart and after a failover. `scope` names who may
-- get it back: `create <client>` (the client as the per-client limits name it) or
-- `rematch <game>` (the finished game, whose host alone may ask). `request` is the SHA-256 of
-- the request, so the key sent with another is refused. A reply holds a host token: it is kept
-- for a day (the server's sweep deletes older ones each minute) and never read after that.
CREATE TABLE kept_replies (
    scope      TEXT NOT NULL,
    idem_key   TEXT NOT NULL,
    request    TEXT NOT NULL,
    game_id    TEXT NOT NULL,
    reply      TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (scope, idem_key)
);

CREATE INDEX kept_replies_created ON kept_replies (created_at);
