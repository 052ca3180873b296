//! The latest time the server signed for a game outside its events (a refusal, a commitment):
//! the floor under every time it signs or records for the game afterwards, kept in the store so
//! that it holds across restarts (a clock corrected backwards) and processes.

use crate::backend::{EventStore, on_pool, on_writer};
use crate::error::Result;
use crate::ids::GameId;

impl EventStore {
    /// The game's floor, in milliseconds since the Unix epoch (0 when nothing was signed).
    pub async fn time_floor(&self, game_id: &GameId) -> Result<i64> {
        let sql = "SELECT floor_ms FROM signed_times WHERE game_id = $1";
        let floor: Option<i64> = on_pool!(self, pool => {
            sqlx::query_scalar(sql).bind(game_id).fetch_optional(pool).await?
        });
        Ok(floor.unwrap_or(0))
    }

    /// Raises the game's floor to `ms` (never lowers it); the floor it holds now.
    pub async fn raise_time_floor(&self, game_id: &GameId, ms: i64) -> Result<i64> {
        let sql = "INSERT INTO signed_times (game_id, floor_ms) VALUES ($1, $2) \
                   ON CONFLICT (game_id) DO UPDATE SET floor_ms = CASE \
                   WHEN excluded.floor_ms > signed_times.floor_ms THEN excluded.floor_ms \
                   ELSE signed_times.floor_ms END \
                   RETURNING floor_ms";
        Ok(on_writer!(self, pool => {
            sqlx::query_scalar(sql).bind(game_id).bind(ms).fetch_one(pool).await?
        }))
    }
}
