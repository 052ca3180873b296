//! Refusals a player can show (step 2 onwards of the seam, and the gates before it): a 4xx of
//! a seat's or the host's request is answered with the server's signed receipt of kind
//! `refusal`, at the game's version, with the hash of what was refused.

use saboteur_domain::Audience;

use crate::app::act::{Act, Signed, Who};
use crate::app::ids;
use crate::app::reply;
use crate::app::signing;
use crate::app::state::AppState;
use crate::app::tables::Held;
use crate::error::ApiError;
use crate::receipt::ReceiptKind;

/// A refusal (a 4xx) of a player's or the host's act, with the server's signed receipt of it at
/// the table's version and the hash of what was refused (`refused`): so a player can prove
/// when, and at which version, a write was refused. A 503 of a store that could not be reached
/// is signed too, from the table in memory (at the last version it knows recorded). A 401 or a
/// 404 is signed too once the caller is known (a bad or missing signature, a seat that does not
/// exist); a caller the token does not name gets none. Other errors, and refusals whose receipt
/// cannot be made, are answered as they are.
pub(in crate::app) async fn signed_refusal(
    state: &AppState,
    table: &mut Held,
    (who, refused): (Who, Option<String>),
    e: ApiError,
) -> ApiError {
    use actix_web::ResponseError as _;
    let status = e.status_code();
    let audience = match who {
        Who::Player(seat) => Audience::Seat(seat),
        Who::Host => Audience::Spectator,
        Who::Anyone | Who::Server => return e,
    };
    if matches!(e, ApiError::Signed { .. }) {
        return e;
    }
    let signed = if e.unreachable() {
        // The store could not be reached: signed from memory, at the last version the table
        // knows recorded, its time not kept (nothing can be written now).
        let at = (table.record().version, None);
        let kind = (ReceiptKind::Refusal, refused);
        reply::unkept_receipt(state, table, kind, at, audience, &e.problem()).await
    } else if status.is_client_error() {
        let at = (table.version(), None);
        let kind = (ReceiptKind::Refusal, refused);
        reply::kept_receipt(state, table, kind, at, audience, &e.problem()).await
    } else {
        return e;
    };
    match signed {
        Ok(receipt) => ApiError::Signed {
            error: Box::new(e),
            receipt: Box::new(receipt),
        },
        Err(_) => e,
    }
}

/// A refusal decided before the seam — a per-client limit's 429, a body over the limit (413)
/// or not JSON (400) — of a request for a game held in memory, by a caller its token names:
/// signed as the seam's own refusals are ([`signed_refusal`]), `refused` the hash of the body
/// when it was read whole. Nothing is read from the store for it: for a game not in memory or a
/// token its table does not know, the refusal is answered unsigned.
pub(crate) async fn refused_before(
    state: &AppState,
    (game, token): (&str, Option<&str>),
    refused: Option<String>,
    e: ApiError,
) -> ApiError {
    let (Some(token), Ok(game)) = (token, ids::game_id(game)) else {
        return e;
    };
    let Some(Ok(mut table)) = state.tables.open_if_cached(&game).await else {
        return e;
    };
    refused_to_caller(state, &mut table, (Some(token), refused), e).await
}

/// A refusal of a request by the caller its `token` names on `table` (a seat's, or the
/// host's), signed for that caller ([`signed_refusal`]); a token the table does not know gets
/// the refusal unsigned. The seam's refusals before it knows who acts (a host's token on a
/// player's act, a player's on the host's: 403) are signed so.
pub(in crate::app) async fn refused_to_caller(
    state: &AppState,
    table: &mut Held,
    (token, refused): (Option<&str>, Option<String>),
    e: ApiError,
) -> ApiError {
    use crate::app::auth::{Caller, identify};
    let who = match token.and_then(|t| identify(t, table.credentials())) {
        Some(Caller::Player(seat)) => Who::Player(seat),
        Some(Caller::Host) => Who::Host,
        _ => return e,
    };
    signed_refusal(state, table, (who, refused), e).await
}

/// What a refusal's receipt hashes: the message the player signed, for a signed act; else the
/// request's body as sent (`body_hash`).
pub(in crate::app) fn refused_hash(
    table: &Held,
    act: &Act,
    who: Who,
    signed: Option<&Signed>,
    body_hash: Option<&str>,
) -> Option<String> {
    use sha2::{Digest as _, Sha256};
    match (signed, signing::signed_act(act, who)) {
        (Some(s), Some((seat, kind))) => {
            // A body that is not JSON has no statement: the body as sent stands for it.
            match signing::statement(table, seat, kind, s) {
                Some(message) => Some(hex::encode(Sha256::digest(&message))),
                None => Some(hex::encode(Sha256::digest(s.body.as_bytes()))),
            }
        }
        _ => body_hash.map(str::to_string),
    }
}
