//! Appending: a batch of events at an expected version, atomically and idempotently, and
//! reading the log back by sequence number.

use chrono::Utc;
use serde_json::Value;
use sqlx::Row;

use crate::EventStore;
use crate::backend::{Backend, EVENT_COLUMNS, PG_EVENT_COLUMNS, event_from_row, on_pool};
use crate::error::{Result, StoreError, is_unique_violation};
use crate::ids::{GameId, Version};
use crate::records::seat_column;
use crate::records::{Append, AppendOutcome, Appended, GameStatus, NewEvent, Notice, StoredEvent};
use saboteur_verifier::hash::chain_hash;

/// SQLite: inserts a batch (`$3`, the JSON array of [`batch_json`]) for game `$1` at time `$2`.
pub(crate) const SQLITE_INSERT_EVENTS: &str = "INSERT INTO events (game_id, seq, event_type, \
     schema_version, payload, seat, command_id, batch_last_seq, recorded_at, prev_hash, hash) \
     SELECT $1, json_extract(value, '$.seq'), json_extract(value, '$.event_type'), \
     json_extract(value, '$.schema_version'), json(json_extract(value, '$.payload')), \
     json_extract(value, '$.seat'), json_extract(value, '$.command_id'), \
     json_extract(value, '$.batch_last_seq'), $2, json_extract(value, '$.prev_hash'), \
     json_extract(value, '$.hash') FROM json_each($3)";

/// A batch of events hashed and numbered ([`batch_json`]).
pub(crate) struct Chained {
    /// The events as the JSON array the insert statements read.
    pub rows: Value,
    /// The hash of each event, in order.
    pub hashes: Vec<String>,
    /// The chain's head after the batch: the last event's hash.
    pub head: String,
}

/// The events of a batch, hashed and numbered, chained after `prev`.
pub(crate) fn batch_json(
    game_id: &GameId,
    first: Version,
    prev: &str,
    events: &[NewEvent],
    command_id: Option<&str>,
) -> Chained {
    let first_seq = first.stored();
    let last_seq = first_seq + count(events.len()) - 1;
    let game_id = game_id.as_str();
    let mut prev = prev.to_string();
    let mut rows = Vec::with_capacity(events.len());
    let mut hashes = Vec::with_capacity(events.len());
    for (e, seq) in events.iter().zip(first_seq..) {
        let hash = chain_hash(
            &prev,
            game_id,
            seq,
            &e.event_type,
            e.schema_version,
            e.sealed.as_ref().unwrap_or(&e.payload),
        );
        rows.push(serde_json::json!({
            "game_id": game_id,
            "seq": seq,
            "event_type": e.event_type,
            "schema_version": e.schema_version,
            "payload": e.payload,
            "seat": e.seat.map(seat_column),
            "prev_hash": prev,
            "hash": hash,
            "command_id": if seq == first_seq { command_id } else { None },
            "batch_last_seq": last_seq,
        }));
        hashes.push(hash.clone());
        prev = hash;
    }
    Chained {
        rows: Value::Array(rows),
        hashes,
        head: prev,
    }
}

