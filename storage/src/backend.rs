//! The two backends behind one store: connecting (migrations applied), the pool macro that runs
//! the same SQL on either, and reading rows the same way from both.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};
use sqlx::{Row, types::Json};
use tokio::sync::{broadcast, mpsc};

use crate::combine;
use crate::error::{Result, StoreError};
use crate::notify;
use crate::records::Notice;

/// How long a request waits for a database connection before the store answers
/// [`StoreError::Unavailable`]: a request fails fast while the database is down.
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(2);

#[derive(Clone)]
pub(crate) enum Backend {
    Postgres(PgPool),
    Sqlite(SqlitePool),
}

/// Runs the same code on whichever pool the store has: the SQL is written once, with `$n`
/// placeholders each used once and in order, which both databases accept.
macro_rules! on_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match &$store.backend {
            $crate::backend::Backend::Postgres($pool) => $body,
            $crate::backend::Backend::Sqlite($pool) => $body,
        }
    };
}
pub(crate) use on_pool;

/// As [`on_pool`], for a statement or a transaction that writes: on SQLite it runs in this
/// process's turn to write (see `EventStore::writers`).
macro_rules! on_writer {
    ($store:expr, $pool:ident => $body:expr) => {
        match &$store.backend {
            $crate::backend::Backend::Postgres($pool) => $body,
            $crate::backend::Backend::Sqlite($pool) => {
                let _turn = $store.writers.lock().await;
                $body
            }
        }
    };
}
pub(crate) use on_writer;

/// The event store.
#[derive(Clone)]
pub struct EventStore {
    pub(crate) backend: Backend,
    pub(crate) notify: broadcast::Sender<Notice>,
    /// PostgreSQL: appends waiting to be announced with NOTIFY.
    pub(crate) outbox: Option<mpsc::UnboundedSender<crate::Appended>>,
    /// PostgreSQL: appends waiting to be written, grouped.
    pub(crate) combiner: Option<combine::Combiner>,
    /// Held while any clone of the store lives: the background tasks stop when it is gone.
    pub(crate) _alive: Arc<()>,
    /// SQLite: held across each write ([`on_writer`]), so this process's writers take the
    /// file's one write lock in turn, in the order they asked. Without it, a writer that meets
    /// another's lock polls it with SQLite's growing sleeps (1, 2, 5, 10, 15, 20, 25 ms…) and
    /// may lose to later writers each time: with 4 writers an append's p99 was 35–41 ms and its
    /// worst 0.7–1.1 s, against 5–13 ms and 5–28 ms in turn (`benches/sqlite_writers.rs`,
    /// BENCHMARKS.md). Another process on the same file still meets the busy timeout.
    /// PostgreSQL: unused (its writers queue on row locks).
    pub(crate) writers: Arc<tokio::sync::Mutex<()>>,
}

/// A JSON column as each backend stores it: `jsonb` on PostgreSQL, text on SQLite.
pub(crate) trait JsonColumn {
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
            .map_err(|e| StoreError::Corrupt(format!("stored {column}: {e}")))
    }
}

/// An event's columns on SQLite, which keeps its hashes as hex text.
pub(crate) const EVENT_COLUMNS: &str = "game_id, seq, event_type, schema_version, payload, \
                                        seat, command_id, recorded_at, prev_hash, hash";
/// An event's columns on PostgreSQL, which keeps its hashes as their bytes: read as hex.
pub(crate) const PG_EVENT_COLUMNS: &str = "game_id, seq, event_type, schema_version, payload, \
     seat, command_id, recorded_at, encode(prev_hash, 'hex') AS prev_hash, \
     encode(hash, 'hex') AS hash";
pub(crate) const GAME_COLUMNS: &str = "id, ruleset, options, status, players, version, \
                                       last_hash, seed_commitment, seed, created_at, updated_at, \
                                       previous_game, reveal_by, lobby_version";
pub(crate) const CREDENTIAL_COLUMNS: &str = "game_id, token_hash, role, seat, display_name, created_at, entropy, public_key, key_proof, \
     share_commitment";

/// Reads a [`StoredEvent`] from a row of either backend (selected with [`EVENT_COLUMNS`] or [`PG_EVENT_COLUMNS`]).
macro_rules! event_from_row {
    ($row:expr) => {{
        use $crate::backend::JsonColumn as _;
        let row = &$row;
        $crate::records::StoredEvent {
            game_id: row.try_get("game_id")?,
            seq: row.try_get("seq")?,
            event_type: row.try_get("event_type")?,
            schema_version: row.try_get("schema_version")?,
            payload: row.json("payload")?,
            seat: $crate::records::read_seat_opt(row.try_get("seat")?)?,
            command_id: row.try_get("command_id")?,
            recorded_at: row.try_get("recorded_at")?,
            prev_hash: row.try_get("prev_hash")?,
            hash: row.try_get("hash")?,
        }
    }};
}
pub(crate) use event_from_row;

