//! Rematches and series: the next game with the same seats and bots, each player claiming
//! their seat with their token from the game before, and a series' running total of gold.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use saboteur_domain::Seat;
use saboteur_storage::GameStatus;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::act::{Act, SentKey, SentShare};
use crate::app::seam;
use crate::app::state::AppState;
use crate::dto::{ClaimSeat, GameCreated, Joined};
use crate::error::ApiError;
use crate::http::body::MaybeJson;
use crate::http::perform::{game, header, key_for, perform};

/// The most games a series lists.
const MOST_GAMES: usize = 100;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(rematch).service(claim).service(series);
}

/// One game of a series.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeriesGame {
    /// The game's id.
    pub id: String,
    /// Where it is in its life.
    pub status: GameStatus,
    /// Each seat's gold, once the game is over.
    #[schema(required = true)]
    pub gold: Option<Vec<u32>>,
}

/// A series of games, each a rematch of the one before.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Series {
    /// The games, first first.
    pub games: Vec<SeriesGame>,
    /// Each seat's gold over the finished games.
    pub totals: Vec<u32>,
}

/// Play a rematch
///
/// From a finished game, the host creates the next one: the same ruleset, options, seats and
/// bots, a new seed, the next seat starting. Each player claims their seat with their token
/// from this game (`POST /games/{new}/seats/{seat}/claim`) and gets a new one; the host gets
/// the new game's host token. The games are linked both ways (`previous`, and the series).
/// With an `Idempotency-Key`, a retry by the host answers the first reply again (the new
/// game's host token included) for a day, through any server process and after a failover.
#[utoipa::path(
    tag = "games",
    params(
        ("id" = String, Path, description = "The finished game's id"),
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a retry with the same key answers the first reply, marked `Idempotency-Replayed: true`; kept for 24 hours"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The rematch was created", body = GameCreated, headers(("Location" = String, description = "The rematch: `/games/{id}`"), ("Idempotency-Replayed" = String, description = "`true` on the first reply given again to a retried `Idempotency-Key`"))),
        (status = 400, description = "A malformed Idempotency-Key (1 to 200 visible characters)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The host's token is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only the host creates the rematch", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is not over, or already has a rematch (made without this Idempotency-Key)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 422, description = "The Idempotency-Key was used for another game's rematch (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/rematch")]
async fn rematch(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let game = game(&id)?;
    let key = header(
        &req,
        key_for(&req, format!("rematch {}", game.as_str()), ""),
    )
    .await?;
    perform(&state, &req, Act::Rematch { game, key }).await
}

/// Claim my seat in a rematch
///
/// A player of the previous game claims their seat in its rematch with their token from that
/// game, and gets this game's token for the seat. The body (optional) brings a share in the
/// rematch's seed and a public key, as a join does.
#[utoipa::path(
    tag = "games",
    params(
        ("id" = String, Path, description = "The rematch's id"),
        ("seat" = u8, Path, description = "The seat held in the previous game"),
    ),
    request_body(content = Option<ClaimSeat>, description = "A share in the seed and a public key (optional)"),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Seated: the new token", body = Joined, headers(("Location" = String, description = "The seat taken: `/games/{id}/seats/{seat}` (the path that gives it back before the start)"))),
        (status = 400, description = "Malformed path, body or authorization header; a share or key that is not 64 hex digits (`bad_key` for a key); a key without a proof of possession that verifies (`bad_key_proof`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The seat's token from the previous game is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "That token held another seat, or none", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game, or the seat is not waiting to be claimed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The key is another seat's (`key_in_use`: one key signs for one seat)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/seats/{seat}/claim")]
async fn claim(
    state: web::Data<AppState>,
    path: web::Path<(String, u8)>,
    body: MaybeJson<ClaimSeat>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let ClaimSeat {
        entropy,
        share_commitment,
        public_key,
        key_proof,
    } = body.0.unwrap_or_default();
    perform(
        &state,
        &req,
        Act::Claim {
            game: game(&id)?,
            seat: Seat(seat),
            share: SentShare {
                entropy,
                commitment: share_commitment,
            },
            key: public_key.map(|key| SentKey {
                key,
                proof: key_proof,
                at: None,
            }),
        },
    )
    .await
}

/// Follow a series
///
/// The games of the series this game belongs to (each a rematch of the one before), with each
/// finished game's gold and the running totals per seat.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "Any game of the series")),
    responses(
        (status = 200, description = "The series", body = Series),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/games/{id}/series")]
async fn series(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = crate::http::perform::game(&id)?;
    let mut ids = vec![id.clone()];
    let mut record = state.store.get_game(&id).await?;
    while let Some(previous) = record.previous.clone() {
        if ids.len() >= MOST_GAMES || ids.contains(&previous) {
            break;
        }
        record = state.store.get_game(&previous).await?;
        ids.insert(0, previous);
    }
    let mut at = id;
    while ids.len() < MOST_GAMES {
        match state.store.next_game(&at).await? {
            Some(next) if !ids.contains(&next) => {
                ids.push(next.clone());
                at = next;
            }
            _ => break,
        }
    }
    let mut games = Vec::with_capacity(ids.len());
    let mut totals: Vec<u32> = Vec::new();
    for game in ids {
        let table = seam::open(&state, &game).await?;
        let gold = table.over().then(|| table.history().game().gold().to_vec());
        if let Some(g) = &gold {
            totals.resize(totals.len().max(g.len()), 0);
            for (t, x) in totals.iter_mut().zip(g) {
                *t += x;
            }
        }
        games.push(SeriesGame {
            id: game.to_string(),
            status: table.record().status,
            gold,
        });
    }
    Ok(HttpResponse::Ok().json(Series { games, totals }))
}
