//! Live updates: Server-Sent Events whose `id` is the event's sequence number, redacted for
//! the caller, resumable with `Last-Event-ID`.
//!
//! A stream is woken by the store's announcements (so it follows commands made through any
//! server process on the same PostgreSQL) and reads what it has not sent from the game's
//! table, which follows the store: a thousand streams on one game cost one read of the log per
//! append, not a thousand. After a gap in the announcements (the database went away and came
//! back) every stream catches up by sequence number; a keep-alive comment goes out every 5 s,
//! and every third one also checks. Once the game is over and every event has been sent, the
//! stream ends (one opened on a finished game sends the backlog, then ends). The number of open
//! streams per process is capped ([`crate::Config::max_streams`]): beyond it, 503 with
//! `Retry-After`.

use std::sync::Arc;
use std::time::Duration;

use actix_web::{HttpRequest, HttpResponse, get, web};
use saboteur_domain::{Audience, Seat};
use saboteur_storage::Notice;
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;

use crate::http::quota::ClientPermit;
use utoipa::IntoParams;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::app::auth::{Caller, token_hash};
use crate::app::ids::GameId;
use crate::app::presence::Present;
use crate::app::seam;
use crate::app::state::{AppState, stopping};
use crate::dto::{EventPage, StreamRecord};
use crate::error::{ApiError, Conflict};
use crate::http::limits::Permit;
use crate::http::perform::{bearer, declared_version, game};
use crate::http::play::table_read;
use saboteur_verifier::newer::ServedEvent;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(stream_events);
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
struct StreamQuery {
    /// Start after this sequence number (the `Last-Event-ID` header wins when present).
    #[param(minimum = 0)]
    after: Option<i64>,
    /// `true`: the last event of each batch the stream sends carries `table`, the caller's
    /// `TableRead` at that event's version (its `events` empty: the stream carries them), so
    /// that a client needs no read after the news.
    table: Option<bool>,
}

type Frames = mpsc::Sender<Result<web::Bytes, std::io::Error>>;

/// How often a quiet stream sends a comment. A client that went away is noticed when a write
/// fails (the first write after it left may still be taken by the network): a stream stops
/// counting for presence within about twice this long.
const KEEP_ALIVE: Duration = Duration::from_secs(5);

/// Every how many keep-alives a quiet stream also checks the game for missed events (every
/// 15 s): a check takes the game's table, which waits on the database while it is away.
const CHECK_EVERY: u32 = 3;

/// How soon a stream whose read of the game failed (no database connection free in time, the
/// database away) reads again, the pause doubling after each failure up to [`KEEP_ALIVE`]: the
/// news it was woken for is otherwise left unsent until the next event or the next check, up
/// to 15 s later.
const READ_AGAIN: Duration = Duration::from_millis(250);

/// One stream's reader: the game, whom it shows events to and, for a player, the token it was
/// opened with (the stream ends once that token no longer holds the seat).
struct Follower {
    state: Arc<AppState>,
    game: GameId,
    /// Who opened the stream: the events are shown to its audience.
    who: Caller,
    /// The seat and its token's hash, for a player's stream.
    holder: Option<(Seat, String)>,
    /// Whether the last event of each batch carries the caller's table.
    with_table: bool,
    /// The API version the client declared (`Api-Version`): newer events are sent wrapped.
    declared: Option<semver::Version>,
}

/// Why a stream stops reading.
enum Stop {
    /// The client went away.
    Gone,
    /// The token it was opened with was issued again: it no longer sees the seat.
    Revoked,
    /// The game is over and every event has been sent.
    Finished,
}

/// What a catch-up read: the frames of the events not sent yet, the last event among them, and
/// whether the game is over (nothing will follow them).
struct Read {
    frames: Vec<web::Bytes>,
    last: Sent,
    over: bool,
}

/// What a stream sent last: its sequence number, the event (none before the first), and the
/// table's count of rewinds when it was read (none before the first read).
#[derive(Clone)]
struct Sent {
    seq: i64,
    event: Option<saboteur_domain::Event>,
    rewinds: Option<u64>,
}

