//! Games: create, list, get, join, start.

use actix_web::{HttpRequest, HttpResponse, delete, get, post, put, web};
use saboteur_domain::Seat;
use saboteur_storage::GameStatus;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::act::{Act, SentKey, SentShare};
use crate::app::auth::token_hash;
use crate::app::seam;
use crate::app::state::AppState;
use crate::dto::Outcome;
use crate::dto::{
    AddBot, BotSeated, CreateGame, GameCreated, GameList, GameSummary, JoinGame, Joined, KeyKept,
    SeatKey, SeatMove, SeatMoved, SeatName, SeatNamed,
};
use crate::error::ApiError;
use crate::http::body::{Json, RawBody};
use crate::http::perform::{game, key_for, perform};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(create_game)
        .service(list_games)
        .service(get_game)
        .service(join)
        .service(add_bot)
        .service(leave)
        .service(register_key)
        .service(rename_seat)
        .service(move_seat)
        .service(start_game)
        .service(cancel_game);
}

/// Create a game
///
/// Creates a game in the lobby and returns the host's token and the seed commitment: the
/// SHA-256 of the secret seed every shuffle will be drawn from, revealed when the game ends.
/// With an `Idempotency-Key`, a retry from the same client (as the per-client limits name it)
/// with the same body answers the first reply again, host token included, for a day, through
/// any server process and after a failover: one game is made.
#[utoipa::path(
    tag = "games",
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a retry from the same client with the same key and body answers the first reply (one game is made), marked `Idempotency-Replayed: true`; kept for 24 hours"),
    ),
    request_body = CreateGame,
    responses(
        (status = 201, description = "The game was created", body = GameCreated, headers(("Location" = String, description = "The new game: `/games/{id}`"), ("Idempotency-Replayed" = String, description = "`true` on the first reply given again to a retried `Idempotency-Key`"))),
        (status = 400, description = "Malformed request, unknown ruleset, bad player count, bad Idempotency-Key", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 422, description = "The Idempotency-Key was used with another body (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: nothing was created; try again after `Retry-After` seconds with the same Idempotency-Key", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games")]
async fn create_game(
    state: web::Data<AppState>,
    body: Json<CreateGame>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let request = serde_json::to_string(&body)
        .map_err(|e| ApiError::Internal(format!("a creation not written: {e}")))?;
    let client = maker(&state, &req);
    let scope = format!("create {}", client.as_deref().unwrap_or_default());
    let key = key_for(&req, scope, &request)?;
    perform(&state, &req, Act::Create(body, key, client)).await
}

/// What a lobby act's `Idempotency-Key` must come with again: the method, the path and the
/// body as sent.
fn asked(req: &HttpRequest) -> String {
    let body = RawBody::of(req).unwrap_or_default();
    format!("{} {}\n{body}", req.method(), req.path())
}

/// The `Idempotency-Key` of a lobby's act sent with a token (`act` names it), scoped to the
/// game and the token: only its sender gets the first reply back.
fn lobby_key(
    req: &HttpRequest,
    act: &str,
    game: &crate::app::ids::GameId,
) -> Result<Option<crate::app::act::KeyFor>, ApiError> {
    let who = crate::http::caller::bearer(req).map_or_else(|| "-".into(), token_hash);
    key_for(req, format!("{act} {game} {who}"), &asked(req))
}

/// Who makes a game or takes a seat: its client, as the per-client limits name it (who may get
/// a creation's kept reply back, whose lobbies and seats taken it counts in).
pub(crate) fn maker(state: &AppState, req: &HttpRequest) -> Option<String> {
    crate::http::quota::Client::of(req, &state.config.limits.trusted_proxies).map(|c| c.to_string())
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
/// next page. A game nobody started is listed for a day after its creation (the server's
/// `--lobby-expiry`); after that it is kept, and its links still work, but it is not listed.
/// While no database answers, a page this server served for the same query is answered as it
/// was then (games created or finished since are missing), and a page it did not serve is 503.
#[utoipa::path(
    tag = "games",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of games", body = GameList, headers(("Link" = String, description = "The next page, `</games?cursor=…&limit=…>; rel=\"next\"`, while there is one"))),
        (status = 400, description = "Bad status, cursor or limit", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "No database answers and this server kept no answer to this query: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
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
    let expiry = state.config.limits.lobby_expiry;
    let since = chrono::Utc::now() - chrono::Duration::from_std(expiry).unwrap_or_default();
    let (status, cursor) = (query.status, query.cursor.clone());
    let asked = format!("{status:?} {cursor:?} {limit}");
    let list = state
        .reading_or_kept(
            &state.pages,
            &asked,
            |store| {
                let cursor = cursor.clone();
                async move {
                    let page = store
                        .list_games_since(status, cursor.as_deref(), limit, Some(since))
                        .await?;
                    Ok(GameList {
                        games: page
                            .games
                            .iter()
                            .map(|g| {
                                crate::dto::summary(&g.record, &g.credentials, g.winners.clone())
                            })
                            .collect(),
                        next_cursor: page.next_cursor,
                    })
                }
            },
            |_| true,
        )
        .await?;
    let mut response = HttpResponse::Ok();
    if let Some(next) = &list.next_cursor {
        let status = query
            .status
            .map(|s| format!("&status={s}"))
            .unwrap_or_default();
        response.insert_header((
            "Link",
            format!("</games?cursor={next}&limit={limit}{status}>; rel=\"next\""),
        ));
    }
    Ok(response.json(list))
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
    let table = seam::open(&state, &game(&id)?).await?;
    Ok(HttpResponse::Ok().json(table.summary()))
}

/// Join a game
///
/// Takes the next free seat of a game in the lobby and returns its player token.
#[utoipa::path(
    tag = "games",
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a retry from the same client with the same key and request answers exactly the first reply, marked `Idempotency-Replayed: true`, for 24 hours (the key sent with another request is 422 `idempotency_key_reused`)"),
        ("id" = String, Path, description = "The game's id")),
    request_body = JoinGame,
    responses(
        (status = 422, description = "The Idempotency-Key was used for another request (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 201, description = "Seated", body = Joined, headers(("Location" = String, description = "The seat taken: `/games/{id}/seats/{seat}` (the path that gives it back before the start)"))),
        (status = 400, description = "Malformed request or name; a key that is not an Ed25519 key (`bad_key`) or comes without a proof of possession that verifies (`bad_key_proof`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "The game has started or every seat is taken; the key is another seat's (`key_in_use`: one key signs for one seat)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/seats")]
async fn join(
    state: web::Data<AppState>,
    id: web::Path<String>,
    body: Json<JoinGame>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let JoinGame {
        name,
        entropy,
        share_commitment,
        public_key,
        key_proof,
    } = body.into_inner();
    let game = game(&id)?;
    let client = maker(&state, &req);
    let scope = format!("join {game} {}", client.as_deref().unwrap_or("-"));
    let act = Act::Join {
        retry: key_for(&req, scope, &asked(&req))?,
        game,
        name,
        share: SentShare {
            entropy,
            commitment: share_commitment,
        },
        key: public_key.map(|key| SentKey {
            key,
            proof: key_proof,
            at: None,
        }),
        client,
    };
    perform(&state, &req, act).await
}

/// Seat a bot
///
/// The host gives the first free seat to a computer player before the start. The server plays
/// its turns as soon as they come (and approves undo requests for it); each of its commands is
/// recorded with the bot's level, version and seed, so an audit chooses it again.
#[utoipa::path(
    tag = "games",
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a retry with the same token, key and request answers exactly the first reply, marked `Idempotency-Replayed: true`, for 24 hours (the key sent with another request is 422 `idempotency_key_reused`)"),
        ("id" = String, Path, description = "The game's id")),
    request_body = AddBot,
    security(("bearer" = [])),
    responses(
        (status = 422, description = "The Idempotency-Key was used for another request (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 201, description = "The bot is seated", body = BotSeated, headers(("Location" = String, description = "The seat taken: `/games/{id}/seats/{seat}` (the path that gives it back before the start)"))),
        (status = 400, description = "Malformed request, unknown level or bad name", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
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
    let AddBot { level, name } = body.into_inner();
    let game = game(&id)?;
    let act = Act::SeatBot {
        retry: lobby_key(&req, "bot", &game)?,
        game,
        level,
        name,
        client: maker(&state, &req),
    };
    perform(&state, &req, act).await
}

/// Leave a game
///
/// A player gives their seat back before the game starts; their token stops working. The host
/// may free any seat the same way — a bot's, or one taken by someone it does not want — and
/// seat a bot there.
#[utoipa::path(
    tag = "games",
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a retry with the same token, key and request answers exactly the first reply (the token works for nothing else once the seat is given back), marked `Idempotency-Replayed: true`, for 24 hours (the key sent with another request is 422 `idempotency_key_reused`)"),
        ("Seat-Signature" = Option<String>, Header, description = "The player's Ed25519 signature of the act, 128 hex digits (docs/clients.md): needed once the seat has a key, refused with 401 `signature_required` without it and `bad_signature` when it does not verify"),
        ("Seat-Signature-Version" = Option<String>, Header, description = "The version the act was chosen and signed at, in decimal digits: before the start the lobby's (`GameSummary.lobby_version`), during play the game's; it must still hold when the act arrives (412 once it moved on)"),
        ("id" = String, Path, description = "The game's id"), ("seat" = u8, Path, description = "The caller's seat, or for the host any seat")),
    security(("bearer" = [])),
    responses(
        (status = 422, description = "The Idempotency-Key was used for another request (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 204, description = "The seat is free again"),
        (status = 400, description = "Malformed seat", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "A player's token is needed, or the seat's key must sign (`signature_required`, `bad_signature`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only the seat's own player (or the host) may give it back", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "The game has started (`already_started`), or the host closed the lobby for the shares (`lobby_closed`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 412, description = "Signed at a version that no longer holds: before the start, a `lobby_version` the lobby has moved on from (`precondition_failed`; read the game and sign again)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/games/{id}/seats/{seat}")]
async fn leave(
    state: web::Data<AppState>,
    path: web::Path<(String, u8)>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let id = game(&id)?;
    perform(
        &state,
        &req,
        Act::Leave {
            retry: lobby_key(&req, "leave", &id)?,
            game: id,
            seat: Seat(seat),
        },
    )
    .await
}

/// Register my seat's key
///
/// A player registers the Ed25519 public key that signs their seat's acts from now on: before
/// the start it replaces the key sent with the seat, and the reply is the seat's commitment
/// made again with the new key (201); during play it is recorded as a `seat_key_registered`
/// event every player sees (200). A seat that has a key registers another
/// only with a signature by the old one; after a reissued token (which drops the seat's key)
/// the new token's holder registers theirs without one.
#[utoipa::path(
    tag = "games",
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a retry with the same token, key and request answers exactly the first reply, marked `Idempotency-Replayed: true`, for 24 hours (the key sent with another request is 422 `idempotency_key_reused`)"),
        ("id" = String, Path, description = "The game's id"),
        ("seat" = u8, Path, description = "The caller's seat"),
        ("Seat-Signature" = Option<String>, Header, description = "The player's Ed25519 signature of the act with the seat's current key, 128 hex digits (docs/clients.md): needed once the seat has a key"),
        ("Seat-Signature-Version" = Option<String>, Header, description = "The version the act was chosen and signed at, in decimal digits: before the start the lobby's (`GameSummary.lobby_version`), during play the game's; it must still hold when the act arrives (412 once it moved on)"),
    ),
    request_body = SeatKey,
    security(("bearer" = [])),
    responses(
        (status = 422, description = "The Idempotency-Key was used for another request (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 200, description = "Recorded during play: the `seat_key_registered` event", body = Outcome),
        (status = 201, description = "Kept with the seat before the start: the seat's commitment, now with this key, signed (keep it: `saboteur verify --commitment`)", body = KeyKept, headers(("Location" = String, description = "The seat: `/games/{id}/seats/{seat}`"))),
        (status = 400, description = "Not an Ed25519 key as 64 hex digits (`bad_key`), no proof of possession that verifies (`bad_key_proof`), or malformed headers", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "A player's token is needed; the seat's key must sign (`signature_required`, `bad_signature`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not this seat's token", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or seat", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is over; the key is another seat's (`key_in_use`: one key signs for one seat)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 412, description = "Signed at a version that no longer holds: before the start, a `lobby_version` the lobby has moved on from (`precondition_failed`; read the game and sign again)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[put("/games/{id}/seats/{seat}/key")]
async fn register_key(
    state: web::Data<AppState>,
    path: web::Path<(String, u8)>,
    body: Json<SeatKey>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let SeatKey {
        public_key,
        key_proof,
        key_proof_version,
    } = body.into_inner();
    let game = game(&id)?;
    let act = Act::RegisterKey {
        retry: lobby_key(&req, "key", &game)?,
        game,
        seat: Seat(seat),
        key: SentKey {
            key: public_key,
            proof: key_proof,
            at: key_proof_version,
        },
    };
    perform(&state, &req, act).await
}

/// Name my seat
///
/// A player names their seat anew before the start: a guest invited under the host's word for
/// them ("Guest") says who they are. The name is checked as a join's. Refused once the game
/// has started (409 `already_started`): names are kept to the end.
#[utoipa::path(
    tag = "games",
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a retry with the same token, key and request answers exactly the first reply, marked `Idempotency-Replayed: true`, for 24 hours (the key sent with another request is 422 `idempotency_key_reused`)"),
        ("Seat-Signature" = Option<String>, Header, description = "The player's Ed25519 signature of the act (`name`), 128 hex digits (docs/clients.md): needed once the seat has a key"),
        ("Seat-Signature-Version" = Option<String>, Header, description = "The version the act was chosen and signed at, in decimal digits: before the start the lobby's (`GameSummary.lobby_version`), during play the game's; it must still hold when the act arrives (412 once it moved on)"),
        ("id" = String, Path, description = "The game's id"),
        ("seat" = u8, Path, description = "The caller's seat"),
    ),
    request_body = SeatName,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Named: the seat and its name as the game lists it", body = SeatNamed),
        (status = 400, description = "A name that is empty, too long or holds control characters, or malformed headers", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "A player's token is needed; the seat's key must sign (`signature_required`, `bad_signature`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not this seat's token", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game, or the seat is free", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game has started (`already_started`) or was cancelled (`cancelled`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 422, description = "The Idempotency-Key was used for another request (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 412, description = "Signed at a version that no longer holds: before the start, a `lobby_version` the lobby has moved on from (`precondition_failed`; read the game and sign again)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[put("/games/{id}/seats/{seat}/name")]
async fn rename_seat(
    state: web::Data<AppState>,
    path: web::Path<(String, u8)>,
    body: Json<SeatName>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let game = game(&id)?;
    let act = Act::Rename {
        retry: lobby_key(&req, "name", &game)?,
        game,
        seat: Seat(seat),
        name: body.into_inner().name,
    };
    perform(&state, &req, act).await
}

/// Move to another seat
///
/// A player moves to a free seat before the start, while the lobby is open: the seat order is
/// the order of play, so friends choose where they sit. Everything the seat was taken with
/// (the token, the key, the share) moves with the player; the seat moved from is free. The
/// reply is the new seat's commitment, signed: keep it in place of the first seat's. Refused
/// once the game has started (409 `already_started`) or the lobby is closed (409
/// `lobby_closed`).
#[utoipa::path(
    tag = "games",
    params(
        ("Idempotency-Key" = Option<String>, Header, description = "1 to 200 visible characters: a retry with the same token, key and request answers exactly the first reply, marked `Idempotency-Replayed: true`, for 24 hours (the key sent with another request is 422 `idempotency_key_reused`)"),
        ("Seat-Signature" = Option<String>, Header, description = "The player's Ed25519 signature of the act (`sit`), 128 hex digits (docs/clients.md): needed once the seat has a key"),
        ("Seat-Signature-Version" = Option<String>, Header, description = "The lobby's version the act was chosen and signed at (`GameSummary.lobby_version`), in decimal digits: it must still hold when the act arrives (412 once it moved on)"),
        ("id" = String, Path, description = "The game's id"),
        ("seat" = u8, Path, description = "The caller's seat"),
    ),
    request_body = SeatMove,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Moved: the new seat (in `Location`) and its commitment, signed", body = SeatMoved, headers(("Location" = String, description = "The new seat"))),
        (status = 400, description = "A seat the game does not have, the seat moved from, or malformed headers", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "A player's token is needed; the seat's key must sign (`signature_required`, `bad_signature`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not this seat's token", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game, or the seat is free", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The seat asked for is taken (`seat_taken`), the game has started (`already_started`), the lobby is closed (`lobby_closed`) or the game was cancelled (`cancelled`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 412, description = "Signed at a `lobby_version` the lobby has moved on from (`precondition_failed`; read the game and sign again)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 422, description = "The Idempotency-Key was used for another request (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/seats/{seat}/move")]
async fn move_seat(
    state: web::Data<AppState>,
    path: web::Path<(String, u8)>,
    body: Json<SeatMove>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let game = game(&id)?;
    let act = Act::Sit {
        retry: lobby_key(&req, "sit", &game)?,
        game,
        seat: Seat(seat),
        to: Seat(body.into_inner().to),
    };
    perform(&state, &req, act).await
}

/// Start a game
///
/// The host starts a game whose seats are all taken: round 1 is dealt from the seed mixed with
/// the players' shares. While a seat's share is committed (`share_commitment`) and not
/// revealed, a start is 409 `shares_unrevealed`: the host closes the lobby
/// (`POST /games/{id}/close`), the last share revealed starts the game, and after `reveal_by`
/// the host's start deals without the shares still awaited (`seed_mixed` records their
/// commitments: `saboteur verify` says each share withheld).
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
        (status = 409, description = "Seats are free (`seats_open`), the game has started (`already_started`), or committed shares are awaited: the lobby is to be closed, or their time is not up (`shares_unrevealed`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/start")]
async fn start_game(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    perform(&state, &req, Act::Start { game: game(&id)? }).await
}

/// Cancel a game nobody started
///
/// The host cancels a game before its start (recorded as `game_cancelled`): it is no longer a
/// lobby (listed with status `cancelled`, no longer counted in the lobby caps), and every later
/// act on it is 409 `cancelled`. Refused once the game has started (409 `already_started`).
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "The game's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Cancelled: the event as the host (a spectator) sees it", body = Outcome),
        (status = 401, description = "No valid token for this game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "Only the host cancels the game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game has started (`already_started`), or was cancelled already (`cancelled`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/games/{id}/cancel")]
async fn cancel_game(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    perform(&state, &req, Act::Cancel { game: game(&id)? }).await
}
