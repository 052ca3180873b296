//! Playing online: table talk, seats handed to bots and taken back, tokens issued again, and
//! who is connected. Every act is an event decided by the engine (`History::talk`, …) and
//! committed through the one command cycle; presence is this process's open event streams.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use saboteur_domain::{Audience, BotLevel, Seat};
use saboteur_storage::TokenSwap;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::{Caller, new_token, token_hash};
use crate::body::Json;
use crate::dto::Outcome;
use crate::error::ApiError;
use crate::table::Table;
use crate::{AppState, reply};

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
    /// `random` or `heuristic` (the default).
    #[serde(default = "heuristic")]
    pub level: BotLevel,
}

fn heuristic() -> BotLevel {
    BotLevel::Heuristic
}

/// A seat's new token.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NewToken {
    /// The seat.
    pub seat: u8,
    /// The new bearer token: give it to the seat's player; the old one no longer works.
    pub player_token: String,
    /// The game's version after [`saboteur_domain::Event::TokenReissued`] was recorded.
    pub version: i64,
}

/// Whether one seat is connected.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeatPresence {
    /// The seat.
    pub seat: u8,
    /// Whether its player follows the game live (an open event stream).
    pub connected: bool,
}

/// Who follows a game live through this server.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PresenceView {
    /// Every seat, in order.
    pub seats: Vec<SeatPresence>,
    /// How many spectators (streams without a player's token).
    pub spectators: u32,
}

/// The event streams open in this process, by game and audience.
#[derive(Default)]
pub(crate) struct Presence {
    open: Mutex<HashMap<String, HashMap<Option<u8>, u32>>>,
}

/// A stream counted as present until it is dropped.
pub(crate) struct Present {
    presence: Arc<Presence>,
    game: String,
    seat: Option<u8>,
}

impl Presence {
    fn with<T>(&self, f: impl FnOnce(&mut HashMap<String, HashMap<Option<u8>, u32>>) -> T) -> T {
        f(&mut self.open.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Counts a stream on `game` for `audience` until the returned guard is dropped.
    pub fn enter(self: &Arc<Self>, game: &str, audience: Audience) -> Present {
        let seat = match audience {
            Audience::Seat(s) => Some(s.0),
            _ => None,
        };
        self.with(|open| {
            *open
                .entry(game.to_string())
                .or_default()
                .entry(seat)
                .or_default() += 1;
        });
        Present {
            presence: self.clone(),
            game: game.to_string(),
            seat,
        }
    }

    fn of(&self, game: &str, players: u8) -> PresenceView {
        self.with(|open| {
            let counts = open.get(game);
            let count = |seat: Option<u8>| counts.and_then(|c| c.get(&seat)).copied().unwrap_or(0);
            PresenceView {
                seats: (0..players)
                    .map(|s| SeatPresence {
                        seat: s,
                        connected: count(Some(s)) > 0,
                    })
                    .collect(),
                spectators: count(None),
            }
        })
    }
}

impl Drop for Present {
    fn drop(&mut self) {
        self.presence.with(|open| {
            if let Some(counts) = open.get_mut(&self.game) {
                if let Some(n) = counts.get_mut(&self.seat) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        counts.remove(&self.seat);
                    }
                }
                if counts.is_empty() {
                    open.remove(&self.game);
                }
            }
        });
    }
}

fn seat_of(table: &Table, seat: u8) -> Result<Seat, ApiError> {
    if seat >= table.players() {
        return Err(ApiError::NotFound(format!("the game has no seat {seat}")));
    }
    Ok(Seat(seat))
}

