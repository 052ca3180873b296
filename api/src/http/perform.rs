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
    let game = act.game().cloned();
    let done = seam::act(state, Request::new(bearer(req)?, act)).await?;
    Ok(respond(done, game.as_ref()))
}

/// A 201 naming the seat of `game` it took in `Location` (every act that seats has a game).
fn seated(game: Option<&GameId>, seat: u8) -> actix_web::HttpResponseBuilder {
    let mut response = HttpResponse::Created();
    if let Some(game) = game {
        response.insert_header(("Location", format!("/games/{}/seats/{seat}", game.as_str())));
    }
    response
}

/// The response for what an act on `game` (none for a creation) did. Every 201 names what it
/// made in `Location`: the game, or the seat.
fn respond(done: Done, game: Option<&GameId>) -> HttpResponse {
    match done {
        Done::Created(created) => HttpResponse::Created()
            .insert_header(("Location", format!("/games/{}", created.game_id)))
            .json(created),
        Done::Joined(joined) => seated(game, joined.seat).json(joined),
        Done::BotSeated(bot) => seated(game, bot.seat).json(bot),
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
