//! Play: the caller's view, legal moves, commands, and the event log.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use saboteur_domain::{Audience, Command, Event, Phase, Seat, legal_commands, view};
use saboteur_storage::{Append, AppendOutcome, StoreError, to_new_event};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::dto::{EventPage, LegalMoves, Outcome, StateView};
use crate::error::ApiError;
use crate::{AppState, Entry, caller, redacted};

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(get_state)
        .service(legal_moves)
        .service(send_command)
        .service(list_events);
}

/// What an append did.
pub(crate) enum Appended {
    /// The events are in the log; the game's new version.
    New(i64),
    /// The command id was used before: the original batch's last sequence number.
    Duplicate(i64),
}

/// Appends events at the entry's version, then folds them into the entry. A lost race drops
/// the cached game so the next request reloads it.
pub(crate) async fn append_batch(
    state: &AppState,
    entry: &mut Entry,
    events: Vec<Event>,
    command_id: Option<String>,
    status: Option<&str>,
) -> Result<Appended, ApiError> {
    let over = events.iter().any(|e| matches!(e, Event::GameEnded { .. }));
    let status = if over { Some("finished") } else { status };
    let outcome = state
        .store
        .append(Append {
            game_id: entry.record.id.clone(),
            expected_version: entry.version(),
            prev_hash: Some(entry.last_hash.clone()),
            events: events.iter().map(to_new_event).collect(),
            command_id,
            status: status.map(str::to_string),
        })
        .await;
    match outcome {
        Ok(AppendOutcome::Appended {
            last_seq,
            last_hash,
            ..
        }) => {
            for e in events {
                entry.history.push(e);
            }
            entry.last_hash = last_hash;
            entry.record.version = last_seq;
            if let Some(s) = status {
                entry.record.status = s.to_string();
            }
            if over {
                entry.record.seed = Some(entry.history.game().seed.0.to_vec());
            }
            Ok(Appended::New(last_seq))
        }
        Ok(AppendOutcome::Duplicate { last_seq, .. }) => Ok(Appended::Duplicate(last_seq)),
        Err(e @ StoreError::Conflict { .. }) => {
            state.forget(&entry.record.id);
            Err(e.into())
        }
        Err(e) => Err(e.into()),
    }
}

/// [`append_batch`] where a duplicate cannot happen (no command id).
pub(crate) async fn append(
    state: &AppState,
    entry: &mut Entry,
    events: Vec<Event>,
    command_id: Option<String>,
    status: Option<&str>,
) -> Result<i64, ApiError> {
    match append_batch(state, entry, events, command_id, status).await? {
        Appended::New(v) => Ok(v),
        Appended::Duplicate(last) => Ok(last),
    }
}

/// Lets the bots act while the game waits for one of them: a pending undo request gets every
/// bot's approval, and each awaited bot plays, appended like a player's command. Stops at a
/// human's turn, at the end, or when an append fails (another process moved the game on: it
/// plays the bots from there). Returns the events appended.
pub(crate) async fn play_bots(state: &AppState, entry: &mut Entry) -> Vec<Event> {
    let mut played = Vec::new();
    loop {
        let events = if let Some(request) = entry.history.pending_undo() {
            let voter = (0..entry.players()).map(Seat).find(|s| {
                *s != request.seat && !request.approvals.contains(s) && entry.bot(*s).is_some()
            });
            // A request waits for its humans' votes; meanwhile nobody acts.
            let Some(voter) = voter else { break };
            match entry.history.vote_undo(voter, true) {
                Ok(events) => events,
                Err(_) => break,
            }
        } else {
            let Some(seat) = entry.history.game().awaited() else {
                break;
            };
            let Some(level) = entry.bot(seat) else { break };
            let Some(events) = entry.history.execute_bot(seat, level) else {
                tracing::warn!(game = %entry.record.id, seat = seat.0, "a bot found no command");
                break;
            };
            state.metrics.commands.with_label_values(&["bot"]).inc();
            events
        };
        if let Err(e) = append(state, entry, events.clone(), None, None).await {
            tracing::warn!(game = %entry.record.id, "a bot's move was not recorded: {e}");
            break;
        }
        played.extend(events);
    }
    played
}

