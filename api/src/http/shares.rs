//! The shares committed to: the lobby closed by the host, and a share revealed.

use actix_web::{HttpRequest, HttpResponse, post, put, web};
use saboteur_domain::Seat;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::act::Act;
use crate::app::state::AppState;
use crate::dto::{LobbyClosed, RevealShare, ShareRevealed};
use crate::error::ApiError;
use crate::http::body::Json;
use crate::http::perform::{game, perform};

pub(crate) fn configure(cfg: &mut ServiceConfig) {
    cfg.service(close_lobby).service(reveal_share);
}

/// Close the lobby for the shares
///
/// The host closes a lobby whose seats are all taken for the shares the players committed to
/// (`share_commitment`) to be revealed: from now on no seat is taken, claimed or given back
/// (409 `lobby_closed`), each committed seat reveals its share
/// (`PUT /games/{id}/seats/{seat}/share`), and the last share revealed starts the game. A start
/// before then is 409 `shares_unrevealed` until `reveal_by`, 30 s from the close; after it the
/// host's start deals without the shares still awaited. Closing again answers the same
/// `reveal_by`.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Closed: when the shares' time is up, and whose are awaited", body = LobbyClosed),
        (status = 401, description = "No valid token for this game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only the host closes the lobby", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "Seats are free (`seats_open`), the game has started (`already_started`) or was cancelled (`cancelled`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/close")]
async fn close_lobby(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    perform(&state, &req, Act::CloseLobby { game: game(&id)? }).await
}

/// Reveal my share
///
/// A player who took their seat with `share_commitment` reveals the share once the host has
/// closed the lobby (`POST /games/{id}/close`): the share must open the commitment. The
/// reply is the seat's commitment made again, now naming the share, signed: keep it with the
/// first (`saboteur verify --commitment` names a deal drawn without a share the server
/// acknowledged). The last share awaited starts the game (`started`). Revealing again the same
/// share answers the same; no signature is needed (nobody else can open your commitment).
#[utoipa::path(
    tag = "games",
    params(
        ("id" = String, Path, description = "The game's id"),
        ("seat" = u8, Path, description = "The caller's seat"),
    ),
    request_body = RevealShare,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Revealed: the seat's commitment with its share, signed, and the seats still awaited", body = ShareRevealed),
        (status = 400, description = "Not 64 hex digits, or a share that does not open the seat's commitment, or a seat that committed to none", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "A player's token is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not this seat's token", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or seat", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The lobby is open: shares are revealed once the host closes it (`lobby_open`); the game has started (`already_started`) or was cancelled (`cancelled`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[put("/games/{id}/seats/{seat}/share")]
async fn reveal_share(
    state: web::Data<AppState>,
    path: web::Path<(String, u8)>,
    body: Json<RevealShare>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let act = Act::RevealShare {
        game: game(&id)?,
        seat: Seat(seat),
        entropy: body.into_inner().entropy,
    };
    perform(&state, &req, act).await
}
