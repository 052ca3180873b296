//! The append-only event store of Saboteur Server, on sqlx: PostgreSQL in production, SQLite as
//! the embedded default. Both backends keep one contract, checked by one conformance suite.
//!
//! - **Append** a batch of events at an expected version, atomically; a writer that lost the
//!   race gets [`StoreError::Conflict`]; a command id makes the append idempotent.
//! - **Immutability**: triggers refuse UPDATE and DELETE on `events`.
//! - **Tamper evidence**: every event carries `hash = SHA-256(prev_hash ‖ canonical event)`;
//!   [`EventStore::verify_chain`] names the first broken sequence number.
//! - **Live notification** of appends: LISTEN/NOTIFY on PostgreSQL (shared by every server
//!   process on the database), an in-process broadcast on SQLite.
//!
//! The store knows nothing of the game: the caller gives each event's type, schema version
//! and JSON payload.

mod combine;
mod engine;
mod hash;
#[cfg(feature = "testing")]
pub mod testing;

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::postgres::{PgListener, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};
use sqlx::{Row, types::Json};
use tokio::sync::{broadcast, mpsc};

pub use engine::{decode, to_new_event};
pub use hash::{GENESIS, canonical_json, chain_hash, seed_commitment};

/// The PostgreSQL channel appends are announced on.
pub const CHANNEL: &str = "saboteur_events";

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another writer appended first: the expected version is stale.
    #[error("version conflict: expected version {expected}, the game is at {actual}")]
    Conflict {
        /// The version the caller expected.
        expected: i64,
        /// The version the game is at.
        actual: i64,
    },
    /// No game with that id.
    #[error("no such game")]
    NotFound,
    /// A game with that id exists already.
    #[error("a game with that id exists already")]
    Exists,
    /// The request makes no sense (an empty batch, a bad cursor, an unknown URL scheme).
    #[error("{0}")]
    Invalid(String),
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// A migration failed.
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

/// A result of the store.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// A game to create.
#[derive(Debug, Clone)]
pub struct NewGame {
    /// The game's id.
    pub id: String,
    /// `base` or `saboteur2`.
    pub ruleset: String,
    /// The rule variants, as JSON.
    pub options: Value,
    /// Hex SHA-256 of the seed, published at creation.
    pub seed_commitment: String,
    /// The seed, revealed only when the game is `finished`.
    pub seed: Vec<u8>,
    /// The status it starts in, e.g. `lobby`.
    pub status: String,
}

/// A game's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's id.
    pub id: String,
    /// `base` or `saboteur2`.
    pub ruleset: String,
    /// The rule variants.
    pub options: Value,
    /// `lobby`, `active`, `finished`, …
    pub status: String,
    /// How many events the log holds.
    pub version: i64,
    /// The hash of the last event (or [`GENESIS`]).
    pub last_hash: String,
    /// Hex SHA-256 of the seed.
    pub seed_commitment: String,
    /// The seed: only once the game is `finished`.
    pub seed: Option<Vec<u8>>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

/// An event to append.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEvent {
    /// The event's type tag.
    pub event_type: String,
    /// The schema version of its payload.
    pub schema_version: i32,
    /// The event as JSON.
    pub payload: Value,
    /// The acting seat, if a player's.
    pub seat: Option<i32>,
}

/// An event as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredEvent {
    /// The game.
    pub game_id: String,
    /// Its place in the log, from 1.
    pub seq: i64,
    /// The event's type tag.
    pub event_type: String,
    /// The schema version of its payload.
    pub schema_version: i32,
    /// The event as JSON.
    pub payload: Value,
    /// The acting seat, if a player's.
    pub seat: Option<i32>,
    /// The command id of the batch it opened (recorded on a batch's first event only).
    pub command_id: Option<String>,
    /// When it was appended.
    pub recorded_at: DateTime<Utc>,
    /// The previous event's hash.
    pub prev_hash: String,
    /// This event's hash.
    pub hash: String,
}

