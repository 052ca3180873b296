//! A committed share revealed once the host closed the lobby.

use actix_web::{HttpRequest, HttpResponse, put, web};
use saboteur_domain::Seat;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::act::Act;
use crate::app::state::AppState;
use crate::dto::{RevealShare, ShareRevealed};
use crate::error::ApiError;
use crate::http::body::Json;
use crate::http::perform::{game, perform};

pub(crate) fn configure(cfg: &mut ServiceConfig) {
    cfg.service(reveal_share);
}

/// Reveal my share
///
/// A player who took their seat with `share_commitment` reveals the share once the host has
/// closed the lobby (the host's first start, 202): the share must open the commitment. The
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
        (status = 409, description = "The lobby is open: shares are revealed once the host starts (`lobby_open`); the game has started (`already_started`) or was cancelled (`cancelled`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
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
