//! Games: create, list, get, join, start.

use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use saboteur_domain::{GoldCardsDrawn, Options, Ruleset, Seat, Seed};
use saboteur_storage::{Append, AppendOutcome, Credential, NewGame, seed_commitment, to_new_event};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::dto::{
    AddBot, BotSeated, CreateGame, GameCreated, GameList, GameSummary, JoinGame, Joined, Outcome,
    SeatInfo,
};
use crate::error::ApiError;
use crate::{
    AppState, Caller, Entry, bot_level, bot_role, caller, new_token, redacted, token_hash,
};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create_game)
        .service(list_games)
        .service(get_game)
        .service(join)
        .service(add_bot)
        .service(leave)
        .service(start_game);
}

fn options(o: &crate::dto::GameOptions) -> Result<Options, ApiError> {
    let gold_cards_drawn = match o.gold_cards_drawn.as_deref() {
        None | Some("players") => GoldCardsDrawn::Players,
        Some("diggers") => GoldCardsDrawn::Diggers,
        Some(other) => {
            return Err(ApiError::BadRequest(format!(
                "gold_cards_drawn is `players` or `diggers`, not {other:?}"
            )));
        }
    };
    Ok(Options {
        gold_cards_drawn,
        broken_tools_forfeit_gold: o.broken_tools_forfeit_gold.unwrap_or(false),
    })
}

pub(crate) fn summary(entry: &Entry) -> GameSummary {
    let r = &entry.record;
    let mut seats: Vec<SeatInfo> = entry
        .credentials
        .iter()
        .filter_map(|c| {
            Some(SeatInfo {
                seat: u8::try_from(c.seat?).ok()?,
                name: c.display_name.clone().unwrap_or_default(),
                bot: bot_level(c).map(|l| l.to_string()),
            })
        })
        .collect();
    seats.sort_by_key(|s| s.seat);
    GameSummary {
        id: r.id.clone(),
        ruleset: r.ruleset.clone(),
        options: r.options.clone(),
        status: r.status.clone(),
        version: entry.version(),
        seed_commitment: r.seed_commitment.clone(),
        seed: r.seed.as_ref().map(hex::encode),
        seats,
        players: entry.players(),
    }
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
    body: web::Json<CreateGame>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let ruleset = match body.ruleset.as_str() {
        "base" => Ruleset::Base,
        "saboteur2" => Ruleset::Saboteur2,
        other => {
            return Err(ApiError::BadRequest(format!(
                "ruleset is `base` or `saboteur2`, not {other:?}"
            )));
        }
    };
    let options = options(&body.options)?;
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
        ruleset,
        options,
        body.players,
        Seat(body.first_player),
        seed,
    )
    .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let id = uuid::Uuid::new_v4().to_string();
    let commitment = seed_commitment(&seed.0);
    state
        .store
        .create_game(NewGame {
            id: id.clone(),
            ruleset: body.ruleset.clone(),
            options: serde_json::to_value(options).unwrap_or_default(),
            seed_commitment: commitment.clone(),
            seed: seed.0.to_vec(),
            status: "lobby".into(),
        })
        .await?;
    let token = new_token()?;
    state
        .store
        .add_credential(&Credential {
            game_id: id.clone(),
            token_hash: token_hash(&token),
            role: "host".into(),
            seat: None,
            display_name: None,
            created_at: chrono_now(),
        })
        .await?;
    let out = state
        .store
        .append(Append {
            game_id: id.clone(),
            expected_version: 0,
            prev_hash: None,
            events: vec![to_new_event(&created)],
            command_id: None,
            status: None,
        })
        .await?;
    let version = match out {
        AppendOutcome::Appended { last_seq, .. } | AppendOutcome::Duplicate { last_seq, .. } => {
            last_seq
        }
    };
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/games/{id}")))
        .json(GameCreated {
            game_id: id,
            host_token: token,
            seed_commitment: commitment,
            version,
        }))
}