impl Follower {
    /// The frames of the events after `sent`, as the audience may see them. `Ok(Err(Revoked))`:
    /// the stream's token no longer holds its seat. `Err`: the game cannot be read now (the
    /// stream tries again later).
    async fn frames_after(&self, sent: &Sent) -> Result<Result<Read, Stop>, ApiError> {
        let table = seam::open(&self.state, &self.game).await?;
        if let Some((seat, hash)) = &self.holder
            && !table.holds(*seat, hash)
        {
            return Ok(Err(Stop::Revoked));
        }
        let history = table.history();
        let log = history.log();
        let at = usize::try_from(sent.seq).unwrap_or(0);
        let kept = match (&sent.event, at.checked_sub(1).and_then(|i| log.get(i))) {
            (None, _) => at <= log.len(),
            (Some(event), Some(now)) => event == now,
            (Some(_), None) => false,
        } && sent.rewinds.is_none_or(|r| r == table.rewinds());
        if !kept {
            // The stream sent an event the store no longer has (read before a database failover
            // that lost it): it ends rather than go on from another game than the one it showed;
            // resumed with its last id, it is refused (409) when the log is shorter, and the
            // client reads the game again.
            return Ok(Err(Stop::Gone));
        }
        let mut frames = Vec::new();
        let mut last = Sent {
            rewinds: Some(table.rewinds()),
            ..sent.clone()
        };
        let audience = self.who.audience();
        let newest = i64::try_from(log.len()).unwrap_or(i64::MAX);
        for (event, seq) in log.iter().skip(at).zip(sent.seq + 1..) {
            let shown = history.shown(u64::try_from(seq).unwrap_or_default(), event, audience);
            let shown = ServedEvent::from(shown).for_client(self.declared.as_ref());
            let kind = shown.kind();
            let mut data = StreamRecord {
                seq,
                event: shown,
                openings: saboteur_verifier::body::openings(table.sealer(), seq, event, audience),
                table: None,
            };
            if self.with_table && seq == newest {
                let events = EventPage {
                    events: Vec::new(),
                    next_after: None,
                };
                let read = table_read(&self.state, &table, self.who, events).await?;
                data.table = Some(Box::new(read));
            }
            let data = serde_json::to_string(&data)
                .map_err(|e| ApiError::Internal(format!("a stream record as JSON: {e}")))?;
            frames.push(web::Bytes::from(format!(
                "id: {seq}\nevent: {kind}\ndata: {data}\n\n"
            )));
            last = Sent {
                seq,
                event: Some(event.clone()),
                rewinds: Some(table.rewinds()),
            };
        }
        Ok(Ok(Read {
            frames,
            last,
            over: table.ended(),
        }))
    }

    /// Sends what the stream has not sent yet, and what it sent last (`None`: the game could
    /// not be read now, nothing was sent); `Err(Finished)` once that was the game's last event.
    async fn catch_up(&self, sent: &Sent, tx: &Frames) -> Result<Option<Sent>, Stop> {
        match self.frames_after(sent).await {
            Ok(Ok(read)) => {
                for frame in read.frames {
                    tx.send(Ok(frame)).await.map_err(|_| Stop::Gone)?;
                }
                if read.over {
                    return Err(Stop::Finished);
                }
                Ok(Some(read.last))
            }
            Ok(Err(stop)) => Err(stop),
            Err(e) => {
                tracing::debug!(game = %self.game, "stream: cannot read the game now: {e}");
                Ok(None)
            }
        }
    }

