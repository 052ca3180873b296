//! Presence shared by the server processes on one database: each process records how many
//! event streams it has open per game and seat, and beats; every process reads what the others
//! recorded. A process that stops beating (killed, or cut off) is left out of the readings,
//! and forgotten by the next process that beats.

use std::collections::BTreeMap;

use crate::backend::{EventStore, on_pool, on_writer};
use crate::error::Result;
use crate::ids::GameId;
use saboteur_domain::Seat;

/// A game and a seat (`None`: its spectators).
pub type PresenceKey = (GameId, Option<Seat>);

/// The seat column's value for spectators.
const SPECTATORS: i64 = -1;

fn seat_column(seat: Option<Seat>) -> i64 {
    seat.map_or(SPECTATORS, |s| i64::from(s.0))
}

impl EventStore {
    /// Records a beat of `process` at `now_ms` (milliseconds since the Unix epoch) with the
    /// changes to its streams since its last beat (`0` removes a game and seat), in one
    /// transaction; forgets the processes whose last beat is older than `forget_before_ms`,
    /// with what they recorded.
    pub async fn beat_presence(
        &self,
        process: &str,
        changes: &BTreeMap<PresenceKey, u32>,
        now_ms: i64,
        forget_before_ms: i64,
    ) -> Result<()> {
        on_writer!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query(
                "INSERT INTO presence_processes (process, beat_at) VALUES ($1, $2) \
                 ON CONFLICT (process) DO UPDATE SET beat_at = excluded.beat_at",
            )
            .bind(process)
            .bind(now_ms)
            .execute(&mut *tx)
            .await?;
            for ((game, seat), streams) in changes {
                if *streams == 0 {
                    sqlx::query(
                        "DELETE FROM presence WHERE process = $1 AND game_id = $2 AND seat = $3",
                    )
                    .bind(process)
                    .bind(game)
                    .bind(seat_column(*seat))
                    .execute(&mut *tx)
                    .await?;
                } else {
                    sqlx::query(
                        "INSERT INTO presence (process, game_id, seat, streams) \
                         VALUES ($1, $2, $3, $4) ON CONFLICT (process, game_id, seat) \
                         DO UPDATE SET streams = excluded.streams",
                    )
                    .bind(process)
                    .bind(game)
                    .bind(seat_column(*seat))
                    .bind(i64::from(*streams))
                    .execute(&mut *tx)
                    .await?;
                }
            }
            sqlx::query(
                "DELETE FROM presence WHERE process IN \
                 (SELECT process FROM presence_processes WHERE beat_at < $1)",
            )
            .bind(forget_before_ms)
            .execute(&mut *tx)
            .await?;
            sqlx::query("DELETE FROM presence_processes WHERE beat_at < $1")
                .bind(forget_before_ms)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
        });
        Ok(())
    }

    /// The streams the processes other than `process` that beat at `since_ms` or later have
    /// open, summed per game and seat.
    pub async fn others_presence(
        &self,
        process: &str,
        since_ms: i64,
    ) -> Result<BTreeMap<PresenceKey, u32>> {
        let sql = "SELECT p.game_id, p.seat, CAST(SUM(p.streams) AS BIGINT) FROM presence p \
                   JOIN presence_processes q ON q.process = p.process \
                   WHERE q.beat_at >= $1 AND p.process <> $2 GROUP BY p.game_id, p.seat";
        let rows: Vec<(GameId, i64, i64)> = on_pool!(self, pool => {
            sqlx::query_as(sql).bind(since_ms).bind(process).fetch_all(pool).await?
        });
        Ok(rows
            .into_iter()
            .filter_map(|(game, seat, streams)| {
                let seat = if seat == SPECTATORS {
                    None
                } else {
                    Some(Seat(u8::try_from(seat).ok()?))
                };
                Some(((game, seat), u32::try_from(streams).ok()?))
            })
            .collect())
    }

    /// Forgets what `process` recorded (it is stopping).
    pub async fn leave_presence(&self, process: &str) -> Result<()> {
        on_writer!(self, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query("DELETE FROM presence WHERE process = $1")
                .bind(process)
                .execute(&mut *tx)
                .await?;
            sqlx::query("DELETE FROM presence_processes WHERE process = $1")
                .bind(process)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
        });
        Ok(())
    }
}