/// Talk at the table
///
/// Posts a public message, recorded in the log (it shows in the event stream and in replays).
/// Players post with their token; spectators without one, under a `name`, if the host allowed
/// it when creating the game. At most 5 messages every 30 seconds per seat (spectators count as
/// one): beyond, 429 with `Retry-After`.
#[utoipa::path(
    tag = "table",
    params(("id" = String, Path, description = "The game's id")),
    request_body = TalkRequest,
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "Posted: the event as the caller sees it", body = Outcome),
        (status = 400, description = "Empty, too long, or holding control characters; a player sent a name, or a spectator none", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The token is not this game's", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "The host's token, or a spectator at a table where spectators may not talk", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is over, or another write was recorded first", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many messages: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/talk")]
async fn talk(
    state: web::Data<AppState>,
    id: web::Path<String>,
    body: Json<TalkRequest>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let mut table = state.tables.open(&id).await?;
    let who = table.caller(&state.store, &req).await?;
    let TalkRequest { text, name } = body.into_inner();
    let seat = match who {
        Caller::Player(s) => {
            if name.is_some() {
                return Err(ApiError::BadRequest(
                    "players are known by their seat: send no name".into(),
                ));
            }
            Some(s)
        }
        Caller::Host => {
            return Err(ApiError::Forbidden(
                "the host talks with a player's token (or as a spectator, without one)".into(),
            ));
        }
        Caller::Anonymous => None,
    };
    let now = table.time.now_ms();
    let events = table.history.talk(seat, name.as_deref(), &text, now)?;
    let out = reply::record(&state, &mut table, events, None, who.audience()).await?;
    Ok(reply::ok(out))
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
    let mut table = state.tables.open(&id).await?;
    table
        .caller(&state.store, &req)
        .await?
        .host("hides messages")?;
    let events = table.history.hide_talk(seq)?;
    let out = reply::record(&state, &mut table, events, None, Audience::Spectator).await?;
    Ok(reply::ok(out))
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
    let mut table = state.tables.open(&id).await?;
    table
        .caller(&state.store, &req)
        .await?
        .host("hands seats to bots")?;
    let seat = seat_of(&table, seat)?;
    if table.bot(seat).is_some() {
        return Err(ApiError::Conflict(format!("a bot already plays {seat}")));
    }
    let events = table.history.hand_to_bot(seat, body.level)?;
    let out = reply::record(&state, &mut table, events, None, Audience::Spectator).await?;
    Ok(reply::ok(out))
}

/// Take my seat back
///
/// A player whose seat was handed to a bot (abandoned after timeouts, or by the host) takes it
/// back with their token.
#[utoipa::path(
    tag = "table",
    params(
        ("id" = String, Path, description = "The game's id"),
        ("seat" = u8, Path, description = "The seat"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Taken back", body = Outcome),
        (status = 400, description = "Malformed path or authorization header", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The seat's player token is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not this seat's token", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or seat", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "No bot plays the seat, or the game is over", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/seats/{seat}/reclaim")]
async fn reclaim(
    state: web::Data<AppState>,
    path: web::Path<(String, u8)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let mut table = state.tables.open(&id).await?;
    let who = table.caller(&state.store, &req).await?;
    let seat = seat_of(&table, seat)?;
    if who.seat()? != seat {
        return Err(ApiError::Forbidden(format!(
            "only {seat}'s own player takes it back"
        )));
    }
    let events = table.history.reclaim_seat(seat)?;
    let out = reply::record(&state, &mut table, events, None, who.audience()).await?;
    Ok(reply::ok(out))
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
    let mut table = state.tables.open(&id).await?;
    table
        .caller(&state.store, &req)
        .await?
        .host("issues tokens")?;
    let seat = seat_of(&table, seat)?;
    let holder = table
        .credentials
        .iter()
        .find(|c| c.seat == Some(i32::from(seat.0)))
        .ok_or_else(|| ApiError::NotFound(format!("nobody holds {seat}")))?;
    if crate::bot_level(holder).is_some() {
        return Err(ApiError::Conflict(format!(
            "a bot holds {seat}: it has no token"
        )));
    }
    let events = table.history.reissue_token(seat)?;
    let token = new_token()?;
    let swap = TokenSwap {
        seat: i32::from(seat.0),
        token_hash: token_hash(&token),
    };
    let out = reply::record(&state, &mut table, events, Some(swap), Audience::Spectator).await?;
    Ok(HttpResponse::Ok().json(NewToken {
        seat: seat.0,
        player_token: token,
        version: out.version,
    }))
}

/// Who is connected
///
/// Which seats follow the game live (an open event stream to this server), and how many
/// spectators do.
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
    let players = state.tables.open(&id).await?.players();
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-cache"))
        .json(state.presence.of(&id, players)))
}
