//! What every handler shares: the bearer token and the game id of a request, and handing an
//! act to the seam with the response for what it did.

use actix_web::{HttpRequest, HttpResponse};

use crate::app::act::{Act, Done, Request};
use crate::app::ids::GameId;
use crate::app::seam;
use crate::error::ApiError;
use crate::state::AppState;

/// The bearer token of a request, if it has an `Authorization` header.
pub(crate) fn bearer(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(header) = req.headers().get("authorization") else {
        return Ok(None);
    };
    header
        .to_str()
        .ok()
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(|t| Some(t.trim().to_string()))
        .ok_or_else(|| ApiError::Unauthorized("use `Authorization: Bearer <token>`".into()))
}

/// A game id from a path.
pub(crate) fn game(id: &str) -> Result<GameId, ApiError> {
    GameId::parse(id)
}

/// Hands `act` to the seam with the request's token and answers with what it did.
pub(crate) async fn perform(
    state: &AppState,
    req: &HttpRequest,
    act: Act,
) -> Result<HttpResponse, ApiError> {
    let done = seam::act(state, Request::new(bearer(req)?, act)).await?;
    Ok(respond(done))
}

/// The response for what an act did.
fn respond(done: Done) -> HttpResponse {
    match done {
        Done::Created(created) => HttpResponse::Created()
            .insert_header(("Location", format!("/games/{}", created.game_id)))
            .json(created),
        Done::Joined(joined) => HttpResponse::Created().json(joined),
        Done::BotSeated(seated) => HttpResponse::Created().json(seated),
        Done::Left => HttpResponse::NoContent().finish(),
        Done::Recorded(out) => HttpResponse::Ok()
            .insert_header(("ETag", format!("\"{}\"", out.version)))
            .json(out),
        Done::Awaiting(out) => HttpResponse::Accepted()
            .insert_header(("ETag", format!("\"{}\"", out.version)))
            .json(out),
        Done::NewToken(token) => HttpResponse::Ok().json(token),
        Done::Nothing => HttpResponse::NoContent().finish(),
    }
}
