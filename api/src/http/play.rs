//! Play: the caller's view, legal moves, commands, and the event log.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use saboteur_domain::{Audience, Command, Seat, legal_commands};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::act::Act;
use crate::app::auth::Caller;
use crate::app::ids::Version;
use crate::app::reply::{self, redacted};
use crate::app::seam;
use crate::app::state::AppState;
use crate::app::table::Table;
use crate::dto::{EventPage, EventRecord, LegalMoves, Outcome, StateView, TableRead};
use crate::error::ApiError;
use crate::http::body::Json;
use crate::http::perform::{bearer, declared_version, game, header, idempotency_key, perform};
use crate::receipt::ReceiptKind;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(get_state)
        .service(legal_moves)
        .service(send_command)
        .service(list_events)
        .service(read_table);
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
struct StateQuery {
    /// Replay: the state at this earlier version instead of now.
    #[param(minimum = 1)]
    at: Option<u64>,
    /// Whose eyes to see through: `everyone` (once the game is over), `spectator`, or a seat
    /// number (with that seat's player's token while the game runs; anyone, once it is
    /// over). Without it: the caller's own (everyone's once the game is over).
    #[serde(rename = "as")]
    #[param(pattern = "^(everyone|spectator|[0-9]{1,2})$", example = "2")]
    eyes: Option<String>,
}

/// The audience `as` asks for, when the caller may see through its eyes.
fn eyes(asked: Option<&str>, own: Audience, over: bool, players: u8) -> Result<Audience, ApiError> {
    let kept = |what: &str| {
        Err(ApiError::Forbidden(format!(
            "{what} until the game is over"
        )))
    };
    match asked {
        None if over => Ok(Audience::Omniscient),
        None => Ok(own),
        Some("spectator") => Ok(Audience::Spectator),
        Some("everyone") if over => Ok(Audience::Omniscient),
        Some("everyone") => kept("everyone's cards are hidden"),
        Some(n) => {
            let seat = n
                .parse::<u8>()
                .ok()
                .filter(|s| *s < players)
                .map(Seat)
                .ok_or_else(|| {
                    ApiError::BadRequest(format!(
                        "`as` is `everyone`, `spectator` or a seat from 0 to {}",
                        players.saturating_sub(1)
                    ))
                })?;
            if over || own == Audience::Seat(seat) {
                Ok(Audience::Seat(seat))
            } else {
                kept(&format!("{seat}'s eyes are its player's"))
            }
        }
    }
}

/// Get the caller's view
///
/// The game as the caller may see it (§11): with a player's token, their hand and role; without
/// a token, what a spectator sees. `at` replays any earlier version; once the game is over,
/// everything is public, and `as` shows it through anyone's eyes (a seat's: what that seat
/// knew at that version). The `ETag` is the version.
///
/// A past version never changes for an audience, so `?at=` below the current version is
/// served `immutable`: `private` (per token, `Vary: Authorization`) while the game runs,
/// `public` once it is over and every audience sees everything. The current version is
/// `no-cache`.
#[utoipa::path(
    tag = "play",
    params(("id" = String, Path, description = "The game's id"), StateQuery),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "The view", body = StateView, headers(
            ("ETag" = String, description = "The version, quoted"),
            ("Cache-Control" = String, description = "`immutable` for a past version (`private` while the game runs, `public` once it is over); `no-cache` for the current one"),
            ("Vary" = String, description = "`Authorization`: the view depends on the token"),
        )),
        (status = 400, description = "Malformed query or no such version", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The token is not this game's", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "`as` asks for eyes the caller may not see through before the game is over (`forbidden`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/games/{id}/state")]
async fn get_state(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<StateQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let mut table = seam::open(&state, &game(&id)?).await?;
    let who = table.caller(&state.store, bearer(&req)?.as_deref()).await?;
    let audience = eyes(
        query.eyes.as_deref(),
        who.audience(),
        table.over(),
        table.players(),
    )?;
    let now = table.version();
    let version = query.at.map_or(now, Version::of);
    let cache = match query.at {
        Some(_) if version < now && table.over() => "public, max-age=31536000, immutable",
        Some(_) if version < now => "private, max-age=31536000, immutable",
        _ => "no-cache",
    };
    let body = view_at(&state, &table, version, audience).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("ETag", format!("\"{version}\"")))
        .insert_header((actix_web::http::header::CACHE_CONTROL, cache))
        .insert_header((actix_web::http::header::VARY, "Authorization"))
        .json(body))
}

