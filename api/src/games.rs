//! Games: create, list, get, join, start.

use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use saboteur_domain::{Audience, Seat, Seed};
use saboteur_storage::{Credential, GameStatus, NewGame, Role, seed_commitment, to_new_event};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::auth::{Caller, new_token, token_hash};
use crate::body::Json;
use crate::dto::Outcome;
use crate::dto::{
    AddBot, BotSeated, CreateGame, GameCreated, GameList, GameSummary, JoinGame, Joined,
};
use crate::error::ApiError;
use crate::table::Table;
use crate::{AppState, reply, text};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create_game)
        .service(list_games)
        .service(get_game)
        .service(join)
        .service(add_bot)
        .service(leave)
        .service(start_game);
}

/// Create a game
///
/// Creates a game in the lobby and returns the host's token and the seed commitment: the
/// SHA-256 of the secret seed every shuffle will be drawn from, revealed when the game ends.
#[utoipa::path(
    tag = "games",
    request_body = CreateGame,
    responses(
        (status = 201, description = "The game was created", body = GameCreated),
        (status = 400, description = "Malformed request, unknown ruleset, bad player count", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games")]
async fn create_game(
    state: web::Data<AppState>,
    body: Json<CreateGame>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let seed = match &body.seed {
        Some(_) if !state.config.allow_fixed_seed => {
            return Err(ApiError::BadRequest(
                "a fixed seed is only accepted by a server started with --allow-fixed-seed".into(),
            ));
        }
        Some(hex) => Seed::from_hex(hex)
            .ok_or_else(|| ApiError::BadRequest("a seed is 64 hex digits".into()))?,
        None => {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes)
                .map_err(|e| ApiError::Internal(format!("no randomness: {e}")))?;
            Seed(bytes)
        }
    };
    let created = saboteur_domain::create(
        body.ruleset,
        body.options,
        body.players,
        Seat(body.first_player),
        seed,
    )
    .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let id = uuid::Uuid::new_v4().to_string();
    let commitment = seed_commitment(&seed.0);
    let token = new_token()?;
    // The game, its first event and the host's credential: one transaction.
    let record = state
        .store
        .create_game(
            NewGame {
                id: id.clone(),
                ruleset: body.ruleset,
                options: body.options,
                players: body.players,
                seed_commitment: commitment.clone(),
                seed: seed.0.to_vec(),
                previous: None,
            },
            Credential {
                game_id: id.clone(),
                token_hash: token_hash(&token),
                role: Role::Host,
                seat: None,
                display_name: None,
                created_at: chrono_now(),
            },
            vec![to_new_event(&created)],
        )
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/games/{id}")))
        .json(GameCreated {
            game_id: id,
            host_token: token,
            seed_commitment: commitment,
            version: record.version,
        }))
}

pub(crate) fn chrono_now() -> chrono::DateTime<chrono::Utc> {
    chrono::Utc::now()
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    /// Only games of this status.
    status: Option<GameStatus>,
    /// The `next_cursor` of the previous page.
    cursor: Option<String>,
    /// Games per page, 1–100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
}

/// List games
///
/// Games oldest first, optionally of one status, a page at a time; the `Link` header names the
/// next page.
#[utoipa::path(
    tag = "games",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of games", body = GameList),
        (status = 400, description = "Bad status, cursor or limit", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games")]
async fn list_games(
    state: web::Data<AppState>,
    query: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = query.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::BadRequest("limit is between 1 and 100".into()));
    }
    let page = state
        .store
        .list_games(query.status, query.cursor.as_deref(), limit)
        .await?;
    let games = page
        .games
        .iter()
        .map(|g| crate::dto::summary(&g.record, &g.credentials))
        .collect();
    let mut response = HttpResponse::Ok();
    if let Some(next) = &page.next_cursor {
        let status = query
            .status
            .map(|s| format!("&status={s}"))
            .unwrap_or_default();
        response.insert_header((
            "Link",
            format!("</games?cursor={next}&limit={limit}{status}>; rel=\"next\""),
        ));
    }
    Ok(response.json(GameList {
        games,
        next_cursor: page.next_cursor,
    }))
}

/// Get a game
///
/// The game's ruleset, options, status, version, seats and seed commitment (and its seed
/// once finished).
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The game", body = GameSummary),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/games/{id}")]
async fn get_game(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let table = state.tables.open(&id).await?;
    Ok(HttpResponse::Ok().json(table.summary()))
}

