//! Announcing appends: on PostgreSQL with NOTIFY after commit (every server process on the
//! database hears every append) and a listener that relays them to the subscribers of
//! [`crate::EventStore::subscribe`];
//! on SQLite through an in-process broadcast. The listener survives outages: it reconnects
//! with backoff for as long as the store lives, and after every (re)connection tells its
//! subscribers to catch up from the log ([`Notice::Resync`]).

use std::sync::Weak;
use std::time::Duration;

use sqlx::postgres::{PgListener, PgPool};
use tokio::sync::{broadcast, mpsc};

use crate::error::Result;
use crate::ids::{GameId, Version};
use crate::records::{Appended, Notice};

/// The PostgreSQL channel appends are announced on.
pub const CHANNEL: &str = "saboteur_events";

/// The first wait before the listener connects again; it doubles up to [`MOST_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// The longest wait between two attempts to connect the listener.
const MOST_BACKOFF: Duration = Duration::from_secs(5);

/// A listener on [`CHANNEL`].
async fn listener(pool: &PgPool) -> Result<PgListener> {
    let mut l = PgListener::connect_with(pool).await?;
    l.listen(CHANNEL).await?;
    Ok(l)
}

/// Connects the listener (failing if the database cannot be reached now), then relays its
/// notifications in a task that reconnects whenever the connection is lost, until `alive` is
/// gone.
pub(crate) async fn listen(
    pool: PgPool,
    tx: broadcast::Sender<Notice>,
    alive: Weak<()>,
) -> Result<()> {
    let first = listener(&pool).await?;
    tokio::spawn(async move {
        let mut current = Some(first);
        let mut backoff = FIRST_BACKOFF;
        while alive.strong_count() > 0 {
            let Some(l) = current.as_mut() else {
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MOST_BACKOFF);
                match listener(&pool).await {
                    Ok(l) => {
                        current = Some(l);
                        backoff = FIRST_BACKOFF;
                        // Listening again: whatever was appended meanwhile is in the log.
                        let _ = tx.send(Notice::Resync);
                        tracing::info!("listening for appends again");
                    }
                    Err(e) => tracing::debug!(error = %e, "cannot listen for appends yet"),
                }
                continue;
            };
            // Wake now and then to notice that the store is gone.
            match tokio::time::timeout(MOST_BACKOFF, l.try_recv()).await {
                Err(_) => {}
                Ok(Ok(Some(n))) => {
                    for line in n.payload().lines() {
                        if let Some((game_id, seq)) = line.rsplit_once(' ')
                            && let Ok(last_seq) = seq.parse().map(Version::of)
                        {
                            let game_id = GameId::stored(game_id.to_string());
                            let _ = tx.send(Notice::Appended(Appended { game_id, last_seq }));
                        }
                    }
                }
                Ok(Ok(None)) | Ok(Err(_)) => {
                    // Subscribers are told to catch up once listening again: catching up now
                    // would miss what is appended before then.
                    tracing::warn!("lost the connection that listens for appends; reconnecting");
                    current = None;
                }
            }
        }
    });
    Ok(())
}

/// A connection of its own for announcing, committing asynchronously.
async fn announcer(pool: &PgPool) -> Option<sqlx::PgConnection> {
    let mut c = match pool.acquire().await {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %e, "no connection to announce appends");
            return None;
        }
    };
    match sqlx::query("SET synchronous_commit = off")
        .execute(&mut *c)
        .await
    {
        // Detached: the setting must not reach the pool's other users.
        Ok(_) => Some(c.detach()),
        Err(e) => {
            tracing::warn!(error = %e, "could not prepare the announcer");
            None
        }
    }
}

/// Sends the appends waiting in the outbox with NOTIFY, all that queued up in one message per
/// round trip: one line `game_id last_seq` per game. On a connection of its own that commits
/// asynchronously: a NOTIFY gives its transaction an id, so each would otherwise wait for a WAL
/// flush of its own, competing with the appends' commits; a lost announcement costs nothing
/// durable (the events are committed; listeners read them from the log).
pub(crate) async fn announce(pool: PgPool, mut inbox: mpsc::UnboundedReceiver<Appended>) {
    let mut conn = None;
    while let Some(first) = inbox.recv().await {
        let mut latest = std::collections::BTreeMap::new();
        latest.insert(first.game_id, first.last_seq);
        while let Ok(more) = inbox.try_recv() {
            let seq = latest.entry(more.game_id).or_insert(more.last_seq);
            *seq = (*seq).max(more.last_seq);
        }
        let lines: Vec<String> = latest
            .into_iter()
            .map(|(g, s)| format!("{g} {s}"))
            .collect();
        // NOTIFY payloads stay under 8000 bytes.
        for chunk in lines.chunks(100) {
            let payload = chunk.join("\n");
            // A broken connection is replaced and the chunk sent once more.
            for _ in 0..2 {
                if conn.is_none() {
                    conn = announcer(&pool).await;
                }
                let Some(c) = conn.as_mut() else { break };
                let result = sqlx::query("SELECT pg_notify($1, $2)")
                    .bind(CHANNEL)
                    .bind(&payload)
                    .execute(&mut *c)
                    .await;
                match result {
                    Ok(_) => break,
                    Err(e) => {
                        tracing::warn!(error = %e, "could not announce appends");
                        conn = None;
                    }
                }
            }
        }
    }
}
