//! Live updates: Server-Sent Events whose `id` is the event's sequence number, redacted for
//! the caller, resumable with `Last-Event-ID`. Appends are heard through the store's
//! notifications, so a stream follows commands made through any server process on the same
//! PostgreSQL.

use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse, get, web};
use saboteur_domain::{Audience, Event, Phase};
use saboteur_storage::{EventStore, decode};
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::error::ApiError;
use crate::{AppState, caller};

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

/// Sends every event after `sent`, redacted; returns the last sequence number sent, or `None`
/// when the client has gone.
async fn send_after(
    store: &EventStore,
    id: &str,
    mut sent: i64,
    audience: Audience,
    over: &mut bool,
    tx: &Frames,
) -> Option<i64> {
    loop {
        let page = match store.events_after(id, sent, 500).await {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(error = %e, "stream: cannot read events");
                return Some(sent);
            }
        };
        for stored in &page {
            let Ok(event) = decode(stored) else {
                return Some(sent);
            };
            *over |= matches!(event, Event::GameEnded { .. });
            let shown = saboteur_domain::redact(&event, audience, *over);
            let data = serde_json::json!({ "seq": stored.seq, "event": shown });
            let frame = format!(
                "id: {}\nevent: {}\ndata: {}\n\n",
                stored.seq,
                event.kind(),
                data
            );
            tx.send(Ok(web::Bytes::from(frame))).await.ok()?;
            sent = stored.seq;
        }
        if page.len() < 500 {
            return Some(sent);
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
    )
)]
#[get("/games/{id}/events/stream")]
async fn stream_events(
    state: web::Data<AppState>,
    id: web::Path<String>,
    query: web::Query<StreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let (audience, mut over) = {
        let entry = state.entry(&id).await?;
        let entry = entry.lock().await;
        (
            caller(&req, &entry)?.audience(),
            entry.history.game().phase == Phase::GameOver,
        )
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
    let mut appended = state.store.subscribe();
    let store = state.store.clone();
    let id = id.into_inner();
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(async move {
        let Some(mut sent) = send_after(&store, &id, after, audience, &mut over, &tx).await else {
            return;
        };
        loop {
            tokio::select! {
                note = appended.recv() => match note {
                    Ok(a) if a.game_id != id || a.last_seq <= sent => continue,
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        match send_after(&store, &id, sent, audience, &mut over, &tx).await {
                            Some(s) => sent = s,
                            None => return,
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = tokio::time::sleep(Duration::from_secs(15)) => {
                    if tx.send(Ok(web::Bytes::from_static(b": keep-alive\n\n"))).await.is_err() {
                        return;
                    }
                }
            }
        }
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .streaming(ReceiverStream::new(rx)))
}