    /// Feeds the stream until its client goes away, its token is issued again or the game is
    /// over and every event has been sent. Returning drops the sender: the response ends once
    /// the frames already queued are written.
    async fn feed(
        self,
        mut notices: broadcast::Receiver<Notice>,
        after: i64,
        tx: Frames,
        // The stream's place among this process's streams, and its presence at the table.
        held: (Permit, Option<ClientPermit>, Present),
    ) {
        let recheck = held.2.recheck.clone();
        let first = Sent {
            seq: after,
            event: None,
            rewinds: None,
        };
        let Ok(read) = self.catch_up(&first, &tx).await else {
            return;
        };
        // The reads that failed in a row: the last is tried again after a pause.
        let mut failed = u32::from(read.is_none());
        let mut sent = read.unwrap_or(first);
        let mut quiet = 0u32;
        let mut closing = self.state.closing.clone();
        loop {
            let wake = tokio::select! {
                // The client went away: give the stream's place back now.
                _ = tx.closed() => return,
                // The server is stopping: the client reconnects to one that goes on.
                () = stopping(&mut closing) => return,
                // A token of the game was issued again: check this stream's.
                _ = recheck.notified() => true,
                // The tables hear the same announcements on their own subscription, which may
                // not have been read yet: tell them first, or the read may answer from a table
                // that has not heard of this append (and the stream would wait for the next).
                note = notices.recv() => match note {
                    Ok(Notice::Appended(a)) if a.game_id == self.game => {
                        self.state.tables.heard(&a.game_id, a.last_seq);
                        a.last_seq.stored() > sent.seq
                    }
                    Ok(Notice::Appended(_)) => false,
                    Ok(Notice::Resync) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        self.state.tables.doubt(self.game.as_str());
                        true
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = tokio::time::sleep(KEEP_ALIVE) => {
                    if tx.send(Ok(web::Bytes::from_static(b": keep-alive\n\n"))).await.is_err() {
                        return;
                    }
                    quiet += 1;
                    quiet.is_multiple_of(CHECK_EVERY)
                }
                () = tokio::time::sleep(read_again(failed)), if failed > 0 => true,
            };
            if wake {
                match self.catch_up(&sent, &tx).await {
                    Ok(Some(read)) => {
                        failed = 0;
                        sent = read;
                    }
                    Ok(None) => failed = failed.saturating_add(1),
                    Err(_) => return,
                }
            }
        }
    }
}

/// The pause before a stream reads again after `failed` reads failed in a row.
pub(crate) fn read_again(failed: u32) -> Duration {
    READ_AGAIN
        .saturating_mul(2u32.saturating_pow(failed.saturating_sub(1)))
        .min(KEEP_ALIVE)
}

/// A stream's place among this process's streams (`--max-streams`: 503 beyond), and among
/// its client's (`--limit-streams`: 429 beyond): a game's stream and a player's alike.
pub(crate) fn stream_permits(
    state: &AppState,
    edge: &crate::http::edge::Edge,
    req: &HttpRequest,
) -> Result<(Permit, Option<ClientPermit>), ApiError> {
    let permit = edge.streams.take(state.config.max_streams).ok_or_else(|| {
        ApiError::Busy(format!(
            "this server has {} event streams open, its most: try again later",
            state.config.max_streams
        ))
    })?;
    let quotas = &edge.quotas;
    let mine = match crate::http::quota::Client::of(req, &quotas.limits().trusted_proxies) {
        Some(client) => Some(quotas.stream(client).ok_or_else(|| {
            state.metrics.limited.with_label_values(&["stream"]).inc();
            ApiError::TooManyRequests {
                detail: format!(
                    "{client} holds {} event streams open, its most: close one, or try again \
                     after Retry-After",
                    quotas.limits().streams
                ),
                retry_after: 5,
            }
        })?),
        None => None,
    };
    Ok((permit, mine))
}

/// Follow the game live
///
/// Server-Sent Events: every event after `Last-Event-ID` (or `after`), then each new one as it
/// is recorded, as the caller may see it. The `id` of each message is the event's sequence
/// number and its `event` the event's type; a comment every 5 s keeps the connection alive.
/// Once the game is over and every event has been sent, the response ends: a client
/// reconnects only while the game is not over. A player's stream also ends when the seat's
/// token is issued again. Every stream ends when the server stops (a rolling restart):
/// reconnect, to any process, with `Last-Event-ID`. An event's `seq` is the game's version once it is applied. With
/// `table=true`, the last event of each batch sent carries the caller's table at its version
/// (the view with its receipt, the legal commands, presence), so that no read follows the
/// news.
#[utoipa::path(
    tag = "events",
    params(
        ("id" = String, Path, description = "The game's id"),
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this sequence number"),
        StreamQuery,
    ),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "Server-Sent Events, each message a `StreamMessage`: `id` is the sequence number, `event` the event's type (`newer` for one wrapped for an older client), `data` a `StreamRecord` as JSON (`{\"seq\": n, \"event\": {…}}`, with `table` on the last event of each batch when asked for); a comment line every 5 s keeps the connection alive. The response ends after a finished game's last event, a player's when its token is issued again, and every stream when the server stops (reconnect with `Last-Event-ID`).", body = saboteur_openapi::StreamMessage, content_type = "text/event-stream"),
        (status = 400, description = "Malformed Last-Event-ID or query", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 401, description = "The token is not this game's", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 409, description = "`Last-Event-ID` (or `after`) is past the game's last event: an event shown before a database failover was lost with it (it was never acknowledged to its writer). Read the game and its events again from the start.", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[get("/games/{id}/events/stream")]
async fn stream_events(
    state: web::Data<AppState>,
    edge: web::Data<crate::http::edge::Edge>,
    id: web::Path<String>,
    query: web::Query<StreamQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let declared = declared_version(&req)?;
    let (permit, mine) = stream_permits(&state, &edge, &req)?;
    let game = game(&id)?;
    let token = bearer(&req)?;
    let mut table = seam::open(&state, &game).await?;
    let who = table.caller(&state.store, token.as_deref()).await?;
    let audience = who.audience();
    let holder = match (audience, token) {
        (Audience::Seat(seat), Some(token)) => Some((seat, token_hash(&token))),
        _ => None,
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
    // Past the table's last event: perhaps recorded through another process a moment ago (read
    // it), or shown before a failover that lost it (say so: the client's copy is not the game).
    if after > table.version().stored() {
        table.follow(&state.store).await?;
        let version = table.version();
        if after > version.stored() {
            return Err(ApiError::Conflict(
                Conflict::LogShorter,
                format!(
                    "the game has no event {after}: its log ends at {version} (an event shown before \
                 a database failover was lost with it, never acknowledged to its writer); read \
                 the game and its events again from the start"
                ),
            ));
        }
    }
    drop(table);
    // Listen before reading the backlog, so nothing appended in between is missed.
    let notices = state.store.subscribe();
    let (tx, rx) = mpsc::channel(64);
    let present = state.presence.enter(&game, audience);
    let follower = Follower {
        state: state.clone().into_inner(),
        game,
        who,
        holder,
        with_table: query.table.unwrap_or(false),
        declared,
    };
    tokio::spawn(follower.feed(notices, after, tx, (permit, mine, present)));
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .streaming(ReceiverStream::new(rx)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream whose reads keep failing tries again after 250 ms, then twice as long each
    /// time, never waiting longer than its keep-alive.
    #[test]
    fn a_failed_read_is_tried_again_soon_then_less_often() {
        let pauses: Vec<u128> = (1..=7).map(|n| read_again(n).as_millis()).collect();
        assert_eq!(pauses, [250, 500, 1000, 2000, 4000, 5000, 5000]);
        assert_eq!(read_again(u32::MAX), KEEP_ALIVE);
    }
}
