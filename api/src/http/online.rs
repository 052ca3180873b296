//! Playing online: table talk, seats handed to bots and taken back, tokens issued again, and
//! who is connected. Every act is an event decided by the engine (`History::talk`, …) and
//! committed through the one command cycle; presence is the open event streams of every
//! server process on the database.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use saboteur_domain::{BotLevel, Seat};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::act::Act;
use crate::app::seam;
use crate::app::state::AppState;
use crate::dto::{NewToken, Outcome, PresenceView};
use crate::error::ApiError;
use crate::http::body::Json;
use crate::http::perform::{game, header, idempotency_key, perform};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(talk)
        .service(hide_talk)
        .service(hand_over)
        .service(reclaim)
        .service(reissue_token)
        .service(presence);
}

/// A message for the table.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TalkRequest {
    /// The message: 1–280 characters, no control characters.
    #[schema(
        example = "seat 2 broke my lamp: saboteur!",
        min_length = 1,
        max_length = 280
    )]
    pub text: String,
    /// A spectator's name (1–40 characters); players are known by their seat and send none.
    #[schema(min_length = 1, max_length = 40)]
    pub name: Option<String>,
}

/// The bot a seat is handed to.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HandOverRequest {
    /// `random`, `heuristic` (the default) or `expert`.
    #[serde(default = "heuristic")]
    pub level: BotLevel,
}

fn heuristic() -> BotLevel {
    BotLevel::Heuristic
}