/// The view of `audience` at `version`, with its signed receipt; 400 when the game has no
/// such version.
async fn view_at(
    state: &AppState,
    table: &Table,
    version: Version,
    audience: Audience,
) -> Result<StateView, ApiError> {
    let mut body = reply::state_view(table.history(), version.stored(), audience)
        .ok_or_else(|| ApiError::BadRequest(format!("the game has no version {version}")))?;
    let at = (version, None);
    body.receipt =
        Some(reply::receipt(state, table, ReceiptKind::View, at, audience, &body).await?);
    Ok(body)
}

/// The table as `who` reads it at its version, with `events` (the stream sends its own, and
/// gives an empty page).
pub(crate) async fn table_read(
    state: &AppState,
    table: &Table,
    who: Caller,
    events: EventPage,
) -> Result<TableRead, ApiError> {
    let version = table.version();
    // The caller's own eyes, as `GET /state` without `as`.
    let audience = eyes(None, who.audience(), table.over(), table.players())?;
    Ok(TableRead {
        version: version.stored(),
        game: table.summary(),
        state: view_at(state, table, version, audience).await?,
        legal: who.seat().ok().map(|seat| moves(table, seat)),
        presence: state.presence.of(table.id(), table.players()),
        events,
    })
}

/// What `seat` may send now, at the table's version.
fn moves(table: &Table, seat: Seat) -> LegalMoves {
    LegalMoves {
        decision_version: table.decision_version().stored(),
        version: table.version().stored(),
        commands: legal_commands(table.history().game(), seat),
    }
}

/// List the caller's legal commands
///
/// Every command the player may send now (identical cards listed once); empty when it is not
/// their decision.
#[utoipa::path(
    tag = "play",
    params(("id" = String, Path, description = "The game's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The legal commands", body = LegalMoves),
        (status = 401, description = "A player's token is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "The host is not a player", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/games/{id}/legal-moves")]
async fn legal_moves(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let mut table = seam::open(&state, &game(&id)?).await?;
    let seat = table
        .caller(&state.store, bearer(&req)?.as_deref())
        .await?
        .seat()?;
    Ok(HttpResponse::Ok().json(moves(&table, seat)))
}