/// Reads a [`crate::GameRecord`] from a row of either backend (selected with
/// [`GAME_COLUMNS`]), in a closure so one bad row is one error; the seed only once the game
/// is finished.
macro_rules! game_from_row {
    ($row:expr) => {
        (|| -> $crate::error::Result<$crate::records::GameRecord> {
            use $crate::backend::JsonColumn as _;
            use $crate::error::StoreError;
            let row = &$row;
            let status: $crate::records::GameStatus =
                row.try_get::<String, _>("status")?.parse()?;
            let seed: Option<Vec<u8>> = row.try_get("seed")?;
            let ruleset: String = row.try_get("ruleset")?;
            let players: i32 = row.try_get("players")?;
            Ok($crate::records::GameRecord {
                id: row.try_get("id")?,
                ruleset: serde_json::from_value(serde_json::Value::String(ruleset))
                    .map_err(|e| StoreError::Corrupt(format!("stored ruleset: {e}")))?,
                options: serde_json::from_value(row.json("options")?)
                    .map_err(|e| StoreError::Corrupt(format!("stored options: {e}")))?,
                seed: if status == $crate::records::GameStatus::Finished {
                    seed
                } else {
                    None
                },
                status,
                players: u8::try_from(players)
                    .map_err(|_| StoreError::Corrupt(format!("stored players: {players}")))?,
                version: row.try_get("version")?,
                last_hash: row.try_get("last_hash")?,
                seed_commitment: row.try_get("seed_commitment")?,
                previous: row.try_get("previous_game")?,
                created_at: row.try_get("created_at")?,
                updated_at: row.try_get("updated_at")?,
                reveal_by: row.try_get("reveal_by")?,
                lobby_version: row.try_get("lobby_version")?,
            })
        })()
    };
}
pub(crate) use game_from_row;

/// Reads a [`crate::Credential`] from a row of either backend (selected with
/// [`CREDENTIAL_COLUMNS`]).
macro_rules! credential_from_row {
    ($row:expr) => {
        (|| -> $crate::error::Result<$crate::records::Credential> {
            let row = &$row;
            $crate::records::Credential::from_stored(
                row.try_get("game_id")?,
                row.try_get("token_hash")?,
                row.try_get::<String, _>("role")?.parse()?,
                row.try_get("seat")?,
                row.try_get("display_name")?,
                row.try_get("created_at")?,
                (
                    row.try_get("entropy")?,
                    row.try_get("public_key")?,
                    row.try_get("key_proof")?,
                    row.try_get("share_commitment")?,
                ),
            )
        })()
    };
}
pub(crate) use credential_from_row;

