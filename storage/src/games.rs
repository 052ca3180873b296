//! Games: created whole in one transaction, read back, listed a page at a time, and found when
//! a bot is due in them.

use chrono::{DateTime, Utc};
use sqlx::{Row, types::Json};

use crate::backend::{
    Backend, CREDENTIAL_COLUMNS, GAME_COLUMNS, credential_from_row, game_from_row, on_pool,
    on_writer,
};
use crate::error::{Result, StoreError, is_unique_violation};
use crate::ids::{GameId, Version};
use crate::records::{Credential, GamePage, GameRecord, GameStatus, ListedGame, NewEvent, NewGame};
use crate::replies::KeptReply;
use crate::{EventStore, append::batch_json};
use saboteur_verifier::hash::GENESIS;

/// A game's ruleset and options as the games table stores them.
fn stored(game: &NewGame) -> Result<(String, serde_json::Value)> {
    let options = serde_json::to_value(game.options)
        .map_err(|e| StoreError::Corrupt(format!("options: {e}")))?;
    let ruleset = serde_json::to_value(game.ruleset)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    Ok((ruleset, options))
}

/// A new game's version and head hash once its first events are recorded, known before they
/// are (so that the reply to its creation can be signed and kept with it).
pub fn first_head(game_id: &GameId, first_events: &[NewEvent]) -> (Version, String) {
    let head = batch_json(game_id, Version::of(1), GENESIS, first_events, None).head;
    (Version::of(0).plus(first_events.len()), head)
}

