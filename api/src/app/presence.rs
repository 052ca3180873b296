//! Who follows a game live: the event streams open in this process, by game and audience.
//! Presence is not recorded in the log (it is no act); it is counted per process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use saboteur_domain::Audience;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;
use utoipa::ToSchema;

/// Whether one seat is connected.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeatPresence {
    /// The seat.
    pub seat: u8,
    /// Whether its player follows the game live (an open event stream).
    pub connected: bool,
}

/// Who follows a game live through this server.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PresenceView {
    /// Every seat, in order.
    pub seats: Vec<SeatPresence>,
    /// How many spectators (streams without a player's token).
    pub spectators: u32,
}

/// The event streams open in this process, by game and audience.
#[derive(Default)]
pub(crate) struct Presence {
    open: Mutex<HashMap<String, HashMap<Option<u8>, u32>>>,
    /// Per game with open streams: what wakes them to check their token again.
    wakers: Mutex<HashMap<String, Arc<Notify>>>,
}

/// A stream counted as present until it is dropped.
pub(crate) struct Present {
    presence: Arc<Presence>,
    game: String,
    seat: Option<u8>,
    /// Notified when the stream must check its token again (one was issued again).
    pub recheck: Arc<Notify>,
}

impl Presence {
    fn with<T>(&self, f: impl FnOnce(&mut HashMap<String, HashMap<Option<u8>, u32>>) -> T) -> T {
        f(&mut self.open.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Counts a stream on `game` for `audience` until the returned guard is dropped.
    pub fn enter(self: &Arc<Self>, game: &str, audience: Audience) -> Present {
        let seat = match audience {
            Audience::Seat(s) => Some(s.0),
            _ => None,
        };
        self.with(|open| {
            *open
                .entry(game.to_string())
                .or_default()
                .entry(seat)
                .or_default() += 1;
        });
        let recheck = self
            .wakers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(game.to_string())
            .or_default()
            .clone();
        Present {
            presence: self.clone(),
            game: game.to_string(),
            seat,
            recheck,
        }
    }

    /// Wakes every stream of `game` open in this process to check its token now: the seam
    /// calls this after a token is issued again, so the old token's streams end at once.
    pub fn recheck(&self, game: &str) {
        let waker = self
            .wakers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(game)
            .cloned();
        if let Some(w) = waker {
            w.notify_waiters();
        }
    }

    /// Who follows `game` (of `players` seats) live through this process.
    pub fn of(&self, game: &str, players: u8) -> PresenceView {
        self.with(|open| {
            let counts = open.get(game);
            let count = |seat: Option<u8>| counts.and_then(|c| c.get(&seat)).copied().unwrap_or(0);
            PresenceView {
                seats: (0..players)
                    .map(|s| SeatPresence {
                        seat: s,
                        connected: count(Some(s)) > 0,
                    })
                    .collect(),
                spectators: count(None),
            }
        })
    }
}

impl Drop for Present {
    fn drop(&mut self) {
        self.presence.with(|open| {
            if let Some(counts) = open.get_mut(&self.game) {
                if let Some(n) = counts.get_mut(&self.seat) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        counts.remove(&self.seat);
                    }
                }
                if counts.is_empty() {
                    open.remove(&self.game);
                    self.presence
                        .wakers
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .remove(&self.game);
                }
            }
        });
    }
}