pub(crate) fn chrono_now() -> chrono::DateTime<chrono::Utc> {
    chrono::Utc::now()
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
struct ListQuery {
    /// Only games of this status.
    #[param(value_type = Option<String>, pattern = "^(lobby|active|finished)$")]
    status: Option<String>,
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
    if let Some(s) = &query.status
        && !["lobby", "active", "finished"].contains(&s.as_str())
    {
        return Err(ApiError::BadRequest(format!(
            "status is lobby, active or finished, not {s:?}"
        )));
    }
    let limit = query.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::BadRequest("limit is between 1 and 100".into()));
    }
    let page = state
        .store
        .list_games(query.status.as_deref(), query.cursor.as_deref(), limit)
        .await?;
    let mut games = Vec::with_capacity(page.games.len());
    for g in &page.games {
        let entry = state.entry(&g.id).await?;
        games.push(summary(&*entry.lock().await));
    }
    let mut response = HttpResponse::Ok();
    if let Some(next) = &page.next_cursor {
        let status = query
            .status
            .as_deref()
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
    )
)]
#[get("/games/{id}")]
async fn get_game(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let entry = state.entry(&id).await?;
    let entry = entry.lock().await;
    Ok(HttpResponse::Ok().json(summary(&entry)))
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
        (status = 409, description = "The game has started or every seat is taken", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/seats")]
async fn join(
    state: web::Data<AppState>,
    id: web::Path<String>,
    body: web::Json<JoinGame>,
) -> Result<HttpResponse, ApiError> {
    let name = body.name.trim();
    if name.is_empty() || name.chars().count() > 40 {
        return Err(ApiError::BadRequest("a name has 1 to 40 characters".into()));
    }
    let entry = state.entry(&id).await?;
    let mut entry = entry.lock().await;
    let seat = free_seat(&entry)?;
    let token = new_token()?;
    let credential = Credential {
        game_id: id.to_string(),
        token_hash: token_hash(&token),
        role: "player".into(),
        seat: Some(seat),
        display_name: Some(name.to_string()),
        created_at: chrono_now(),
    };
    state.store.add_credential(&credential).await?;
    entry.credentials.push(credential);
    Ok(HttpResponse::Created().json(Joined {
        seat: seat as u8,
        player_token: token,
    }))
}

/// The first free seat of a game in the lobby.
fn free_seat(entry: &Entry) -> Result<i32, ApiError> {
    if entry.record.status != "lobby" {
        return Err(ApiError::Conflict(
            "the game has started: no seat can be taken".into(),
        ));
    }
    let taken: Vec<i32> = entry.credentials.iter().filter_map(|c| c.seat).collect();
    (0..i32::from(entry.players()))
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
        (status = 409, description = "The game has started or every seat is taken", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/bots")]
async fn add_bot(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
    body: web::Json<AddBot>,
) -> Result<HttpResponse, ApiError> {
    let level: saboteur_domain::BotLevel = body.level.parse().map_err(ApiError::BadRequest)?;
    let name = match body.name.as_deref().map(str::trim) {
        None => format!("{level} bot"),
        Some(n) if !n.is_empty() && n.chars().count() <= 40 => n.to_string(),
        Some(_) => return Err(ApiError::BadRequest("a name has 1 to 40 characters".into())),
    };
    let entry = state.entry(&id).await?;
    let mut entry = entry.lock().await;
    caller(&req, &entry)?.host("seats bots")?;
    let seat = free_seat(&entry)?;
    let credential = Credential {
        game_id: id.to_string(),
        // Not a token's hash (those are 64 hex digits): no bearer token acts as a bot.
        token_hash: format!("bot:{seat}"),
        role: bot_role(level),
        seat: Some(seat),
        display_name: Some(name.clone()),
        created_at: chrono_now(),
    };
    state.store.add_credential(&credential).await?;
    entry.credentials.push(credential);
    Ok(HttpResponse::Created().json(BotSeated {
        seat: seat as u8,
        level: level.to_string(),
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
    let entry = state.entry(&id).await?;
    let mut entry = entry.lock().await;
    let who = caller(&req, &entry)?;
    let bot = entry.bot(Seat(seat)).is_some();
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
    if entry.record.status != "lobby" {
        return Err(ApiError::Conflict(
            "the game has started: seats are kept to the end".into(),
        ));
    }
    let token = entry
        .credentials
        .iter()
        .find(|c| c.role != "host" && c.seat == Some(i32::from(seat)))
        .map(|c| c.token_hash.clone())
        .ok_or_else(|| ApiError::NotFound("that seat is free".into()))?;
    state.store.remove_credential(&id, &token).await?;
    entry.credentials.retain(|c| c.token_hash != token);
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
        (status = 409, description = "Seats are free, or the game has started", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/start")]
async fn start_game(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let entry = state.entry(&id).await?;
    let mut entry = entry.lock().await;
    caller(&req, &entry)?.host("starts the game")?;
    if entry.record.status != "lobby" {
        return Err(ApiError::Conflict("the game has already started".into()));
    }
    let seated = entry
        .credentials
        .iter()
        .filter(|c| c.seat.is_some())
        .count();
    if seated < usize::from(entry.players()) {
        return Err(ApiError::Conflict(format!(
            "{seated} of {} seats are taken",
            entry.players()
        )));
    }
    let events = entry
        .history
        .start()
        .map_err(|v| ApiError::Conflict(v.detail))?;
    let version =
        crate::play::append(&state, &mut entry, events.clone(), None, Some("active")).await?;
    let first = version - events.len() as i64 + 1;
    let mut events = events;
    events.extend(crate::play::play_bots(&state, &mut entry).await);
    let over = entry.record.status == "finished";
    Ok(HttpResponse::Ok().json(Outcome {
        version: first + events.len() as i64 - 1,
        events: redacted(&events, first, saboteur_domain::Audience::Spectator, over),
        awaited: entry.history.game().awaited().map(|s| s.0),
    }))
}
