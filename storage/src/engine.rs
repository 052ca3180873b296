//! The store and the engine: domain events in and out, and a game's history loaded by folding
//! its events through the engine.

use saboteur_domain::{EVENT_SCHEMA_VERSION, Event, History};

use crate::ids::{GameId, Version};
use crate::{EventStore, NewEvent, Result, StoreError, StoredEvent};
use saboteur_verifier::seal::Sealer;

/// A domain event as the store keeps it.
#[allow(
    clippy::expect_used,
    reason = "an event is plain data: serialising it cannot fail"
)]
pub fn to_new_event(event: &Event) -> NewEvent {
    NewEvent {
        event_type: event.kind().to_string(),
        schema_version: i32::from(EVENT_SCHEMA_VERSION),
        payload: serde_json::to_value(event).expect("events serialise"),
        seat: event.actor(),
        sealed: None,
    }
}

/// Domain events as the store keeps them, numbered from `first`: each sealed for the chain by
/// `sealer`, the game's when its record version seals ([`Sealer::for_game`]).
pub fn to_new_events(events: &[Event], first: Version, sealer: Option<&Sealer>) -> Vec<NewEvent> {
    events
        .iter()
        .zip(first.stored()..)
        .map(|(e, seq)| {
            let mut new = to_new_event(e);
            new.sealed = sealer.map(|s| s.sealed(seq, e, &new.payload));
            new
        })
        .collect()
}

/// A stored event read back as a domain event, through its schema version.
pub fn decode(stored: &StoredEvent) -> Result<Event> {
    let version = u16::try_from(stored.schema_version)
        .map_err(|_| StoreError::Corrupt(format!("event {}: bad schema version", stored.seq)))?;
    Event::decode(version, &stored.payload)
        .map_err(|e| StoreError::Corrupt(format!("event {}: {e}", stored.seq)))
}

impl EventStore {
    /// A game's history: every stored event folded through the engine.
    pub async fn load_history(&self, game_id: &GameId) -> Result<History> {
        Ok(self.load_history_and_heads(game_id).await?.0)
    }

    /// A game's history, and the hash of each of its events in order: the chain's head at each
    /// version (the first at version 1).
    pub async fn load_history_and_heads(&self, game_id: &GameId) -> Result<(History, Vec<String>)> {
        let folded = self
            .fold_events(
                game_id,
                (None::<History>, Vec::new()),
                |(history, mut heads), stored| {
                    let event = decode(stored)?;
                    heads.push(stored.hash.clone());
                    let history = match history {
                        None => History::new(event).ok_or_else(|| {
                            StoreError::Corrupt("the log does not start with game_created".into())
                        })?,
                        Some(mut h) => {
                            h.push(event);
                            h
                        }
                    };
                    Ok::<_, StoreError>((Some(history), heads))
                },
            )
            .await??;
        match folded {
            (Some(history), heads) => Ok((history, heads)),
            (None, _) => Err(StoreError::NotFound),
        }
    }
}