impl EventStore {
    /// Connects by URL — `postgres://…` or `sqlite://path` (the file is created on first use,
    /// `sqlite::memory:` for a private in-memory database) — and applies the migrations.
    pub async fn connect(url: &str) -> Result<EventStore> {
        // Room for bursts: a NOTIFY carries up to 100 appends, and a subscriber that falls behind
        // must read everything again (`Lagged` counts as a resync).
        let (notify, _) = broadcast::channel(16 * 1024);
        let alive = Arc::new(());
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let pool = PgPoolOptions::new()
                .max_connections(32)
                .test_before_acquire(false)
                .acquire_timeout(ACQUIRE_TIMEOUT)
                .connect(url)
                .await?;
            sqlx::migrate!("./migrations/postgres").run(&pool).await?;
            notify::listen(pool.clone(), notify.clone(), Arc::downgrade(&alive)).await?;
            let (outbox, inbox) = mpsc::unbounded_channel();
            tokio::spawn(notify::announce(pool.clone(), inbox));
            Ok(EventStore {
                combiner: Some(combine::Combiner::start(pool.clone())),
                backend: Backend::Postgres(pool),
                notify,
                outbox: Some(outbox),
                _alive: alive.clone(),
                writers: Arc::default(),
            })
        } else if url.starts_with("sqlite:") {
            let memory = url.contains(":memory:");
            let options = SqliteConnectOptions::from_str(url)?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .busy_timeout(ACQUIRE_TIMEOUT)
                .foreign_keys(true);
            let pool = SqlitePoolOptions::new()
                .max_connections(if memory { 1 } else { 8 })
                .acquire_timeout(ACQUIRE_TIMEOUT)
                .connect_with(options)
                .await?;
            sqlx::migrate!("./migrations/sqlite").run(&pool).await?;
            Ok(EventStore {
                backend: Backend::Sqlite(pool),
                notify,
                outbox: None,
                combiner: None,
                _alive: alive.clone(),
                writers: Arc::default(),
            })
        } else {
            Err(StoreError::Invalid(format!(
                "unsupported database URL {url:?}: use postgres://… or sqlite://path"
            )))
        }
    }

    /// A store for reads only, by URL, for a standby (`postgres://…`, e.g. HAProxy's replica
    /// port) or a database file opened read-only (`sqlite://path`): every connection's
    /// transactions are read-only, so nothing is ever written there (a write is refused by the
    /// database). It connects lazily: a standby that is away when the server starts is
    /// connected to once it answers. No migrations are applied and nothing is announced or
    /// listened for.
    pub async fn connect_read_only(url: &str) -> Result<EventStore> {
        let (notify, _) = broadcast::channel(1);
        let backend = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let options = sqlx::postgres::PgConnectOptions::from_str(url)?
                .options([("default_transaction_read_only", "on")]);
            Backend::Postgres(
                PgPoolOptions::new()
                    .max_connections(16)
                    .test_before_acquire(false)
                    .acquire_timeout(ACQUIRE_TIMEOUT)
                    .connect_lazy_with(options),
            )
        } else if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)?
                .read_only(true)
                .busy_timeout(ACQUIRE_TIMEOUT);
            Backend::Sqlite(
                SqlitePoolOptions::new()
                    .max_connections(4)
                    .acquire_timeout(ACQUIRE_TIMEOUT)
                    .connect_lazy_with(options),
            )
        } else {
            return Err(StoreError::Invalid(format!(
                "unsupported database URL {url:?}: use postgres://… or sqlite://path"
            )));
        };
        Ok(EventStore {
            backend,
            notify,
            outbox: None,
            combiner: None,
            _alive: Arc::new(()),
            writers: Arc::default(),
        })
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

    /// Whether the database takes writes now: it answers, and (PostgreSQL) its transactions
    /// are not read-only — a standby, a primary that Patroni demoted, or a database set
    /// `default_transaction_read_only` answers [`StoreError::Unavailable`], as a write refused
    /// there would (SQLSTATE 25006). SQLite: whether it answers, whether the connection may
    /// write (`PRAGMA query_only`), and whether a statement that writes is refused
    /// (`SQLITE_READONLY`: a file opened read-only, a read-only filesystem) — a `DELETE` that
    /// matches no row, so nothing changes.
    pub async fn writable(&self) -> Result<()> {
        let read_only = match &self.backend {
            Backend::Postgres(pool) => {
                let setting: String =
                    sqlx::query_scalar("SELECT current_setting('transaction_read_only')")
                        .fetch_one(pool)
                        .await?;
                setting == "on"
            }
            Backend::Sqlite(pool) => {
                let query_only: i64 = sqlx::query_scalar("PRAGMA query_only")
                    .fetch_one(pool)
                    .await?;
                // Refused as SQLITE_READONLY, which is `Unavailable` too.
                let _turn = self.writers.lock().await;
                sqlx::query("DELETE FROM kept_replies WHERE 0")
                    .execute(pool)
                    .await?;
                query_only != 0
            }
        };
        if read_only {
            Err(StoreError::Unavailable(
                "the database is read-only (a standby, or a demoted primary)".into(),
            ))
        } else {
            Ok(())
        }
    }

    /// What happens from now on: every append (on PostgreSQL, by any process), and
    /// [`Notice::Resync`] whenever announcements may have been lost.
    pub fn subscribe(&self) -> broadcast::Receiver<Notice> {
        self.notify.subscribe()
    }

    /// Runs raw SQL: for tests that need to go around the store's rules (a dishonest operator,
    /// a row left behind by a crash). Only with the `testing` feature.
    #[cfg(feature = "testing")]
    pub async fn execute_raw(&self, sql: &str) -> Result<u64> {
        Ok(on_pool!(self, pool => sqlx::raw_sql(sql).execute(pool).await?.rows_affected()))
    }

    /// The SQL for an event's hash (`events.hash`, `events.prev_hash`) given as hex, for raw SQL
    /// that writes one: its bytes on PostgreSQL, the hex itself on SQLite. Only with the
    /// `testing` feature.
    #[cfg(feature = "testing")]
    pub fn hash_sql(&self, hex: &str) -> String {
        match self.backend {
            Backend::Postgres(_) => format!("decode('{hex}', 'hex')"),
            Backend::Sqlite(_) => format!("'{hex}'"),
        }
    }
}