impl EventStore {
    /// Appends a batch atomically at the expected version (see [`Append`]).
    #[tracing::instrument(level = "debug", skip(self, append), fields(game = %append.game_id, expected = %append.expected_version))]
    pub async fn append(&self, append: Append) -> Result<AppendOutcome> {
        if append.events.is_empty() {
            return Err(StoreError::Invalid(
                "an append needs at least one event".into(),
            ));
        }
        let prev = match &append.prev_hash {
            Some(h) => h.clone(),
            None => {
                let g = self.row(&append.game_id).await?;
                if g.version != append.expected_version {
                    return self.refused(&append).await;
                }
                g.last_hash
            }
        };
        let first_seq = append.expected_version.plus(1);
        let last_seq = append.expected_version.plus(append.events.len());
        let Chained {
            rows: batch,
            hashes,
            head: last_hash,
        } = batch_json(
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
                    "status": append.status.map(GameStatus::as_str),
                    "bot_awaited": append.bot_awaited,
                    "deadline": append.deadline,
                    "token_seat": append.token.as_ref().map(|t| seat_column(t.seat)),
                    "token_hash": append.token.as_ref().map(|t| &t.token_hash),
                });
                let rows = match batch {
                    Value::Array(rows) => rows,
                    other => vec![other],
                };
                let Some(combiner) = self.combiner.as_ref() else {
                    return Err(StoreError::Corrupt(
                        "a PostgreSQL store has a combiner".into(),
                    ));
                };
                combiner
                    .append(&append.game_id, head, rows)
                    .await
                    .map(|appended| match appended {
                        Some(at) => (rows_of(append.events.len()), at),
                        None => (0, now),
                    })
            }
            Backend::Sqlite(pool) => {
                let _turn = self.writers.lock().await;
                async {
                    let mut tx = pool.begin().await?;
                    let guard = sqlx::query(
                        "UPDATE games SET version = $1, last_hash = $2, updated_at = $3, \
                         status = COALESCE($4, status), bot_awaited = $5, deadline = $6 \
                         WHERE id = $7 AND version = $8 AND last_hash = $9",
                    )
                    .bind(last_seq)
                    .bind(&last_hash)
                    .bind(now)
                    .bind(append.status.map(GameStatus::as_str))
                    .bind(append.bot_awaited)
                    .bind(append.deadline)
                    .bind(&append.game_id)
                    .bind(append.expected_version)
                    .bind(&prev)
                    .execute(&mut *tx)
                    .await?;
                    if guard.rows_affected() == 0 {
                        return Ok((0, now));
                    }
                    if let Some(swap) = &append.token {
                        sqlx::query(
                        "UPDATE credentials SET token_hash = $1 WHERE game_id = $2 AND seat = $3",
                    )
                    .bind(&swap.token_hash)
                    .bind(&append.game_id)
                    .bind(seat_column(swap.seat))
                    .execute(&mut *tx)
                    .await?;
                    }
                    let n = sqlx::query(SQLITE_INSERT_EVENTS)
                        .bind(&append.game_id)
                        .bind(now)
                        .bind(batch.to_string())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    tx.commit().await?;
                    Ok::<_, sqlx::Error>((n, now))
                }
                .await
            }
        };
        #[cfg(feature = "testing")]
        if matches!(inserted, Ok((n, _)) if n == rows_of(append.events.len()))
            && crate::faults::answer_lost(&append.game_id)
        {
            return Err(StoreError::Unavailable(
                "the commit's answer was lost (a fault a test injected)".into(),
            ));
        }
        match inserted {
            Ok((n, at)) if n == rows_of(append.events.len()) => {
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
                        let _ = self.notify.send(Notice::Appended(appended));
                    }
                }
                Ok(AppendOutcome::Appended {
                    first_seq,
                    last_seq,
                    last_hash,
                    hashes,
                    at,
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
        game_id: &GameId,
        command_id: &str,
    ) -> Result<Option<(Version, Version)>> {
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
            let found: Option<(Version, Version)> = on_pool!(self, pool => {
                sqlx::query_as(sql).bind(&append.game_id).bind(id).fetch_optional(pool).await?
            });
            if let Some((first_seq, last_seq)) = found {
                return Ok(AppendOutcome::Duplicate {
                    first_seq,
                    last_seq,
                });
            }
        }
        let game = self.row(&append.game_id).await?;
        Err(StoreError::Conflict {
            expected: append.expected_version,
            actual: game.version,
        })
    }

    /// A game's events with `seq > after`, at most `limit`, in order.
    pub async fn events_after(
        &self,
        game_id: &GameId,
        after: Version,
        limit: u32,
    ) -> Result<Vec<StoredEvent>> {
        let columns = match self.backend {
            Backend::Postgres(_) => PG_EVENT_COLUMNS,
            Backend::Sqlite(_) => EVENT_COLUMNS,
        };
        let sql = format!(
            "SELECT {columns} FROM events WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"
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
        game_id: &GameId,
        init: S,
        mut f: impl FnMut(S, &StoredEvent) -> Result<S, E>,
    ) -> Result<Result<S, E>> {
        let mut state = init;
        let mut after = Version::of(0);
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
}

/// How many events a batch holds, as the log counts versions (a batch is never near 2^63).
pub(crate) fn count(events: usize) -> i64 {
    i64::try_from(events).unwrap_or(i64::MAX)
}

/// How many rows a batch's insert touches, as the database counts them.
fn rows_of(events: usize) -> u64 {
    u64::try_from(events).unwrap_or(u64::MAX)
}