fn game_over(entry: &Entry) -> bool {
    entry.history.game().phase == Phase::GameOver
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
struct StateQuery {
    /// Replay: the state at this earlier version instead of now.
    #[param(minimum = 1)]
    at: Option<u64>,
}

/// Get the caller's view
///
/// The game as the caller may see it (§11): with a player's token, their hand and role; without
/// a token, what a spectator sees. `at` replays any earlier version; once the game is over,
/// everything is public. The `ETag` is the version.
#[utoipa::path(
    tag = "play",
    params(("id" = String, Path, description = "The game's id"), StateQuery),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "The view", body = StateView, headers(("ETag" = String, description = "The version, quoted"))),
        (status = 400, description = "Malformed query or no such version", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The token is not this game's", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/state")]
async fn get_state(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<StateQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let entry = state.entry(&id).await?;
    let entry = entry.lock().await;
    let who = caller(&req, &entry)?;
    let audience = if game_over(&entry) {
        Audience::Omniscient
    } else {
        who.audience()
    };
    let (version, game) = match query.at {
        None => (entry.version(), entry.history.game().clone()),
        Some(at) => (
            at as i64,
            entry
                .history
                .state_at(at)
                .ok_or_else(|| ApiError::BadRequest(format!("the game has no version {at}")))?,
        ),
    };
    let body = StateView {
        version,
        view: view(&game, audience),
    };
    Ok(HttpResponse::Ok()
        .insert_header(("ETag", format!("\"{version}\"")))
        .json(body))
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
    )
)]
#[get("/games/{id}/legal-moves")]
async fn legal_moves(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let entry = state.entry(&id).await?;
    let entry = entry.lock().await;
    let seat = caller(&req, &entry)?.seat()?;
    let commands = legal_commands(entry.history.game(), seat);
    Ok(HttpResponse::Ok().json(LegalMoves {
        version: entry.version(),
        commands,
    }))
}

fn if_match(req: &HttpRequest) -> Result<Option<i64>, ApiError> {
    let Some(h) = req.headers().get("if-match") else {
        return Ok(None);
    };
    let text = h
        .to_str()
        .unwrap_or_default()
        .trim()
        .trim_start_matches("W/")
        .trim_matches('"');
    text.parse()
        .map(Some)
        .map_err(|_| ApiError::BadRequest("If-Match holds the version, e.g. \"12\"".into()))
}

fn idempotency_key(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(h) = req.headers().get("idempotency-key") else {
        return Ok(None);
    };
    match h.to_str() {
        Ok(k) if !k.is_empty() && k.len() <= 200 => Ok(Some(k.to_string())),
        _ => Err(ApiError::BadRequest(
            "Idempotency-Key is 1 to 200 visible characters".into(),
        )),
    }
}

/// Send a command
///
/// Plays a command in the wire format of SCENARIOS.md for the token's seat. `If-Match` with
/// the version refuses a stale command (412); an `Idempotency-Key` makes a retry return the
/// stored outcome without playing again. A broken rule is 422 with the rule's stable `code`.
#[utoipa::path(
    tag = "play",
    params(
        ("id" = String, Path, description = "The game's id"),
        ("If-Match" = Option<String>, Header, description = "The version the command was chosen at"),
        ("Idempotency-Key" = Option<String>, Header, description = "Retries with the same key return the first outcome"),
    ),
    security(("bearer" = [])),
    request_body(
        content = saboteur_domain::Command,
        description = "A command in the wire format of SCENARIOS.md",
        example = json!({"type": "play_path", "card": "tunnel_ew", "at": {"x": 1, "y": 0}, "rotated": false})
    ),
    responses(
        (status = 200, description = "Played: the new version and events as the player sees them", body = Outcome, headers(("ETag" = String, description = "The new version, quoted"))),
        (status = 400, description = "Malformed command or header", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "A player's token is needed", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 403, description = "The host cannot play for a seat", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "Another command was recorded first", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match names another version", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 422, description = "The command breaks a rule", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/commands")]
