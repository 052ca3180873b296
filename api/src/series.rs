//! Rematches and series: the next game with the same seats and bots, each player claiming
//! their seat with their token from the game before, and a series' running total of gold.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use saboteur_domain::{Seat, Seed};
use saboteur_storage::{
    Credential, GameStatus, NewGame, Role, StoreError, seed_commitment, to_new_event,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::AppState;
use crate::auth::{bearer, new_token, token_hash};
use crate::dto::{GameCreated, Joined};
use crate::error::ApiError;
use crate::games::chrono_now;

/// The most games a series lists.
const MOST_GAMES: usize = 100;

/// The prefix of a reserved seat's credential: what follows is the previous game's token hash.
const CLAIM: &str = "claim:";

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
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The finished game's id")),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The rematch was created", body = GameCreated),
        (status = 401, description = "The host's token is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only the host creates the rematch", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is not over, or already has a rematch", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/rematch")]
async fn rematch(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (ruleset, options, players, first, seats) = {
        let mut table = state.tables.open(&id).await?;
        table
            .caller(&state.store, &req)
            .await?
            .host("creates the rematch")?;
        if !table.over() {
            return Err(ApiError::Conflict(
                "the game is not over: a rematch follows a finished game".into(),
            ));
        }
        let game = table.history.game();
        (
            game.ruleset(),
            game.options(),
            table.players(),
            Seat((game.first_player().0 + 1) % table.players().max(1)),
            table.credentials.clone(),
        )
    };
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| ApiError::Internal(format!("no randomness: {e}")))?;
    let seed = Seed(bytes);
    let created = saboteur_domain::create(ruleset, options, players, first, seed)
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let new_id = uuid::Uuid::new_v4().to_string();
    let commitment = seed_commitment(&seed.0);
    let host = new_token()?;
    let now = chrono_now();
    let credential = |token_hash: String, role: Role, old: &Credential| Credential {
        game_id: new_id.clone(),
        token_hash,
        role,
        seat: old.seat,
        display_name: old.display_name.clone(),
        created_at: now,
    };
    let kept: Vec<Credential> = seats
        .iter()
        .filter(|c| c.seat.is_some())
        .map(|c| match c.role {
            Role::Bot(_) => credential(c.token_hash.clone(), c.role, c),
            _ => credential(format!("{CLAIM}{}", c.token_hash), Role::Reserved, c),
        })
        .collect();
    let record = state
        .store
        .create_game_seated(
            NewGame {
                id: new_id.clone(),
                ruleset,
                options,
                players,
                seed_commitment: commitment.clone(),
                seed: seed.0.to_vec(),
                previous: Some(id.to_string()),
            },
            Credential {
                game_id: new_id.clone(),
                token_hash: token_hash(&host),
                role: Role::Host,
                seat: None,
                display_name: None,
                created_at: now,
            },
            kept,
            vec![to_new_event(&created)],
        )
        .await
        .map_err(|e| match e {
            StoreError::Exists => ApiError::Conflict("this game already has a rematch".into()),
            other => other.into(),
        })?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/games/{new_id}")))
        .json(GameCreated {
            game_id: new_id,
            host_token: host,
            seed_commitment: commitment,
            version: record.version,
        }))
}

/// Claim my seat in a rematch
///
/// A player of the previous game claims their seat in its rematch with their token from that
/// game, and gets this game's token for the seat.
#[utoipa::path(
    tag = "games",
    params(
        ("id" = String, Path, description = "The rematch's id"),
        ("seat" = u8, Path, description = "The seat held in the previous game"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Seated: the new token", body = Joined),
        (status = 400, description = "Malformed path or authorization header", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The seat's token from the previous game is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "That token held another seat, or none", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game, or the seat is not waiting to be claimed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/seats/{seat}/claim")]
async fn claim(
    state: web::Data<AppState>,
    path: web::Path<(String, u8)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let Some(old) = bearer(&req)? else {
        return Err(ApiError::Unauthorized(
            "the seat's token from the previous game is needed".into(),
        ));
    };
    let reserved = format!("{CLAIM}{}", token_hash(&old));
    let mut table = state.tables.open(&id).await?;
    let held = table
        .credentials
        .iter()
        .find(|c| c.role == Role::Reserved && c.token_hash == reserved)
        .map(|c| c.seat);
    match held {
        Some(Some(s)) if s == i32::from(seat) => {}
        Some(_) => {
            return Err(ApiError::Forbidden(
                "that token held another seat in the previous game".into(),
            ));
        }
        None if table
            .credentials
            .iter()
            .any(|c| c.seat == Some(i32::from(seat)) && c.role == Role::Reserved) =>
        {
            return Err(ApiError::Forbidden(
                "that token did not hold this seat in the previous game".into(),
            ));
        }
        None => {
            return Err(ApiError::NotFound(format!(
                "seat {seat} is not waiting to be claimed"
            )));
        }
    }
    let token = new_token()?;
    let result = state
        .store
        .claim_seat(&id, i32::from(seat), &reserved, &token_hash(&token))
        .await;
    table.credentials = state.store.credentials(&id).await?;
    match result {
        Ok(()) => Ok(HttpResponse::Created().json(Joined {
            seat,
            player_token: token,
        })),
        Err(StoreError::NotFound) => {
            Err(ApiError::NotFound(format!("seat {seat} was just claimed")))
        }
        Err(e) => Err(e.into()),
    }
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
    let mut ids = vec![id.to_string()];
    let mut record = state.store.get_game(&id).await?;
    while let Some(previous) = record.previous.clone() {
        if ids.len() >= MOST_GAMES || ids.contains(&previous) {
            break;
        }
        record = state.store.get_game(&previous).await?;
        ids.insert(0, previous);
    }
    let mut at = id.to_string();
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
        let table = state.tables.open(&game).await?;
        let gold = table.over().then(|| table.history.game().gold().to_vec());
        if let Some(g) = &gold {
            totals.resize(totals.len().max(g.len()), 0);
            for (t, x) in totals.iter_mut().zip(g) {
                *t += x;
            }
        }
        games.push(SeriesGame {
            id: game,
            status: table.record.status,
            gold,
        });
    }
    Ok(HttpResponse::Ok().json(Series { games, totals }))
}
