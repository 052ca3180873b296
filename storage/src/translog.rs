//! The transparency log: a server-wide, append-only hash chain with one entry per finished
//! game (its final version and the hash of its last event). Rewriting a logged game no longer
//! matches its entry; rewriting the log changes every hash after the change, which anyone
//! holding an older checkpoint (its size and head) sees.
//!
//! An entry is written once per game whichever process finishes it: the game's id is unique
//! in the log, and so is each place in the chain (a writer that lost the race for a place
//! reads the log's end again).

use chrono::{DateTime, Utc};
use sqlx::Row;

use crate::EventStore;
use crate::backend::{on_pool, on_writer};
use crate::error::{Result, StoreError, is_unique_violation};
use crate::ids::{GameId, Version};
use saboteur_verifier::hash::{GENESIS, log_entry_hash_at};

/// One entry of the transparency log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// Its place in the log, from 1.
    pub seq: i64,
    /// The finished game.
    pub game_id: GameId,
    /// The game's final version.
    pub version: Version,
    /// The hash of the game's last event.
    pub head: String,
    /// The previous entry's hash ([`GENESIS`] for the first).
    pub prev_hash: String,
    /// [`log_entry_hash_at`] of the fields above and `logged_at` (entries written before
    /// times were bound: [`crate::log_entry_hash`], without it).
    pub hash: String,
    /// When it was written, to the millisecond; never earlier than the entry before it.
    pub logged_at: DateTime<Utc>,
}

const LOG_COLUMNS: &str = "seq, game_id, version, head, prev_hash, hash, logged_at";

macro_rules! entry_from_row {
    ($row:expr) => {{
        let row = &$row;
        LogEntry {
            seq: row.try_get("seq")?,
            game_id: row.try_get("game_id")?,
            version: row.try_get("version")?,
            head: row.try_get("head")?,
            prev_hash: row.try_get("prev_hash")?,
            hash: row.try_get("hash")?,
            logged_at: row.try_get("logged_at")?,
        }
    }};
}

impl EventStore {
    /// Entries after `after`, at most `limit`, in order.
    pub async fn log_entries(&self, after: i64, limit: u32) -> Result<Vec<LogEntry>> {
        let sql = format!(
            "SELECT {LOG_COLUMNS} FROM transparency_log WHERE seq > $1 ORDER BY seq LIMIT $2"
        );
        on_pool!(self, pool => {
            let rows = sqlx::query(&sql).bind(after).bind(i64::from(limit)).fetch_all(pool).await?;
            let mut out = Vec::with_capacity(rows.len());
            for row in rows {
                out.push(entry_from_row!(row));
            }
            Ok(out)
        })
    }

    /// The log's last entry, if any.
    pub async fn last_log_entry(&self) -> Result<Option<LogEntry>> {
        let sql = format!("SELECT {LOG_COLUMNS} FROM transparency_log ORDER BY seq DESC LIMIT 1");
        on_pool!(self, pool => {
            match sqlx::query(&sql).fetch_optional(pool).await? {
                Some(row) => Ok(Some(entry_from_row!(row))),
                None => Ok(None),
            }
        })
    }

    /// A game's entry, if it is logged.
    pub async fn log_entry_of(&self, game_id: &GameId) -> Result<Option<LogEntry>> {
        let sql = format!("SELECT {LOG_COLUMNS} FROM transparency_log WHERE game_id = $1");
        on_pool!(self, pool => {
            match sqlx::query(&sql).bind(game_id).fetch_optional(pool).await? {
                Some(row) => Ok(Some(entry_from_row!(row))),
                None => Ok(None),
            }
        })
    }

    /// Logs a finished game (its row's version and last hash), once, at `now_ms` (the server's
    /// time, in milliseconds since the Unix epoch; never earlier than the entry before it): a
    /// game already logged keeps its entry. A game that is not finished is refused.
    pub async fn log_finished_game(&self, game_id: &GameId, now_ms: i64) -> Result<LogEntry> {
        for _ in 0..20 {
            if let Some(entry) = self.log_entry_of(game_id).await? {
                return Ok(entry);
            }
            let game = self.get_game(game_id).await?;
            if game.status != crate::GameStatus::Finished {
                return Err(StoreError::Invalid(format!(
                    "game {game_id} is not finished"
                )));
            }
            // The entry's time is in its hash, to the millisecond, and never earlier than the
            // entry before it: the log's times only go forward.
            let now = DateTime::<Utc>::from_timestamp_millis(now_ms).unwrap_or_default();
            let (seq, prev, now) = match self.last_log_entry().await? {
                Some(last) => (last.seq + 1, last.hash, now.max(last.logged_at)),
                None => (1, GENESIS.to_string(), now),
            };
            let hash = log_entry_hash_at(
                &prev,
                seq,
                game_id.as_str(),
                game.version.stored(),
                &game.last_hash,
                now.timestamp_millis(),
            );
            let sql = "INSERT INTO transparency_log \
                       (seq, game_id, version, head, prev_hash, hash, logged_at) \
                       VALUES ($1, $2, $3, $4, $5, $6, $7)";
            let result = on_writer!(self, pool => {
                sqlx::query(sql)
                    .bind(seq)
                    .bind(game_id)
                    .bind(game.version)
                    .bind(&game.last_hash)
                    .bind(&prev)
                    .bind(&hash)
                    .bind(now)
                    .execute(pool)
                    .await
                    .map(|_| ())
            });
            match result {
                Ok(()) => {
                    return Ok(LogEntry {
                        seq,
                        game_id: game_id.clone(),
                        version: game.version,
                        head: game.last_hash,
                        prev_hash: prev,
                        hash,
                        logged_at: now,
                    });
                }
                // Another writer took this place, or logged this game: look again.
                Err(e) if is_unique_violation(&e) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(StoreError::Unavailable(
            "the transparency log is contended: try again".into(),
        ))
    }

    /// Finished games not yet in the log (a crash between the finishing append and its entry,
    /// or games finished before the log existed), oldest first.
    pub async fn unlogged_finished_games(&self, limit: u32) -> Result<Vec<GameId>> {
        let sql = "SELECT id FROM games g WHERE status = 'finished' AND version > 0 \
                   AND NOT EXISTS (SELECT 1 FROM transparency_log t WHERE t.game_id = g.id) \
                   ORDER BY ord LIMIT $1";
        Ok(on_pool!(self, pool => {
            sqlx::query_scalar(sql).bind(i64::from(limit)).fetch_all(pool).await?
        }))
    }
}