/// Talk at the table
///
/// Posts a public message, recorded in the log (it shows in the event stream and in replays).
/// Players post with their token; spectators without one, under a `name`, if the host allowed
/// it when creating the game. At most 5 messages every 30 seconds per seat (spectators count as
/// one): beyond, 429 with `Retry-After`.
#[utoipa::path(
    tag = "table",
    params(
        ("Seat-Signature" = Option<String>, Header, description = "The player's Ed25519 signature of the act, 128 hex digits (docs/clients.md): needed once the seat has a key, refused with 401 `signature_required` without it and `bad_signature` when it does not verify"),
        ("Seat-Signature-Version" = Option<String>, Header, description = "The version the act was chosen and signed at, in decimal digits (e.g. `\"41\"`); it must still hold when the act arrives, as `If-Match` does for a command"),
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a player's retry with the same key answers exactly the first reply, marked `Idempotency-Replayed: true` (the key sent with another act is 422 `idempotency_key_reused`)"),
        ("id" = String, Path, description = "The game's id")),
    request_body = TalkRequest,
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "Posted: the event as the caller sees it", body = Outcome),
        (status = 400, description = "Empty, too long, or holding control characters; a player sent a name, or a spectator none", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The token is not this game's, or the seat's key must sign (`signature_required`, `bad_signature`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "The host's token, or a spectator at a table where spectators may not talk", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game has not started (`not_started`: talk opens with the deal) or is over, or another write was recorded first", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many messages: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 422, description = "The Idempotency-Key was used for another act (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/talk")]
async fn talk(
    state: web::Data<AppState>,
    id: web::Path<String>,
    body: Json<TalkRequest>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let TalkRequest { text, name } = body.into_inner();
    let act = Act::Talk {
        game: game(&id)?,
        text,
        name,
        key: header(&req, idempotency_key(&req)).await?,
    };
    perform(&state, &req, act).await
}

/// Hide a message
///
/// The host hides a message: an event of its own. The message stays in the log (the audit
/// bundle keeps it) but is shown to everyone else with `text: null`.
#[utoipa::path(
    tag = "table",
    params(
        ("id" = String, Path, description = "The game's id"),
        ("seq" = u64, Path, description = "The message's sequence number"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Hidden", body = Outcome),
        (status = 400, description = "Malformed path or authorization header", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The host's token is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only the host hides messages", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game, or that event is not a message", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already hidden, or the game is over", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/talk/{seq}/hide")]
async fn hide_talk(
    state: web::Data<AppState>,
    path: web::Path<(String, u64)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seq) = path.into_inner();
    perform(
        &state,
        &req,
        Act::HideTalk {
            game: game(&id)?,
            seq,
        },
    )
    .await
}

/// Hand a seat to a bot
///
/// The host hands a seat to a bot during play (its player is away): the bot decides for it
/// until the player takes it back with their token. Recorded as an event.
#[utoipa::path(
    tag = "table",
    params(
        ("id" = String, Path, description = "The game's id"),
        ("seat" = u8, Path, description = "The seat"),
    ),
    request_body = HandOverRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Handed over (and the bot's moves, if it was the seat's turn)", body = Outcome),
        (status = 400, description = "Malformed body", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The host's token is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only the host hands seats over", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or seat", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not started, over, or a bot already plays the seat", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/seats/{seat}/handover")]
async fn hand_over(
    state: web::Data<AppState>,
    path: web::Path<(String, u8)>,
    body: Json<HandOverRequest>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let act = Act::HandOver {
        game: game(&id)?,
        seat: Seat(seat),
        level: body.level,
    };
    perform(&state, &req, act).await
}

/// Take my seat back
///
/// A player whose seat was handed to a bot (abandoned after timeouts, or by the host) takes it
/// back with their token.
#[utoipa::path(
    tag = "table",
    params(
        ("Seat-Signature" = Option<String>, Header, description = "The player's Ed25519 signature of the act, 128 hex digits (docs/clients.md): needed once the seat has a key, refused with 401 `signature_required` without it and `bad_signature` when it does not verify"),
        ("Seat-Signature-Version" = Option<String>, Header, description = "The version the act was chosen and signed at, in decimal digits (e.g. `\"41\"`); it must still hold when the act arrives, as `If-Match` does for a command"),
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a player's retry with the same key answers exactly the first reply, marked `Idempotency-Replayed: true` (the key sent with another act is 422 `idempotency_key_reused`)"),
        ("id" = String, Path, description = "The game's id"),
        ("seat" = u8, Path, description = "The seat"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Taken back", body = Outcome),
        (status = 400, description = "Malformed path or authorization header", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The seat's player token is needed, or the seat's key must sign (`signature_required`, `bad_signature`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not this seat's token", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or seat", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "No bot plays the seat, or the game is over", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 422, description = "The Idempotency-Key was used for another act (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/seats/{seat}/reclaim")]
async fn reclaim(
    state: web::Data<AppState>,
    path: web::Path<(String, u8)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    perform(
        &state,
        &req,
        Act::Reclaim {
            game: game(&id)?,
            seat: Seat(seat),
            key: header(&req, idempotency_key(&req)).await?,
        },
    )
    .await
}

/// Issue a seat a new token
///
/// For a player who lost their token: the host gets a new one for the seat and the old one
/// stops working, in one transaction with the event that records that it happened (never the
/// token).
#[utoipa::path(
    tag = "table",
    params(
        ("id" = String, Path, description = "The game's id"),
        ("seat" = u8, Path, description = "The seat"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The new token", body = NewToken),
        (status = 400, description = "Malformed path or authorization header", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The host's token is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only the host issues tokens", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or seat, or nobody holds it", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "A bot holds the seat, or the game is over", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/seats/{seat}/token")]
async fn reissue_token(
    state: web::Data<AppState>,
    path: web::Path<(String, u8)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    perform(
        &state,
        &req,
        Act::ReissueToken {
            game: game(&id)?,
            seat: Seat(seat),
        },
    )
    .await
}

/// Who is connected
///
/// Which seats follow the game live (an open event stream to any server process on the
/// database), and how many spectators do. A stream opened or closed through another process
/// shows here within two beats of 2 s; a process that stops shows its streams for at most 10 s.
#[utoipa::path(
    tag = "table",
    params(("id" = String, Path, description = "The game's id")),
    responses(
        (status = 200, description = "Who is connected", body = PresenceView),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/games/{id}/presence")]
async fn presence(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let game = game(&id)?;
    let players = seam::open(&state, &game).await?.players();
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-cache"))
        .json(state.presence.of(&game, players)))
}
