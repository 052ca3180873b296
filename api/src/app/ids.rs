//! The types at the edges of the write path, the store's own ([`GameId`], [`Version`]), and
//! what a client's text that is not a game's id answers.

pub(crate) use saboteur_storage::{GameId, Version};

use crate::error::ApiError;

/// The game id a client named: 404 when it is not a UUID (no game has such an id).
pub(crate) fn game_id(text: &str) -> Result<GameId, ApiError> {
    GameId::parse(text).map_err(|e| ApiError::NotFound(e.to_string()))
}
