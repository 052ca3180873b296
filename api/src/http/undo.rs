//! Undo without rewriting history: take back one's last command (at once, or with everyone's
//! consent), and the host's rollback with a written reason. Every step is an appended event.

use actix_web::{HttpRequest, HttpResponse, post, web};
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::act::Act;
use crate::app::state::AppState;
use crate::dto::Outcome;
use crate::error::ApiError;
use crate::http::body::Json;
use crate::http::perform::{game, header, idempotency_key, perform};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(request_undo)
        .service(approve_undo)
        .service(decline_undo)
        .service(rollback);
}

/// Take back my last command
///
/// Takes back the caller's last command at once when nobody has acted since and it revealed
/// nothing hidden; otherwise asks every other player, who approve or decline (bots vote at once,
/// within this request). 200 when the outcome is settled — taken back, or declined — and
/// nothing is pending; 202 while other players' votes are still awaited. The log keeps the
/// undone events.
#[utoipa::path(
    tag = "play",
    params(
        ("Seat-Signature" = Option<String>, Header, description = "The player's Ed25519 signature of the act, 128 hex digits (docs/clients.md): needed once the seat has a key, refused with 401 `signature_required` without it and `bad_signature` when it does not verify"),
        ("Seat-Signature-Version" = Option<String>, Header, description = "The version the act was chosen and signed at, in decimal digits (e.g. `\"41\"`); it must still hold when the act arrives, as `If-Match` does for a command"),
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a player's retry with the same key answers exactly the first reply, marked `Idempotency-Replayed: true` (the key sent with another act is 422 `idempotency_key_reused`)"),
        ("id" = String, Path, description = "The game's id")),
    security(("bearer" = [])),
    responses(
        (status = 400, description = "Malformed signature headers (`Seat-Signature`, `Seat-Signature-Version`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 200, description = "Settled, nothing pending: taken back (the `undone` event), or asked and declined at once by the bots (`undo_requested`, `undo_declined`)", body = Outcome),
        (status = 202, description = "Asked: the `undo_requested` event (and the bots' approvals); other players' votes are still awaited", body = Outcome),
        (status = 401, description = "A player's token is needed, or the seat's key must sign (`signature_required`, `bad_signature`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "The host is not a player", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "Nothing to take back, or a request is pending, or the game is over", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 422, description = "The Idempotency-Key was used for another act (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/undo")]
async fn request_undo(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let act = Act::RequestUndo {
        game: game(&id)?,
        key: header(&req, idempotency_key(&req)).await?,
    };
    perform(&state, &req, act).await
}

async fn vote(
    state: web::Data<AppState>,
    id: &str,
    req: HttpRequest,
    approve: bool,
) -> Result<HttpResponse, ApiError> {
    let act = Act::VoteUndo {
        game: game(id)?,
        approve,
        key: header(&req, idempotency_key(&req)).await?,
    };
    perform(&state, &req, act).await
}

/// Approve the pending undo
///
/// The last approval takes the command back (200 with the `undone` event: nothing is pending);
/// before that, 202 while other votes are still awaited.
#[utoipa::path(
    tag = "play",
    params(
        ("Seat-Signature" = Option<String>, Header, description = "The player's Ed25519 signature of the act, 128 hex digits (docs/clients.md): needed once the seat has a key, refused with 401 `signature_required` without it and `bad_signature` when it does not verify"),
        ("Seat-Signature-Version" = Option<String>, Header, description = "The version the act was chosen and signed at, in decimal digits (e.g. `\"41\"`); it must still hold when the act arrives, as `If-Match` does for a command"),
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a player's retry with the same key answers exactly the first reply, marked `Idempotency-Replayed: true` (the key sent with another act is 422 `idempotency_key_reused`)"),
        ("id" = String, Path, description = "The game's id")),
    security(("bearer" = [])),
    responses(
        (status = 400, description = "Malformed signature headers (`Seat-Signature`, `Seat-Signature-Version`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 200, description = "Approved, and taken back: nothing is pending", body = Outcome),
        (status = 202, description = "Approved; other votes are still awaited", body = Outcome),
        (status = 401, description = "A player's token is needed, or the seat's key must sign (`signature_required`, `bad_signature`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "The host is not a player", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "No request is pending, or this player cannot vote on it", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 422, description = "The Idempotency-Key was used for another act (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/undo/approve")]
async fn approve_undo(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    vote(state, &id, req, true).await
}

/// Decline the pending undo
///
/// Drops the pending request; the command stands. Nothing is pending after it: 200.
#[utoipa::path(
    tag = "play",
    params(
        ("Seat-Signature" = Option<String>, Header, description = "The player's Ed25519 signature of the act, 128 hex digits (docs/clients.md): needed once the seat has a key, refused with 401 `signature_required` without it and `bad_signature` when it does not verify"),
        ("Seat-Signature-Version" = Option<String>, Header, description = "The version the act was chosen and signed at, in decimal digits (e.g. `\"41\"`); it must still hold when the act arrives, as `If-Match` does for a command"),
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a player's retry with the same key answers exactly the first reply, marked `Idempotency-Replayed: true` (the key sent with another act is 422 `idempotency_key_reused`)"),
        ("id" = String, Path, description = "The game's id")),
    security(("bearer" = [])),
    responses(
        (status = 400, description = "Malformed signature headers (`Seat-Signature`, `Seat-Signature-Version`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 200, description = "Declined: the request is dropped, nothing is pending", body = Outcome),
        (status = 401, description = "A player's token is needed, or the seat's key must sign (`signature_required`, `bad_signature`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "The host is not a player", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "No request is pending, or this player cannot vote on it", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 422, description = "The Idempotency-Key was used for another act (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/undo/decline")]
async fn decline_undo(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    vote(state, &id, req, false).await
}

/// A rollback to an earlier version.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Rollback {
    /// The version to return to: one between two commands.
    pub to_version: u64,
    /// Why, in words: it is recorded in the log.
    pub reason: String,
}

/// Roll the game back
///
/// The host returns the game to an earlier version to settle a dispute, with a written reason.
/// Recorded as an `undone` event; the log keeps everything.
#[utoipa::path(
    tag = "play",
    params(("id" = String, Path, description = "The game's id")),
    security(("bearer" = [])),
    request_body = Rollback,
    responses(
        (status = 200, description = "Rolled back", body = Outcome),
        (status = 400, description = "No such version between two commands, or no reason", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The host's token is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only the host rolls back", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "The game is over", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/rollback")]
async fn rollback(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
    body: Json<Rollback>,
) -> Result<HttpResponse, ApiError> {
    let Rollback { to_version, reason } = body.into_inner();
    let act = Act::Rollback {
        game: game(&id)?,
        to_version,
        reason,
    };
    perform(&state, &req, act).await
}
