//! The first replies to a lobby's acts sent with an `Idempotency-Key` — a seat taken, a bot
//! seated, a seat given back, a seat's key changed, a seat named anew — kept in the store as
//! their [`LobbyDone`](crate::app::lobby_done::LobbyDone) (`kept_replies`, for
//! [`saboteur_storage::KEPT_FOR`]), so a retry through any process answers the first reply,
//! marked replayed, and changes nothing. A lobby's seats change without events, so there is no
//! batch to find the reply by, as a command's retry does (`retry.rs`).
//!
//! Each key is scoped to who sent it (the client for a join, the token otherwise: see
//! `crate::http::games`) and the act's game; the same key with another request is 422
//! `idempotency_key_reused`. The reply is kept after the act, while the game's table is held,
//! so a retry in the same process waits for it; a retry through another process at the very
//! moment of the first is decided on its own.

use saboteur_storage::{KEPT_FOR, KeptReply};

use crate::app::act::{Done, KeyFor};
use crate::app::ids::GameId;
use crate::app::state::AppState;
use crate::error::ApiError;

/// The first reply kept for a retried key (its body as stored), if any: a creation's, a
/// rematch's or a lobby act's. 422 `idempotency_key_reused` when the key came with another
/// request.
pub(crate) async fn first_reply(
    state: &AppState,
    key: &KeyFor,
) -> Result<Option<String>, ApiError> {
    let since = chrono::Utc::now() - KEPT_FOR;
    let Some(kept) = state.writer.kept_reply(&key.scope, &key.key, since).await? else {
        return Ok(None);
    };
    if kept.request != key.request {
        return Err(ApiError::Unprocessable {
            code: "idempotency_key_reused",
            detail: "this Idempotency-Key was used for another request; use a new key for a new \
                     request"
                .into(),
        });
    }
    Ok(Some(kept.reply))
}

/// The reply kept for a retried key of a lobby's act, if any, marked replayed.
pub(crate) async fn again(state: &AppState, key: &KeyFor) -> Result<Option<Done>, ApiError> {
    let Some(reply) = first_reply(state, key).await? else {
        return Ok(None);
    };
    let done = serde_json::from_str(&reply)
        .map_err(|e| ApiError::Internal(format!("a kept reply cannot be read: {e}")))?;
    Ok(Some(Done::Replayed(Box::new(Done::Lobby(done)))))
}

/// Keeps `done`, the first reply to a lobby's act sent with `key`. Only a lobby's reply is
/// kept (a key registered after the start is kept with its batch). When the store cannot keep
/// it, the act stands and the reply is sent; a retry is then decided again.
pub(crate) async fn keep(state: &AppState, game: &GameId, key: &KeyFor, done: &Done) {
    let Done::Lobby(done) = done else {
        return;
    };
    let reply = match serde_json::to_string(done) {
        Ok(reply) => reply,
        Err(e) => {
            tracing::warn!(game = %game, "a lobby's reply not kept: {e}");
            return;
        }
    };
    let kept = KeptReply {
        scope: key.scope.clone(),
        key: key.key.clone(),
        request: key.request.clone(),
        reply,
    };
    if let Err(e) = state.writer.keep_reply(&kept, game).await {
        tracing::warn!(game = %game, "a lobby's reply not kept: {e}");
    }
}