impl EventStore {
    /// Inserts a game's row: `$1` id, `$2` ruleset, `$3` options, `$4` status, `$5` players,
    /// `$6` version, `$7` last hash, `$8` seed commitment, `$9` seed, `$10`/`$11` times. `ord`
    /// numbers games in creation order, for cursor pagination (PostgreSQL fills it from an
    /// identity column; SQLite has a single writer).
    fn insert_game_sql(&self) -> &'static str {
        match self.backend {
            Backend::Postgres(_) => {
                "INSERT INTO games (id, ruleset, options, status, players, version, last_hash, \
                 seed_commitment, seed, created_at, updated_at, previous_game) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
            }
            Backend::Sqlite(_) => {
                "INSERT INTO games (id, ruleset, options, status, players, version, last_hash, \
                 seed_commitment, seed, created_at, updated_at, previous_game, ord) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, \
                 (SELECT COALESCE(MAX(ord), 0) + 1 FROM games))"
            }
        }
    }

    /// Creates a game whole, in one transaction: its row, its first events (hash-chained from
    /// [`GENESIS`]) and its host's credential. A game exists with all three or not at all.
    #[tracing::instrument(level = "debug", skip_all, fields(game = %game.id))]
    pub async fn create_game(
        &self,
        game: NewGame,
        host: Credential,
        first_events: Vec<NewEvent>,
    ) -> Result<GameRecord> {
        self.create_game_seated(game, host, Vec::new(), first_events)
            .await
    }

    /// [`EventStore::create_game`] with seats already held (a rematch's bots and reserved
    /// seats), in the same transaction. A game that already has a rematch is
    /// [`StoreError::Exists`].
    pub async fn create_game_seated(
        &self,
        game: NewGame,
        host: Credential,
        seats: Vec<Credential>,
        first_events: Vec<NewEvent>,
    ) -> Result<GameRecord> {
        self.create_game_kept(game, host, seats, first_events, None)
            .await
    }

    /// [`EventStore::create_game_seated`], keeping the reply to the act that made the game in
    /// the same transaction (kept for [`crate::KEPT_FOR`], see [`EventStore::forget_kept_replies`]).
    /// A reply already kept for that scope and key is [`StoreError::Exists`], and no game is
    /// made.
    pub async fn create_game_kept(
        &self,
        game: NewGame,
        host: Credential,
        seats: Vec<Credential>,
        first_events: Vec<NewEvent>,
        kept: Option<&KeptReply>,
    ) -> Result<GameRecord> {
        if first_events.is_empty() {
            return Err(StoreError::Invalid("a game starts with an event".into()));
        }
        let now = Utc::now();
        let version = Version::of(0).plus(first_events.len());
        let chained = batch_json(&game.id, Version::of(1), GENESIS, &first_events, None);
        let (batch, last_hash) = (chained.rows, chained.head);
        let (ruleset, options) = stored(&game)?;
        let insert_game = self.insert_game_sql();
        let insert_events = match self.backend {
            Backend::Postgres(_) => {
                "INSERT INTO events (game_id, seq, event_type, schema_version, payload, seat, \
                 command_id, batch_last_seq, recorded_at, prev_hash, hash) \
                 SELECT $1, x.seq, x.event_type, x.schema_version, x.payload, x.seat, \
                 x.command_id, x.batch_last_seq, $2, decode(x.prev_hash, 'hex'), \
                 decode(x.hash, 'hex') \
                 FROM jsonb_to_recordset($3::jsonb) AS x(seq bigint, event_type text, \
                 schema_version int, payload jsonb, seat int, command_id text, \
                 batch_last_seq bigint, prev_hash text, hash text)"
            }
            Backend::Sqlite(_) => crate::append::SQLITE_INSERT_EVENTS,
        };
        let result = on_writer!(self, pool => {
            async {
                let mut tx = pool.begin().await?;
                sqlx::query(insert_game)
                    .bind(&game.id)
                    .bind(&ruleset)
                    .bind(Json(&options))
                    .bind(GameStatus::Lobby.as_str())
                    .bind(i32::from(game.players))
                    .bind(version)
                    .bind(&last_hash)
                    .bind(&game.seed_commitment)
                    .bind(&game.seed)
                    .bind(now)
                    .bind(now)
                    .bind(&game.previous)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(insert_events)
                    .bind(&game.id)
                    .bind(now)
                    .bind(batch.to_string())
                    .execute(&mut *tx)
                    .await?;
                for c in std::iter::once(&host).chain(&seats) {
                    crate::credentials::insert_credential!(c)
                        .execute(&mut *tx)
                        .await?;
                }
                if let Some(client) = &game.creator {
                    sqlx::query("INSERT INTO lobby_creators (game_id, client) VALUES ($1, $2)")
                        .bind(&game.id)
                        .bind(client)
                        .execute(&mut *tx)
                        .await?;
                }
                if let Some(k) = kept {
                    sqlx::query(
                        "INSERT INTO kept_replies (scope, idem_key, request, game_id, reply, \
                         created_at) VALUES ($1, $2, $3, $4, $5, $6)",
                    )
                    .bind(&k.scope)
                    .bind(&k.key)
                    .bind(&k.request)
                    .bind(&game.id)
                    .bind(&k.reply)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await
            }
            .await
        });
        match result {
            Ok(()) => self.get_game(&game.id).await,
            Err(e) if is_unique_violation(&e) => Err(StoreError::Exists),
            Err(e) => Err(e.into()),
        }
    }

    /// Writes a game's row alone, with no events and no credential: what versions before
    /// one-transaction creation could leave behind when killed, and what the store's own
    /// tests append to from version 0. Not for creating games: see [`EventStore::create_game`].
    /// Only with the `testing` feature.
    #[cfg(feature = "testing")]
    pub async fn create_game_row(&self, game: NewGame) -> Result<()> {
        let now = Utc::now();
        let (ruleset, options) = stored(&game)?;
        let sql = self.insert_game_sql();
        let result = on_writer!(self, pool => {
            sqlx::query(sql)
                .bind(&game.id)
                .bind(&ruleset)
                .bind(Json(&options))
                .bind(GameStatus::Lobby.as_str())
                .bind(i32::from(game.players))
                .bind(0_i64)
                .bind(GENESIS)
                .bind(&game.seed_commitment)
                .bind(&game.seed)
                .bind(now)
                .bind(now)
                .bind(&game.previous)
                .execute(pool)
                .await
                .map(|r| r.rows_affected())
        });
        crate::error::inserted(result)
    }

    /// A game's row. A game without events (half-made by an older version) is not found.
    pub async fn get_game(&self, id: &GameId) -> Result<GameRecord> {
        match self.row(id).await? {
            g if g.version > Version::of(0) => Ok(g),
            _ => Err(StoreError::NotFound),
        }
    }

    /// A game's row, events or not.
    pub(crate) async fn row(&self, id: &GameId) -> Result<GameRecord> {
        let sql = format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1");
        on_pool!(self, pool => {
            match sqlx::query(&sql).bind(id).fetch_optional(pool).await? {
                Some(row) => game_from_row!(row),
                None => Err(StoreError::NotFound),
            }
        })
    }

    /// The games, oldest first, optionally of one status, a page at a time, each with its
    /// credentials: two queries for a page, however many games it holds. A row that cannot
    /// be read is skipped (and logged), never failing the page; games without events are
    /// never listed.
    pub async fn list_games(
        &self,
        status: Option<GameStatus>,
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<GamePage> {
        self.list_games_since(status, cursor, limit, None).await
    }

    /// How many games nobody started were created at `since` or later: one range of an index
    /// that holds lobbies only, however many older lobbies were abandoned.
    pub async fn count_lobbies(&self, since: DateTime<Utc>) -> Result<u64> {
        let sql = "SELECT COUNT(*) FROM games WHERE status = 'lobby' AND created_at >= $1 \
                   AND version > 0";
        let n: i64 = on_pool!(self, pool => {
            sqlx::query_scalar(sql).bind(since).fetch_one(pool).await?
        });
        Ok(u64::try_from(n).unwrap_or_default())
    }

    /// When each game nobody started that `client` made at `since` or later, through any
    /// process, was created, oldest first (the caps count them; the oldest frees its place
    /// first, when it expires).
    pub async fn client_lobbies(
        &self,
        client: &str,
        since: DateTime<Utc>,
    ) -> Result<Vec<DateTime<Utc>>> {
        let sql = "SELECT g.created_at FROM lobby_creators c JOIN games g ON g.id = c.game_id \
                   WHERE c.client = $1 AND g.status = 'lobby' AND g.created_at >= $2 \
                   AND g.version > 0 ORDER BY g.created_at";
        Ok(on_pool!(self, pool => {
            sqlx::query_scalar(sql).bind(client).bind(since).fetch_all(pool).await?
        }))
    }

    /// The client that made the game, as the per-client limits name it (recorded with its
    /// creation), if it was recorded: a rematch, and a game made before makers were recorded,
    /// have none.
    pub async fn game_creator(&self, game_id: &GameId) -> Result<Option<String>> {
        let sql = "SELECT client FROM lobby_creators WHERE game_id = $1";
        Ok(on_pool!(self, pool => {
            sqlx::query_scalar(sql).bind(game_id).fetch_optional(pool).await?
        }))
    }

    /// [`EventStore::list_games`], leaving out lobbies created before `lobbies_since` (when
    /// given): expired, they are kept but no longer listed. A page of lobbies starts at the
    /// oldest lobby not expired, so its cost does not grow with the abandoned ones.
    pub async fn list_games_since(
        &self,
        status: Option<GameStatus>,
        cursor: Option<&str>,
        limit: u32,
        lobbies_since: Option<DateTime<Utc>>,
    ) -> Result<GamePage> {
        let after: i64 = match cursor {
            Some(c) => c
                .parse()
                .map_err(|_| StoreError::Invalid(format!("invalid cursor {c:?}")))?,
            None => 0,
        };
        let limit = i64::from(limit.clamp(1, 500));
        let sql = match (status, lobbies_since) {
            (Some(GameStatus::Lobby), Some(_)) => format!(
                "SELECT ord, {GAME_COLUMNS} FROM games WHERE status = $1 AND ord > $2 \
                 AND version > 0 AND created_at >= $4 AND ord >= COALESCE((SELECT MIN(ord) \
                 FROM games WHERE status = 'lobby' AND created_at >= $4), 0) \
                 ORDER BY ord LIMIT $3"
            ),
            (None, Some(_)) => format!(
                "SELECT ord, {GAME_COLUMNS} FROM games WHERE ord > $1 AND version > 0 \
                 AND (status <> 'lobby' OR created_at >= $3) ORDER BY ord LIMIT $2"
            ),
            (Some(_), _) => format!(
                "SELECT ord, {GAME_COLUMNS} FROM games WHERE status = $1 AND ord > $2 \
                 AND version > 0 ORDER BY ord LIMIT $3"
            ),
            (None, None) => format!(
                "SELECT ord, {GAME_COLUMNS} FROM games WHERE ord > $1 AND version > 0 \
                 ORDER BY ord LIMIT $2"
            ),
        };
        let mut records = Vec::new();
        let mut rows_read = 0;
        let mut last = None;
        on_pool!(self, pool => {
            let mut q = sqlx::query(&sql);
            if let Some(s) = status {
                q = q.bind(s.as_str());
            }
            q = q.bind(after).bind(limit);
            if let Some(since) = lobbies_since
                && matches!(status, None | Some(GameStatus::Lobby))
            {
                q = q.bind(since);
            }
            for row in q.fetch_all(pool).await? {
                rows_read += 1;
                last = Some(row.try_get::<i64, _>("ord")?);
                match game_from_row!(row) {
                    Ok(record) => records.push(record),
                    Err(e) => tracing::warn!(ord = ?last, "a game's row cannot be read: {e}"),
                }
            }
        });
        let mut credentials = self.credentials_of(&records).await?;
        let mut winners = self.winners_of(&records).await?;
        let games = records
            .into_iter()
            .map(|record| ListedGame {
                credentials: credentials.remove(&record.id).unwrap_or_default(),
                winners: winners.remove(&record.id),
                record,
            })
            .collect();
        let next_cursor = (rows_read == limit)
            .then_some(last)
            .flatten()
            .map(|o| o.to_string());
        Ok(GamePage { games, next_cursor })
    }

    /// The credentials of several games, by game, in one query.
    async fn credentials_of(
        &self,
        games: &[GameRecord],
    ) -> Result<std::collections::HashMap<GameId, Vec<Credential>>> {
        let mut by_game: std::collections::HashMap<GameId, Vec<Credential>> =
            std::collections::HashMap::new();
        if games.is_empty() {
            return Ok(by_game);
        }
        let ids: Vec<&str> = games.iter().map(|g| g.id.as_str()).collect();
        let ids = serde_json::to_string(&ids)
            .map_err(|e| StoreError::Corrupt(format!("game ids: {e}")))?;
        let sql = match self.backend {
            Backend::Postgres(_) => format!(
                "SELECT {CREDENTIAL_COLUMNS} FROM credentials WHERE game_id IN \
                 (SELECT jsonb_array_elements_text($1::jsonb)) ORDER BY created_at, token_hash"
            ),
            Backend::Sqlite(_) => format!(
                "SELECT {CREDENTIAL_COLUMNS} FROM credentials WHERE game_id IN \
                 (SELECT value FROM json_each($1)) ORDER BY created_at, token_hash"
            ),
        };
        on_pool!(self, pool => {
            for row in sqlx::query(&sql).bind(&ids).fetch_all(pool).await? {
                match credential_from_row!(row) {
                    Ok(c) => by_game.entry(c.game_id.clone()).or_default().push(c),
                    Err(e) => tracing::warn!("a credential cannot be read: {e}"),
                }
            }
        });
        Ok(by_game)
    }

    /// The winners of the finished games among `games`, by game, in one query: each game's
    /// last `game_ended` event's `winners`, found from its last event backwards (a game whose
    /// event cannot be read is left out, and logged).
    async fn winners_of(
        &self,
        games: &[GameRecord],
    ) -> Result<std::collections::HashMap<GameId, Vec<u8>>> {
        let mut by_game = std::collections::HashMap::new();
        let ids: Vec<&str> = games
            .iter()
            .filter(|g| g.status == GameStatus::Finished)
            .map(|g| g.id.as_str())
            .collect();
        if ids.is_empty() {
            return Ok(by_game);
        }
        let ids = serde_json::to_string(&ids)
            .map_err(|e| StoreError::Corrupt(format!("game ids: {e}")))?;
        // Each game's events read backwards from its last, to its last `game_ended` (the
        // last event of a finished game, unless something was recorded after it).
        let sql = match self.backend {
            Backend::Postgres(_) => {
                "SELECT g.id, (SELECT (e.payload -> 'winners')::text FROM events e \
                 WHERE e.game_id = g.id AND e.event_type = 'game_ended' \
                 ORDER BY e.seq DESC LIMIT 1) FROM games g \
                 WHERE g.id IN (SELECT jsonb_array_elements_text($1::jsonb))"
            }
            Backend::Sqlite(_) => {
                "SELECT g.id, (SELECT json_extract(e.payload, '$.winners') FROM events e \
                 WHERE e.game_id = g.id AND e.event_type = 'game_ended' \
                 ORDER BY e.seq DESC LIMIT 1) FROM games g \
                 WHERE g.id IN (SELECT value FROM json_each($1))"
            }
        };
        let rows: Vec<(GameId, Option<String>)> = on_pool!(self, pool => {
            sqlx::query_as(sql).bind(&ids).fetch_all(pool).await?
        });
        for (game, winners) in rows {
            match serde_json::from_str::<Vec<u8>>(winners.as_deref().unwrap_or("null")) {
                Ok(w) => {
                    by_game.insert(game, w);
                }
                Err(e) => tracing::warn!(%game, "a game's winners cannot be read: {e}"),
            }
        }
        Ok(by_game)
    }

    /// Active games a bot is due in (as their last append said), with their versions: a sweep
    /// plays them, whichever process made the append and whatever happened since.
    pub async fn games_awaiting_bots(&self, limit: u32) -> Result<Vec<(GameId, Version)>> {
        let sql = "SELECT id, version FROM games WHERE bot_awaited AND status = 'active' LIMIT $1";
        Ok(on_pool!(self, pool => {
            sqlx::query_as(sql).bind(i64::from(limit)).fetch_all(pool).await?
        }))
    }

    /// Active games that need the server now: a bot is due (as their last append said), or the
    /// awaited decision's deadline is at or before `now` (milliseconds since the Unix epoch).
    pub async fn games_due(&self, now: i64, limit: u32) -> Result<Vec<(GameId, Version)>> {
        let sql = "SELECT id, version FROM games WHERE bot_awaited AND status = 'active' \
                   UNION SELECT id, version FROM games WHERE deadline <= $1 \
                   AND deadline IS NOT NULL AND status = 'active' LIMIT $2";
        Ok(on_pool!(self, pool => {
            sqlx::query_as(sql).bind(now).bind(i64::from(limit)).fetch_all(pool).await?
        }))
    }

    /// The game created as a rematch of `id`, if there is one.
    pub async fn next_game(&self, id: &GameId) -> Result<Option<GameId>> {
        let sql = "SELECT id FROM games WHERE previous_game = $1 AND version > 0";
        let found: Option<(GameId,)> = on_pool!(self, pool => {
            sqlx::query_as(sql).bind(id).fetch_optional(pool).await?
        });
        Ok(found.map(|(id,)| id))
    }

    /// Clears a game's `bot_awaited` if the game is still at `version`: whether it did.
    pub async fn clear_bot_awaited(&self, game_id: &GameId, version: Version) -> Result<bool> {
        let sql = "UPDATE games SET bot_awaited = FALSE WHERE id = $1 AND version = $2";
        let n = on_writer!(self, pool => {
            sqlx::query(sql).bind(game_id).bind(version).execute(pool).await?.rows_affected()
        });
        Ok(n > 0)
    }
}