/// A batch to append to one game.
#[derive(Debug, Clone)]
pub struct Append {
    /// The game.
    pub game_id: String,
    /// The version the writer saw: the batch goes right after it, or not at all.
    pub expected_version: i64,
    /// The hash of the event at `expected_version`, if the writer knows it (saves a read).
    pub prev_hash: Option<String>,
    /// The events, in order (at least one).
    pub events: Vec<NewEvent>,
    /// Makes the append idempotent: a batch with a command id already used appends nothing
    /// and returns the original outcome.
    pub command_id: Option<String>,
    /// A new status for the game, set in the same transaction.
    pub status: Option<String>,
}

/// What an append did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppendOutcome {
    /// The batch is in the log.
    Appended {
        /// The first new sequence number.
        first_seq: i64,
        /// The last new sequence number: the game's new version.
        last_seq: i64,
        /// The hash of the last event.
        last_hash: String,
    },
    /// The command id was used before: nothing was appended; this is the original batch.
    Duplicate {
        /// Its first sequence number.
        first_seq: i64,
        /// Its last sequence number.
        last_seq: i64,
    },
}

/// An append, announced to subscribers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// The game.
    pub game_id: String,
    /// Its new version.
    pub last_seq: i64,
}

/// A page of games.
#[derive(Debug, Clone)]
pub struct GamePage {
    /// The games, oldest first.
    pub games: Vec<GameRecord>,
    /// The cursor of the next page, if there may be one.
    pub next_cursor: Option<String>,
}

/// A stored credential: a hashed bearer token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credential {
    /// The game.
    pub game_id: String,
    /// Hex SHA-256 of the token.
    pub token_hash: String,
    /// `host`, `player` or `bot`.
    pub role: String,
    /// The seat, for players.
    pub seat: Option<i32>,
    /// The name shown to others.
    pub display_name: Option<String>,
    /// When it was issued.
    pub created_at: DateTime<Utc>,
}

/// The result of walking a game's hash chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainReport {
    /// Every hash matches.
    Intact {
        /// How many events were checked.
        events: i64,
    },
    /// The first event whose hash does not match.
    Broken {
        /// Its sequence number.
        seq: i64,
        /// What is wrong.
        reason: String,
    },
}

#[derive(Clone)]
enum Backend {
    Postgres(PgPool),
    Sqlite(SqlitePool),
}

/// Runs the same code on whichever pool the store has: the SQL is written once, with `$n`
/// placeholders each used once and in order, which both databases accept.
macro_rules! on_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match &$store.backend {
            Backend::Postgres($pool) => $body,
            Backend::Sqlite($pool) => $body,
        }
    };
}

/// The event store.
#[derive(Clone)]
pub struct EventStore {
    backend: Backend,
    notify: broadcast::Sender<Appended>,
    /// PostgreSQL: appends waiting to be announced with NOTIFY.
    outbox: Option<mpsc::UnboundedSender<Appended>>,
    /// PostgreSQL: appends waiting to be written, grouped.
    combiner: Option<combine::Combiner>,
}

/// Sends the appends waiting in the outbox with NOTIFY, all that queued up in one message per
/// round trip: one line `game_id last_seq` per game. On a connection of its own that commits
/// asynchronously: a NOTIFY gives its transaction an id, so each would otherwise wait for a WAL
/// flush of its own, competing with the appends' commits; a lost announcement costs nothing
/// durable (the events are committed; listeners read them from the log).
async fn announce(pool: PgPool, mut inbox: mpsc::UnboundedReceiver<Appended>) {
    let mut conn = None;
    while let Some(first) = inbox.recv().await {
        if conn.is_none() {
            conn = match pool.acquire().await {
                Ok(mut c) => match sqlx::query("SET synchronous_commit = off")
                    .execute(&mut *c)
                    .await
                {
                    Ok(_) => Some(c.detach()),
                    Err(e) => {
                        tracing::warn!(error = %e, "could not prepare the announcer");
                        None
                    }
                },
                Err(e) => {
                    tracing::warn!(error = %e, "no connection to announce appends");
                    None
                }
            };
        }
        let mut latest = std::collections::BTreeMap::new();
        latest.insert(first.game_id, first.last_seq);
        while let Ok(more) = inbox.try_recv() {
            let seq = latest.entry(more.game_id).or_insert(more.last_seq);
            *seq = (*seq).max(more.last_seq);
        }
        let lines: Vec<String> = latest
            .into_iter()
            .map(|(g, s)| format!("{g} {s}"))
            .collect();
        // NOTIFY payloads stay under 8000 bytes.
        for chunk in lines.chunks(100) {
            let Some(c) = conn.as_mut() else { break };
            let result = sqlx::query("SELECT pg_notify($1, $2)")
                .bind(CHANNEL)
                .bind(chunk.join("\n"))
                .execute(&mut *c)
                .await;
            if let Err(e) = result {
                tracing::warn!(error = %e, "could not announce appends");
                conn = None;
            }
        }
    }
}

fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

/// A JSON column as each backend stores it: `jsonb` on PostgreSQL, text on SQLite.
trait JsonColumn {
    fn json(&self, column: &str) -> Result<Value>;
}

impl JsonColumn for sqlx::postgres::PgRow {
    fn json(&self, column: &str) -> Result<Value> {
        Ok(self.try_get::<Json<Value>, _>(column)?.0)
    }
}

impl JsonColumn for sqlx::sqlite::SqliteRow {
    fn json(&self, column: &str) -> Result<Value> {
        let text: String = self.try_get(column)?;
        serde_json::from_str(&text)
            .map_err(|e| StoreError::Invalid(format!("stored {column}: {e}")))
    }
}

/// Reads a [`StoredEvent`] from a row of either backend (selected with [`EVENT_COLUMNS`]).
macro_rules! event_from_row {
    ($row:expr) => {{
        let row = &$row;
        StoredEvent {
            game_id: row.try_get("game_id")?,
            seq: row.try_get("seq")?,
            event_type: row.try_get("event_type")?,
            schema_version: row.try_get("schema_version")?,
            payload: row.json("payload")?,
            seat: row.try_get("seat")?,
            command_id: row.try_get("command_id")?,
            recorded_at: row.try_get("recorded_at")?,
            prev_hash: row.try_get("prev_hash")?,
            hash: row.try_get("hash")?,
        }
    }};
}

/// Reads a [`GameRecord`] from a row of either backend (selected with [`GAME_COLUMNS`]); the
/// seed only once the game is finished.
macro_rules! game_from_row {
    ($row:expr) => {{
        let row = &$row;
        let status: String = row.try_get("status")?;
        let seed: Option<Vec<u8>> = row.try_get("seed")?;
        GameRecord {
            id: row.try_get("id")?,
            ruleset: row.try_get("ruleset")?,
            options: row.json("options")?,
            seed: if status == "finished" { seed } else { None },
            status,
            version: row.try_get("version")?,
            last_hash: row.try_get("last_hash")?,
            seed_commitment: row.try_get("seed_commitment")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        }
    }};
}

const EVENT_COLUMNS: &str = "game_id, seq, event_type, schema_version, payload, seat, command_id, \
                             recorded_at, prev_hash, hash";
const GAME_COLUMNS: &str = "id, ruleset, options, status, version, last_hash, seed_commitment, \
                            seed, created_at, updated_at";

/// The events of a batch, hashed and numbered, as the JSON array the insert statements read.
fn batch_json(
    game_id: &str,
    first_seq: i64,
    prev: &str,
    events: &[NewEvent],
    command_id: Option<&str>,
) -> (Value, String) {
    let last_seq = first_seq + events.len() as i64 - 1;
    let mut prev = prev.to_string();
    let mut rows = Vec::with_capacity(events.len());
    for (i, e) in events.iter().enumerate() {
        let seq = first_seq + i as i64;
        let hash = chain_hash(
            &prev,
            game_id,
            seq,
            &e.event_type,
            e.schema_version,
            &e.payload,
        );
        rows.push(serde_json::json!({
            "game_id": game_id,
            "seq": seq,
            "event_type": e.event_type,
            "schema_version": e.schema_version,
            "payload": e.payload,
            "seat": e.seat,
            "prev_hash": prev,
            "hash": hash,
            "command_id": if i == 0 { command_id } else { None },
            "batch_last_seq": last_seq,
        }));
        prev = hash;
    }
    (Value::Array(rows), prev)
}

