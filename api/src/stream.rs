//! Live updates: Server-Sent Events whose `id` is the event's sequence number, redacted for
//! the caller, resumable with `Last-Event-ID`.
//!
//! A stream is woken by the store's announcements (so it follows commands made through any
//! server process on the same PostgreSQL) and reads what it has not sent from the game's
//! table, which follows the store: a thousand streams on one game cost one read of the log per
//! append, not a thousand. After a gap in the announcements (the database went away and came
//! back) every stream catches up by sequence number; a keep-alive every 15 s also checks. The
//! number of open streams per process is capped ([`crate::Config::max_streams`]): beyond it,
//! 503 with `Retry-After`.

use std::sync::Arc;
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse, get, web};
use saboteur_domain::Audience;
use saboteur_storage::Notice;
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::AppState;
use crate::error::ApiError;
use crate::limits::Permit;
use crate::tables::Tables;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(stream_events);
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
struct StreamQuery {
    /// Start after this sequence number (the `Last-Event-ID` header wins when present).
    #[param(minimum = 0)]
    after: Option<i64>,
}

type Frames = mpsc::Sender<Result<web::Bytes, std::io::Error>>;

/// How often a quiet stream sends a comment. A client that went away is noticed when a write
/// fails (the first write after it left may still be taken by the network): a stream stops
/// counting for presence within about twice this long.
const KEEP_ALIVE: Duration = Duration::from_secs(5);

/// Every how many keep-alives a quiet stream also checks the game for missed events (every
/// 15 s): a check takes the game's table, which waits on the database while it is away.
const CHECK_EVERY: u32 = 3;

/// The frames of the events after `sent`, as `audience` may see them, and the last sequence
/// number among them. `Err`: the game cannot be read now (the stream tries again later).
async fn frames_after(
    tables: &Arc<Tables>,
    id: &str,
    sent: i64,
    audience: Audience,
) -> Result<(Vec<web::Bytes>, i64), ApiError> {
    let table = tables.open(id).await?;
    let log = table.history.log();
    let start = usize::try_from(sent).unwrap_or(0).min(log.len());
    let mut frames = Vec::new();
    let mut last = sent;
    for (event, seq) in log.iter().skip(start).zip(sent + 1..) {
        let shown = table.history.shown(seq as u64, event, audience);
        let data = serde_json::json!({ "seq": seq, "event": shown });
        frames.push(web::Bytes::from(format!(
            "id: {seq}\nevent: {}\ndata: {data}\n\n",
            event.kind()
        )));
        last = seq;
    }
    Ok((frames, last))
}

/// Sends what the stream has not sent yet; `None` when the client has gone.
async fn catch_up(
    tables: &Arc<Tables>,
    id: &str,
    sent: i64,
    audience: Audience,
    tx: &Frames,
) -> Option<i64> {
    match frames_after(tables, id, sent, audience).await {
        Ok((frames, last)) => {
            for frame in frames {
                tx.send(Ok(frame)).await.ok()?;
            }
            Some(last)
        }
        Err(e) => {
            tracing::debug!(game = %id, "stream: cannot read the game now: {e}");
            Some(sent)
        }
    }
}

/// Feeds one stream until its client goes away.
async fn feed(
    tables: Arc<Tables>,
    mut notices: broadcast::Receiver<Notice>,
    id: String,
    mut sent: i64,
    audience: Audience,
    tx: Frames,
    // The stream's place among this process's streams, and its presence at the table.
    _held: (Permit, crate::online::Present),
) {
    let Some(s) = catch_up(&tables, &id, sent, audience, &tx).await else {
        return;
    };
    sent = s;
    let mut quiet = 0u32;
    loop {
        let wake = tokio::select! {
            // The client went away: give the stream's place back now.
            _ = tx.closed() => return,
            note = notices.recv() => match note {
                Ok(Notice::Appended(a)) => a.game_id == id && a.last_seq > sent,
                Ok(Notice::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => true,
                Err(broadcast::error::RecvError::Closed) => return,
            },
            _ = tokio::time::sleep(KEEP_ALIVE) => {
                if tx.send(Ok(web::Bytes::from_static(b": keep-alive\n\n"))).await.is_err() {
                    return;
                }
                quiet += 1;
                quiet.is_multiple_of(CHECK_EVERY)
            }
        };
        if wake {
            match catch_up(&tables, &id, sent, audience, &tx).await {
                Some(s) => sent = s,
                None => return,
            }
        }
    }
}

/// Follow the game live
///
/// Server-Sent Events: every event after `Last-Event-ID` (or `after`), then each new one as it
/// is recorded, as the caller may see it. The `id` of each message is the event's sequence
/// number and its `event` the event's type; comments keep the connection alive.
#[utoipa::path(
    tag = "events",
    params(
        ("id" = String, Path, description = "The game's id"),
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this sequence number"),
        StreamQuery,
    ),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "An event stream (`text/event-stream`): `id` is the sequence number, `event` the type, `data` `{\"seq\": n, \"event\": {…}}`"),
        (status = 400, description = "Malformed Last-Event-ID or query", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The token is not this game's", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/games/{id}/events/stream")]
async fn stream_events(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<StreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let permit = state
        .streams
        .take(state.config.max_streams)
        .ok_or_else(|| {
            ApiError::Busy(format!(
                "this server has {} event streams open, its most: try again later",
                state.config.max_streams
            ))
        })?;
    let audience = {
        let mut table = state.tables.open(&id).await?;
        table.caller(&state.store, &req).await?.audience()
    };
    let after = match req.headers().get("last-event-id") {
        Some(h) => h
            .to_str()
            .ok()
            .and_then(|v| v.trim().parse::<i64>().ok())
            .ok_or_else(|| ApiError::BadRequest("Last-Event-ID is a sequence number".into()))?,
        None => query.after.unwrap_or(0),
    };
    if after < 0 {
        return Err(ApiError::BadRequest(
            "after is a sequence number, 0 or more".into(),
        ));
    }
    // Listen before reading the backlog, so nothing appended in between is missed.
    let notices = state.store.subscribe();
    let (tx, rx) = mpsc::channel(64);
    let id = id.into_inner();
    tokio::spawn(feed(
        state.tables.clone(),
        notices,
        id.clone(),
        after,
        audience,
        tx,
        (permit, state.presence.enter(&id, audience)),
    ));
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .streaming(ReceiverStream::new(rx)))
}