/// The versions `If-Match` lists (RFC 9110 §13.1.1: the condition holds when any of them
/// does): `None` without the header or with `*`, which matches any current game. The list may
/// span several header lines; empty elements are ignored; a weak tag (`W/"12"`) names its
/// version as a strong one does. Anything else is 400.
fn if_match(req: &HttpRequest) -> Result<Option<Vec<Version>>, ApiError> {
    let mut lines = req.headers().get_all("if-match").peekable();
    if lines.peek().is_none() {
        return Ok(None);
    }
    let malformed = || {
        ApiError::BadRequest(
            "If-Match lists versions, e.g. \"12\" or \"12\", \"14\", or is *".into(),
        )
    };
    let mut elements = Vec::new();
    for line in lines {
        let text = line.to_str().map_err(|_| malformed())?;
        elements.extend(text.split(',').map(str::trim).filter(|e| !e.is_empty()));
    }
    if elements == ["*"] {
        return Ok(None);
    }
    let versions = elements
        .iter()
        .map(|tag| {
            let tag = tag.strip_prefix("W/").unwrap_or(tag);
            let version = tag
                .strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                // A bare number is taken as the version too, as it always was.
                .unwrap_or(tag);
            match version.parse::<u64>() {
                Ok(v) if version.bytes().all(|b| b.is_ascii_digit()) => Ok(Version::of(v)),
                _ => Err(malformed()),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    if versions.is_empty() {
        return Err(malformed());
    }
    Ok(Some(versions))
}

/// Send a command
///
/// Plays a command in the wire format of docs/scenarios.md for the token's seat. `If-Match`
/// names the version the command was chosen at (a view's or the legal moves' `version`, or an
/// `ETag`): it holds while no event that changes what a seat decides on was recorded after it —
/// table talk, hidden messages, tokens issued again and keys registered never make it stale — and otherwise
/// answers 412 (`*` matches any version; `LegalMoves.decision_version` is the oldest version
/// that still holds). A list (`"12", "14"`, RFC 9110) holds when any version it names holds;
/// weak tags (`W/"12"`) name their version too; a malformed list is 400. An `Idempotency-Key` makes a retry answer exactly the first reply (the
/// command's events and the bots' answers its request recorded after it — never a move played
/// later — the same version and awaited seat) without playing again, through any server
/// process, after a restart and after a failover, even after a 503 whose outcome was unknown;
/// such a reply carries `Idempotency-Replayed: true`. The reply comes once the command is
/// durable, with the moves of the random and heuristic bots that answered it at once; an
/// expert bot never thinks before it: its move, and those after it, follow on the stream. A broken rule is 422 with the rule's stable `code`.
#[utoipa::path(
    tag = "play",
    params(
        ("Seat-Signature" = Option<String>, Header, description = "The player's Ed25519 signature of the act, 128 hex digits (docs/clients.md): needed once the seat has a key, refused with 401 `signature_required` without it and `bad_signature` when it does not verify"),
        ("Seat-Signature-Version" = Option<String>, Header, description = "The version the act was chosen and signed at, in decimal digits (e.g. `\"41\"`); it must still hold when the act arrives, as `If-Match` does for a command"),
        ("id" = String, Path, description = "The game's id"),
        ("If-Match" = Option<String>, Header, description = "The version the command was chosen at (`\"12\"`), or a list of versions (`\"12\", \"14\"`) that holds when any of them does, or `*`: a version holds while no event that changes what a seat decides on was recorded after it (talk, new tokens and keys do not)"),
        ("Idempotency-Key" = Option<String>, Header, description = "Retries with the same key return the first outcome, marked `Idempotency-Replayed: true`"),
    ),
    security(("bearer" = [])),
    request_body(
        content = saboteur_domain::Command,
        description = "A command in the wire format of docs/scenarios.md",
        example = json!({"type": "play_path", "card": "tunnel_ew", "at": {"x": 1, "y": 0}, "rotated": false})
    ),
    responses(
        (status = 200, description = "Played: the new version and events as the player sees them", body = Outcome, headers(("ETag" = String, description = "The new version, quoted"), ("Idempotency-Replayed" = String, description = "`true` on the first reply given again to a retried `Idempotency-Key`"))),
        (status = 400, description = "Malformed command or header (an If-Match that is not a list of versions)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is over 64 KiB (`too_large`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "A player's token is needed, or the seat's key must sign (`signature_required`, `bad_signature`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "The host cannot play for a seat", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "Another command was recorded first", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 412, description = "The game changed after every version If-Match lists (a move, an undo, a timeout, a seat handed over)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 422, description = "The command breaks a rule (`code` is the rule's), or the Idempotency-Key was used for another command (`idempotency_key_reused`)", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/commands")]
async fn send_command(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
    body: Json<Command>,
) -> Result<HttpResponse, ApiError> {
    let act = Act::Command {
        game: game(&id)?,
        command: body.into_inner(),
        if_match: header(&req, if_match(&req)).await?,
        key: header(&req, idempotency_key(&req)).await?,
    };
    perform(&state, &req, act).await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
struct EventsQuery {
    /// Events after this sequence number (default 0: from the start).
    #[param(minimum = 0)]
    after: Option<i64>,
    /// Events per page, 1–1000 (default 200).
    #[param(minimum = 1, maximum = 1000)]
    limit: Option<u32>,
}

/// List events
///
/// The game's events after a sequence number, as the caller may see them (another seat's
/// hand, draws and secrets are hidden until the rules make them public; everything once the
/// game is over). The `Link` header names the next page.
#[utoipa::path(
    tag = "events",
    params(("id" = String, Path, description = "The game's id"), EventsQuery),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "A page of events", body = EventPage, headers(("Link" = String, description = "The next page, `</games/{id}/events?after=…&limit=…>; rel=\"next\"`, while there is one"))),
        (status = 400, description = "Malformed query", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The token is not this game's", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/games/{id}/events")]
async fn list_events(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<EventsQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (after, limit) = crate::http::limits::page(query.after, query.limit, "a sequence number")?;
    let declared = declared_version(&req)?;
    let mut table = seam::open(&state, &game(&id)?).await?;
    let who = table.caller(&state.store, bearer(&req)?.as_deref()).await?;
    let page = events_page(&table, who, (after, limit), declared.as_ref());
    let mut response = HttpResponse::Ok();
    if let Some(next) = page.next_after {
        response.insert_header((
            "Link",
            format!("</games/{id}/events?after={next}&limit={limit}>; rel=\"next\""),
        ));
    }
    Ok(response.json(page))
}

/// The events after `after`, at most `limit`, as `who` may see them, for a client that
/// declared the API version `declared`.
fn events_page(
    table: &Table,
    who: Caller,
    (after, limit): (i64, u32),
    declared: Option<&semver::Version>,
) -> EventPage {
    let log = table.history().log();
    let start = usize::try_from(after).unwrap_or(usize::MAX).min(log.len());
    let end = start
        .saturating_add(usize::try_from(limit).unwrap_or(usize::MAX))
        .min(log.len());
    let first = Version::of(u64::try_from(start).unwrap_or(u64::MAX)).plus(1);
    let events = EventRecord::all_for_client(
        redacted(
            table.history(),
            log.get(start..end).unwrap_or_default(),
            first.stored(),
            who.audience(),
            table.sealer(),
        ),
        declared,
    );
    let next_after =
        (end < log.len()).then(|| Version::of(u64::try_from(end).unwrap_or(u64::MAX)).stored());
    EventPage { events, next_after }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
struct TableQuery {
    /// The events after this sequence number (default: the last 30).
    #[param(minimum = 0)]
    after: Option<i64>,
    /// At most this many events, 1–1000 (default 100); `events.next_after` names the rest.
    #[param(minimum = 1, maximum = 1000)]
    limit: Option<u32>,
}

/// Read the table
///
/// Everything a table shows, at one version, in one request: the game (as `GET /games/{id}`),
/// the caller's view with its receipt (as `GET /games/{id}/state`), the caller's legal
/// commands (as `GET /games/{id}/legal-moves`; absent for a spectator or the host), who is
/// connected (as `GET /games/{id}/presence`) and the events after `after` (as
/// `GET /games/{id}/events`). A client following the stream reads this once per piece of
/// news, with `after` the last event it holds. The `ETag` is the version.
#[utoipa::path(
    tag = "table",
    params(("id" = String, Path, description = "The game's id"), TableQuery),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "The table", body = TableRead, headers(
            ("ETag" = String, description = "The version, quoted"),
            ("Cache-Control" = String, description = "`no-cache`"),
            ("Vary" = String, description = "`Authorization, Api-Version`: the table depends on the token, and its events on the version declared"),
        )),
        (status = 400, description = "Malformed query", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The token is not this game's", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/games/{id}/table")]
async fn read_table(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<TableQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (after, limit) = crate::http::limits::page(
        query.after,
        Some(query.limit.unwrap_or(100)),
        "a sequence number",
    )?;
    let game = game(&id)?;
    let declared = declared_version(&req)?;
    let mut table = seam::open(&state, &game).await?;
    let who = table.caller(&state.store, bearer(&req)?.as_deref()).await?;
    let version = table.version();
    let after = query
        .after
        .map_or_else(|| (version.stored() - 30).max(0), |_| after);
    let events = events_page(&table, who, (after, limit), declared.as_ref());
    let body = table_read(&state, &table, who, events).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("ETag", format!("\"{version}\"")))
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-cache"))
        .insert_header((actix_web::http::header::VARY, "Authorization, Api-Version"))
        .json(body))
}