impl EventStore {
    /// Connects by URL — `postgres://…` or `sqlite://path` (the file is created on first use,
    /// `sqlite::memory:` for a private in-memory database) — and applies the migrations.
    pub async fn connect(url: &str) -> Result<EventStore> {
        let (notify, _) = broadcast::channel(1024);
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let pool = PgPoolOptions::new()
                .max_connections(32)
                .test_before_acquire(false)
                .acquire_timeout(Duration::from_secs(10))
                .connect(url)
                .await?;
            sqlx::migrate!("./migrations/postgres").run(&pool).await?;
            let mut listener = PgListener::connect_with(&pool).await?;
            listener.listen(CHANNEL).await?;
            let tx = notify.clone();
            tokio::spawn(async move {
                while let Ok(n) = listener.recv().await {
                    for line in n.payload().lines() {
                        if let Some((game_id, seq)) = line.rsplit_once(' ')
                            && let Ok(last_seq) = seq.parse()
                        {
                            let game_id = game_id.to_string();
                            let _ = tx.send(Appended { game_id, last_seq });
                        }
                    }
                }
            });
            let (outbox, inbox) = mpsc::unbounded_channel();
            tokio::spawn(announce(pool.clone(), inbox));
            Ok(EventStore {
                combiner: Some(combine::Combiner::start(pool.clone())),
                backend: Backend::Postgres(pool),
                notify,
                outbox: Some(outbox),
            })
        } else if url.starts_with("sqlite:") {
            let memory = url.contains(":memory:");
            let options = SqliteConnectOptions::from_str(url)?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true);
            let pool = SqlitePoolOptions::new()
                .max_connections(if memory { 1 } else { 8 })
                .connect_with(options)
                .await?;
            sqlx::migrate!("./migrations/sqlite").run(&pool).await?;
            Ok(EventStore {
                backend: Backend::Sqlite(pool),
                notify,
                outbox: None,
                combiner: None,
            })
        } else {
            Err(StoreError::Invalid(format!(
                "unsupported database URL {url:?}: use postgres://… or sqlite://path"
            )))
        }
    }

    /// `postgres` or `sqlite`.
    pub fn backend_name(&self) -> &'static str {
        match self.backend {
            Backend::Postgres(_) => "postgres",
            Backend::Sqlite(_) => "sqlite",
        }
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<()> {
        on_pool!(self, pool => { sqlx::query("SELECT 1").execute(pool).await?; });
        Ok(())
    }

    /// Announcements of every append from now on (on PostgreSQL, by any process).
    pub fn subscribe(&self) -> broadcast::Receiver<Appended> {
        self.notify.subscribe()
    }

    /// Creates a game with an empty log.
    #[tracing::instrument(level = "debug", skip(self, game), fields(game = %game.id))]
    pub async fn create_game(&self, game: NewGame) -> Result<GameRecord> {
        let now = Utc::now();
        // `ord` numbers games in creation order, for cursor pagination (PostgreSQL fills it
        // from an identity column; SQLite has a single writer).
        let sql = match self.backend {
            Backend::Postgres(_) => {
                "INSERT INTO games (id, ruleset, options, status, version, \
                 last_hash, seed_commitment, seed, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, 0, $5, $6, $7, $8, $9)"
            }
            Backend::Sqlite(_) => {
                "INSERT INTO games (id, ruleset, options, status, version, \
                 last_hash, seed_commitment, seed, created_at, updated_at, ord) \
                 VALUES ($1, $2, $3, $4, 0, $5, $6, $7, $8, $9, \
                 (SELECT COALESCE(MAX(ord), 0) + 1 FROM games))"
            }
        };
        let result = on_pool!(self, pool => {
            sqlx::query(sql)
                .bind(&game.id)
                .bind(&game.ruleset)
                .bind(Json(&game.options))
                .bind(&game.status)
                .bind(GENESIS)
                .bind(&game.seed_commitment)
                .bind(&game.seed)
                .bind(now)
                .bind(now)
                .execute(pool)
                .await
                .map(|r| r.rows_affected())
        });
        match result {
            Ok(_) => self.get_game(&game.id).await,
            Err(e) if is_unique_violation(&e) => Err(StoreError::Exists),
            Err(e) => Err(e.into()),
        }
    }

    /// A game's row.
    pub async fn get_game(&self, id: &str) -> Result<GameRecord> {
        let sql = format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1");
        on_pool!(self, pool => {
            match sqlx::query(&sql).bind(id).fetch_optional(pool).await? {
                Some(row) => Ok(game_from_row!(row)),
                None => Err(StoreError::NotFound),
            }
        })
    }

    /// The games, oldest first, optionally of one status, a page at a time.
    pub async fn list_games(
        &self,
        status: Option<&str>,
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<GamePage> {
        let after: i64 = match cursor {
            Some(c) => c
                .parse()
                .map_err(|_| StoreError::Invalid(format!("invalid cursor {c:?}")))?,
            None => 0,
        };
        let limit = i64::from(limit.clamp(1, 500));
        let sql = match status {
            Some(_) => format!(
                "SELECT ord, {GAME_COLUMNS} FROM games WHERE status = $1 AND ord > $2 ORDER BY ord LIMIT $3"
            ),
            None => format!(
                "SELECT ord, {GAME_COLUMNS} FROM games WHERE ord > $1 ORDER BY ord LIMIT $2"
            ),
        };
        let mut games = Vec::new();
        let mut last = None;
        on_pool!(self, pool => {
            let mut q = sqlx::query(&sql);
            if let Some(s) = status {
                q = q.bind(s);
            }
            for row in q.bind(after).bind(limit).fetch_all(pool).await? {
                last = Some(row.try_get::<i64, _>("ord")?);
                games.push(game_from_row!(row));
            }
        });
        let next_cursor = (games.len() as i64 == limit)
            .then_some(last)
            .flatten()
            .map(|o| o.to_string());
        Ok(GamePage { games, next_cursor })
    }

    /// Appends a batch atomically at the expected version (see [`Append`]).
    #[tracing::instrument(level = "debug", skip(self, append), fields(game = %append.game_id, expected = append.expected_version))]
    pub async fn append(&self, append: Append) -> Result<AppendOutcome> {
        if append.events.is_empty() {
            return Err(StoreError::Invalid(
                "an append needs at least one event".into(),
            ));
        }
        let prev = match &append.prev_hash {
            Some(h) => h.clone(),
            None => {
                let g = self.get_game(&append.game_id).await?;
                if g.version != append.expected_version {
                    return self.refused(&append).await;
                }
                g.last_hash
            }
        };
        let first_seq = append.expected_version + 1;
        let last_seq = append.expected_version + append.events.len() as i64;
        let (batch, last_hash) = batch_json(
            &append.game_id,
            first_seq,
            &prev,
            &append.events,
            append.command_id.as_deref(),
        );
        let now = Utc::now();
        let inserted = match &self.backend {
            Backend::Postgres(_) => {
                // One statement for this append and any others written at the same moment: each
                // game's version guard, then its events, all or nothing per game (see
                // `combine`). (The notification is sent after commit by the notifier task: a
                // NOTIFY inside the transaction would serialise every commit on PostgreSQL's
                // global notification queue lock.)
                let head = serde_json::json!({
                    "game_id": append.game_id,
                    "expected": append.expected_version,
                    "prev_hash": prev,
                    "version": last_seq,
                    "last_hash": last_hash,
                    "status": append.status,
                });
                let rows = match batch {
                    Value::Array(rows) => rows,
                    other => vec![other],
                };
                let combiner = self.combiner.as_ref().expect("a PostgreSQL store has a combiner");
                combiner
                    .append(&append.game_id, head, rows)
                    .await
                    .map(|appended| {
                        if appended {
                            append.events.len() as u64
                        } else {
                            0
                        }
                    })
            }
            Backend::Sqlite(pool) => {
                async {
                    let mut tx = pool.begin().await?;
                    let guard = sqlx::query(
                        "UPDATE games SET version = $1, last_hash = $2, updated_at = $3, \
                         status = COALESCE($4, status) WHERE id = $5 AND version = $6 AND last_hash = $7",
                    )
                    .bind(last_seq)
                    .bind(&last_hash)
                    .bind(now)
                    .bind(&append.status)
                    .bind(&append.game_id)
                    .bind(append.expected_version)
                    .bind(&prev)
                    .execute(&mut *tx)
                    .await?;
                    if guard.rows_affected() == 0 {
                        return Ok(0);
                    }
                    let n = sqlx::query(
                        "INSERT INTO events (game_id, seq, event_type, schema_version, payload, \
                         seat, command_id, batch_last_seq, recorded_at, prev_hash, hash) \
                         SELECT $1, json_extract(value, '$.seq'), json_extract(value, '$.event_type'), \
                         json_extract(value, '$.schema_version'), \
                         json(json_extract(value, '$.payload')), json_extract(value, '$.seat'), \
                         json_extract(value, '$.command_id'), json_extract(value, '$.batch_last_seq'), \
                         $2, json_extract(value, '$.prev_hash'), json_extract(value, '$.hash') \
                         FROM json_each($3)",
                    )
                    .bind(&append.game_id)
                    .bind(now)
                    .bind(batch.to_string())
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                    tx.commit().await?;
                    Ok::<u64, sqlx::Error>(n)
                }
                .await
            }
        };
        match inserted {
            Ok(n) if n == append.events.len() as u64 => {
                let appended = Appended {
                    game_id: append.game_id.clone(),
                    last_seq,
                };
                match &self.outbox {
                    // PostgreSQL: every process hears it through LISTEN, this one included.
                    Some(outbox) => {
                        let _ = outbox.send(appended);
                    }
                    None => {
                        let _ = self.notify.send(appended);
                    }
                }
                Ok(AppendOutcome::Appended {
                    first_seq,
                    last_seq,
                    last_hash,
                })
            }
            Ok(_) => self.refused(&append).await,
            Err(e) if is_unique_violation(&e) => self.refused(&append).await,
            Err(e) => Err(e.into()),
        }
    }

    /// The batch a command id opened in a game, as (first seq, last seq), if it was used.
    pub async fn command_batch(
        &self,
        game_id: &str,
        command_id: &str,
    ) -> Result<Option<(i64, i64)>> {
        let sql = "SELECT seq, batch_last_seq FROM events WHERE game_id = $1 AND command_id = $2";
        Ok(on_pool!(self, pool => {
            sqlx::query_as(sql).bind(game_id).bind(command_id).fetch_optional(pool).await?
        }))
    }

    /// Why an append was refused: a used command id (the original outcome), a stale version, or
    /// no such game.
    async fn refused(&self, append: &Append) -> Result<AppendOutcome> {
        if let Some(id) = &append.command_id {
            let sql =
                "SELECT seq, batch_last_seq FROM events WHERE game_id = $1 AND command_id = $2";
            let found: Option<(i64, i64)> = on_pool!(self, pool => {
                sqlx::query_as(sql).bind(&append.game_id).bind(id).fetch_optional(pool).await?
            });
            if let Some((first_seq, last_seq)) = found {
                return Ok(AppendOutcome::Duplicate {
                    first_seq,
                    last_seq,
                });
            }
        }
        let game = self.get_game(&append.game_id).await?;
        Err(StoreError::Conflict {
            expected: append.expected_version,
            actual: game.version,
        })
    }

    /// Sets a game's status outside an append (e.g. a lobby closing).
    pub async fn set_status(&self, game_id: &str, status: &str) -> Result<()> {
        let n = on_pool!(self, pool => {
            sqlx::query("UPDATE games SET status = $1, updated_at = $2 WHERE id = $3")
                .bind(status)
                .bind(Utc::now())
                .bind(game_id)
                .execute(pool)
                .await?
                .rows_affected()
        });
        if n == 0 {
            Err(StoreError::NotFound)
        } else {
            Ok(())
        }
    }

    /// A game's events with `seq > after`, at most `limit`, in order.
    pub async fn events_after(
        &self,
        game_id: &str,
        after: i64,
        limit: u32,
    ) -> Result<Vec<StoredEvent>> {
        let sql = format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"
        );
        let limit = i64::from(limit.max(1));
        on_pool!(self, pool => {
            let rows = sqlx::query(&sql)
                .bind(game_id)
                .bind(after)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            rows.iter().map(|row| Ok(event_from_row!(row))).collect()
        })
    }

    /// Folds every event of a game, in order, a page at a time.
    pub async fn fold_events<S, E>(
        &self,
        game_id: &str,
        init: S,
        mut f: impl FnMut(S, &StoredEvent) -> Result<S, E>,
    ) -> Result<Result<S, E>> {
        let mut state = init;
        let mut after = 0;
        loop {
            let page = self.events_after(game_id, after, 1000).await?;
            let Some(last) = page.last() else { break };
            after = last.seq;
            for e in &page {
                state = match f(state, e) {
                    Ok(s) => s,
                    Err(e) => return Ok(Err(e)),
                };
            }
            if page.len() < 1000 {
                break;
            }
        }
        Ok(Ok(state))
    }

    /// Walks a game's hash chain and names the first event that does not match.
    pub async fn verify_chain(&self, game_id: &str) -> Result<ChainReport> {
        let game = self.get_game(game_id).await?;
        let mut prev = GENESIS.to_string();
        let mut count = 0;
        let broken = self
            .fold_events(game_id, (), |(), e| {
                count += 1;
                if e.seq != count {
                    return Err((
                        count,
                        format!("sequence number {} where {count} belongs", e.seq),
                    ));
                }
                if e.prev_hash != prev {
                    return Err((
                        e.seq,
                        "its previous hash does not match the chain".to_string(),
                    ));
                }
                let h = chain_hash(
                    &prev,
                    &e.game_id,
                    e.seq,
                    &e.event_type,
                    e.schema_version,
                    &e.payload,
                );
                if h != e.hash {
                    return Err((e.seq, "its contents do not match its hash".to_string()));
                }
                prev = h;
                Ok(())
            })
            .await?;
        Ok(match broken {
            Err((seq, reason)) => ChainReport::Broken { seq, reason },
            Ok(()) if count != game.version => ChainReport::Broken {
                seq: count + 1,
                reason: format!("the log has {count} events, the game says {}", game.version),
            },
            Ok(()) if prev != game.last_hash => ChainReport::Broken {
                seq: count,
                reason: "the game's last hash does not match the chain".into(),
            },
            Ok(()) => ChainReport::Intact { events: count },
        })
    }

    /// Stores a credential (the token's hash, never the token).
    pub async fn add_credential(&self, c: &Credential) -> Result<()> {
        let result = on_pool!(self, pool => {
            sqlx::query(
                "INSERT INTO credentials (game_id, token_hash, role, seat, display_name, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(&c.game_id)
            .bind(&c.token_hash)
            .bind(&c.role)
            .bind(c.seat)
            .bind(&c.display_name)
            .bind(c.created_at)
            .execute(pool)
            .await
            .map(|r| r.rows_affected())
        });
        match result {
            Ok(_) => Ok(()),
            Err(e) if is_unique_violation(&e) => Err(StoreError::Exists),
            Err(e) => Err(e.into()),
        }
    }

    /// Every credential of a game, in the order they were issued.
    pub async fn credentials(&self, game_id: &str) -> Result<Vec<Credential>> {
        let sql = "SELECT game_id, token_hash, role, seat, display_name, created_at FROM credentials \
                   WHERE game_id = $1 ORDER BY created_at, token_hash";
        let rows: Vec<CredentialRow> =
            on_pool!(self, pool => sqlx::query_as(sql).bind(game_id).fetch_all(pool).await?);
        Ok(rows
            .into_iter()
            .map(
                |(game_id, token_hash, role, seat, display_name, created_at)| Credential {
                    game_id,
                    token_hash,
                    role,
                    seat,
                    display_name,
                    created_at,
                },
            )
            .collect())
    }

    /// Removes a credential (a player leaving before the start).
    pub async fn remove_credential(&self, game_id: &str, token_hash: &str) -> Result<()> {
        let n = on_pool!(self, pool => {
            sqlx::query("DELETE FROM credentials WHERE game_id = $1 AND token_hash = $2")
                .bind(game_id)
                .bind(token_hash)
                .execute(pool)
                .await?
                .rows_affected()
        });
        if n == 0 {
            Err(StoreError::NotFound)
        } else {
            Ok(())
        }
    }

    /// Runs raw SQL: for tests that need to go around the store's rules.
    #[doc(hidden)]
    pub async fn execute_raw(&self, sql: &str) -> Result<u64> {
        Ok(on_pool!(self, pool => sqlx::raw_sql(sql).execute(pool).await?.rows_affected()))
    }
}

/// A credential as its row's columns.
type CredentialRow = (
    String,
    String,
    String,
    Option<i32>,
    Option<String>,
    DateTime<Utc>,
);