/// Join a game
///
/// Takes the next free seat of a game in the lobby and returns its player token.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    request_body = JoinGame,
    responses(
        (status = 201, description = "Seated", body = Joined),
        (status = 400, description = "Malformed request or name", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "The game has started or every seat is taken", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/seats")]
async fn join(
    state: web::Data<AppState>,
    id: web::Path<String>,
    body: Json<JoinGame>,
) -> Result<HttpResponse, ApiError> {
    let name = text::name(&body.name)?;
    let mut table = state.tables.open(&id).await?;
    let seat = free_seat(&table)?;
    let token = new_token()?;
    let credential = Credential {
        game_id: id.to_string(),
        token_hash: token_hash(&token),
        role: Role::Player,
        seat: Some(seat),
        display_name: Some(name),
        created_at: chrono_now(),
    };
    seat_credential(&state, &mut table, credential).await?;
    Ok(HttpResponse::Created().json(Joined {
        seat: seat as u8,
        player_token: token,
    }))
}

/// Stores a seat's credential; when another process seated someone there first, the table
/// reads the seats again and the caller gets 409.
async fn seat_credential(
    state: &AppState,
    table: &mut Table,
    credential: Credential,
) -> Result<(), ApiError> {
    match state.store.add_credential(&credential).await {
        Ok(()) => {
            table.credentials.push(credential);
            Ok(())
        }
        Err(saboteur_storage::StoreError::Exists) => {
            table.credentials = state.store.credentials(table.id()).await?;
            Err(ApiError::Conflict(
                "that seat was just taken: try again".into(),
            ))
        }
        Err(e) => Err(e.into()),
    }
}

/// The first free seat of a game in the lobby.
fn free_seat(table: &Table) -> Result<i32, ApiError> {
    if table.record.status != GameStatus::Lobby {
        return Err(ApiError::Conflict(
            "the game has started: no seat can be taken".into(),
        ));
    }
    let taken: Vec<i32> = table.credentials.iter().filter_map(|c| c.seat).collect();
    (0..i32::from(table.players()))
        .find(|s| !taken.contains(s))
        .ok_or_else(|| ApiError::Conflict("every seat is taken".into()))
}

/// Seat a bot
///
/// The host gives the first free seat to a computer player before the start. The server plays
/// its turns as soon as they come (and approves undo requests for it); each of its commands is
/// recorded with the bot's level, version and seed, so an audit chooses it again.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    request_body = AddBot,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The bot is seated", body = BotSeated),
        (status = 400, description = "Malformed request, unknown level or bad name", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The host's token is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only the host seats bots", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "The game has started or every seat is taken", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/bots")]
async fn add_bot(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
    body: Json<AddBot>,
) -> Result<HttpResponse, ApiError> {
    let level = body.level;
    let name = match body.name.as_deref() {
        None => format!("{level} bot"),
        Some(n) => text::name(n)?,
    };
    let mut table = state.tables.open(&id).await?;
    table.caller(&state.store, &req).await?.host("seats bots")?;
    let seat = free_seat(&table)?;
    let credential = Credential {
        game_id: id.to_string(),
        // Not a token's hash (those are 64 hex digits): no bearer token acts as a bot.
        token_hash: format!("bot:{seat}"),
        role: Role::Bot(level),
        seat: Some(seat),
        display_name: Some(name.clone()),
        created_at: chrono_now(),
    };
    seat_credential(&state, &mut table, credential).await?;
    Ok(HttpResponse::Created().json(BotSeated {
        seat: seat as u8,
        level,
        name,
    }))
}

/// Leave a game
///
/// A player gives their seat back before the game starts; their token stops working. The host
/// may unseat a bot the same way.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id"), ("seat" = u8, Path, description = "The caller's seat, or a bot's")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The seat is free again"),
        (status = 400, description = "Malformed seat", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "A player's token is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only the seat's own player may leave it (the host, a bot's seat)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "The game has started", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/games/{id}/seats/{seat}")]
async fn leave(
    state: web::Data<AppState>,
    path: web::Path<(String, u8)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let mut table = state.tables.open(&id).await?;
    let who = table.caller(&state.store, &req).await?;
    let bot = table.bot(Seat(seat)).is_some();
    match who {
        Caller::Player(s) if s.0 == seat => {}
        Caller::Host if bot => {}
        Caller::Anonymous => {
            return Err(ApiError::Unauthorized(
                "the seat's player token (or for a bot, the host's) is needed".into(),
            ));
        }
        _ => {
            return Err(ApiError::Forbidden(
                "only the seat's own player may leave it; the host may unseat a bot".into(),
            ));
        }
    }
    if table.record.status != GameStatus::Lobby {
        return Err(ApiError::Conflict(
            "the game has started: seats are kept to the end".into(),
        ));
    }
    let token = table
        .credentials
        .iter()
        .find(|c| c.seat == Some(i32::from(seat)))
        .map(|c| c.token_hash.clone())
        .ok_or_else(|| ApiError::NotFound("that seat is free".into()))?;
    state.store.remove_credential(&id, &token).await?;
    table.credentials.retain(|c| c.token_hash != token);
    Ok(HttpResponse::NoContent().finish())
}

/// Start a game
///
/// The host starts a game whose seats are all taken: round 1 is dealt from the seed.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Started: the events as the host (a spectator) sees them", body = Outcome),
        (status = 401, description = "No valid token for this game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only the host starts the game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "Seats are free, or the game has started", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/start")]
async fn start_game(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let mut table = state.tables.open(&id).await?;
    table
        .caller(&state.store, &req)
        .await?
        .host("starts the game")?;
    if table.record.status != GameStatus::Lobby {
        return Err(ApiError::Conflict("the game has already started".into()));
    }
    let seated = table
        .credentials
        .iter()
        .filter(|c| c.seat.is_some() && c.role != Role::Reserved)
        .count();
    if seated < usize::from(table.players()) {
        return Err(ApiError::Conflict(format!(
            "{seated} of {} seats are taken (a rematch's reserved seats wait for their players)",
            table.players()
        )));
    }
    let events = table
        .history
        .start()
        .map_err(|v| ApiError::Conflict(v.detail))?;
    Ok(reply::ok(
        reply::record(&state, &mut table, events, None, Audience::Spectator).await?,
    ))
}