async fn send_command(
    state: web::Data<AppState>,
    id: web::Path<String>,
    req: HttpRequest,
    body: web::Json<Command>,
) -> Result<HttpResponse, ApiError> {
    let entry_lock = state.entry(&id).await?;
    let mut entry = entry_lock.lock().await;
    let seat = caller(&req, &entry)?.seat()?;
    let key = idempotency_key(&req)?.map(|k| format!("{}:{k}", seat.0));
    if let Some(key) = &key
        && let Some((first, last)) = state.store.command_batch(&id, key).await?
    {
        // A retry: the stored outcome, nothing played again.
        state.metrics.commands.with_label_values(&["retried"]).inc();
        let events = &entry.history.log()[first as usize - 1..last as usize];
        let out = Outcome {
            version: last,
            events: redacted(events, first, Audience::Seat(seat), game_over(&entry)),
            awaited: entry.history.game().awaited().map(|s| s.0),
        };
        return Ok(HttpResponse::Ok()
            .insert_header(("ETag", format!("\"{last}\"")))
            .json(out));
    }
    if let Some(v) = if_match(&req)?
        && v != entry.version()
    {
        state.metrics.conflicts.with_label_values(&["stale"]).inc();
        return Err(ApiError::PreconditionFailed(format!(
            "the command was chosen at version {v}; the game is at version {}",
            entry.version()
        )));
    }
    if entry.record.status == "lobby" {
        return Err(ApiError::Conflict("the game has not started".into()));
    }
    let events = entry.history.execute(seat, &body).inspect_err(|_| {
        state
            .metrics
            .commands
            .with_label_values(&["rejected"])
            .inc();
    })?;
    let appended = append_batch(&state, &mut entry, events.clone(), key, None).await;
    if let Err(ApiError::Conflict(_)) = &appended {
        state.metrics.conflicts.with_label_values(&["race"]).inc();
    }
    let version = match appended? {
        Appended::New(v) => v,
        Appended::Duplicate(last) => last,
    };
    state
        .metrics
        .commands
        .with_label_values(&["accepted"])
        .inc();
    let first = version - events.len() as i64 + 1;
    let mut events = events;
    events.extend(play_bots(&state, &mut entry).await);
    let version = first + events.len() as i64 - 1;
    let over = game_over(&entry);
    Ok(HttpResponse::Ok()
        .insert_header(("ETag", format!("\"{version}\"")))
        .json(Outcome {
            version,
            events: redacted(&events, first, Audience::Seat(seat), over),
            awaited: entry.history.game().awaited().map(|s| s.0),
        }))
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
        (status = 200, description = "A page of events", body = EventPage),
        (status = 400, description = "Malformed query", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The token is not this game's", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/events")]
async fn list_events(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<EventsQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let limit = query.limit.unwrap_or(200);
    if !(1..=1000).contains(&limit) {
        return Err(ApiError::BadRequest("limit is between 1 and 1000".into()));
    }
    let after = query.after.unwrap_or(0);
    if after < 0 {
        return Err(ApiError::BadRequest(
            "after is a sequence number, 0 or more".into(),
        ));
    }
    let entry = state.entry(&id).await?;
    let entry = entry.lock().await;
    let who = caller(&req, &entry)?;
    let log = entry.history.log();
    let start = (after as usize).min(log.len());
    let end = (start + limit as usize).min(log.len());
    let page = redacted(
        &log[start..end],
        start as i64 + 1,
        who.audience(),
        game_over(&entry),
    );
    let next_after = (end < log.len()).then_some(end as i64);
    let mut response = HttpResponse::Ok();
    if let Some(next) = next_after {
        response.insert_header((
            "Link",
            format!("</games/{id}/events?after={next}&limit={limit}>; rel=\"next\""),
        ));
    }
    Ok(response.json(EventPage {
        events: page,
        next_after,
    }))
}
