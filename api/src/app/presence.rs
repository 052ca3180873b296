//! Who follows a game live: the event streams open, by game and audience, in this process and
//! in every other process on the same database. Presence is not recorded in the log (it is no
//! act): each process counts its own streams and records them in the store's presence table
//! every [`BEAT`] ([`Presence::beat`]), reading the others' at the same time. A stream opened or
//! closed on another process shows here within two beats; a process that stops beating (killed,
//! cut off from the database) is left out after [`EXPIRY`].

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use saboteur_storage::{EventStore, PresenceKey};

use saboteur_domain::{Audience, Seat};
use saboteur_storage::GameId;
use tokio::sync::Notify;

use crate::dto::{PresenceView, SeatPresence};

/// How often a process records its streams and reads the others'.
pub const BEAT: Duration = Duration::from_secs(2);
/// How long a process's last beat counts: after that, its streams are left out (it was
/// killed or lost the database), and the next beat of any process forgets them.
pub const EXPIRY: Duration = Duration::from_secs(10);

/// The event streams open in this process, by game and audience, and the other processes'.
#[derive(Default)]
pub(crate) struct Presence {
    open: Mutex<HashMap<GameId, HashMap<Option<Seat>, u32>>>,
    /// This process's name in the store's presence table.
    process: String,
    /// The other processes' streams as last read, and when (none: never).
    others: Mutex<(BTreeMap<PresenceKey, u32>, Option<Instant>)>,
    /// What this process last recorded in the store.
    recorded: Mutex<BTreeMap<PresenceKey, u32>>,
    /// Per game with open streams: what wakes them to check their token again.
    wakers: Mutex<HashMap<GameId, Arc<Notify>>>,
}

/// A stream counted as present until it is dropped.
pub(crate) struct Present {
    presence: Arc<Presence>,
    game: GameId,
    seat: Option<Seat>,
    /// Notified when the stream must check its token again (one was issued again).
    pub recheck: Arc<Notify>,
}

/// Milliseconds since the Unix epoch, by this machine's clock (beats are compared across
/// processes: their machines' clocks must agree to well within [`EXPIRY`]).
fn epoch_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl Presence {
    /// Presence for a process with a name of its own.
    pub fn new() -> Presence {
        Presence {
            process: uuid::Uuid::new_v4().to_string(),
            ..Presence::default()
        }
    }

    /// Records this process's streams in `store` (what changed since the last beat that
    /// succeeded) and reads the other processes'. A database away skips the beat; the others'
    /// streams read last keep counting until they are older than [`EXPIRY`].
    pub async fn beat(&self, store: &EventStore) -> saboteur_storage::Result<()> {
        let now = self.with(|open| {
            open.iter()
                .flat_map(|(game, seats)| seats.iter().map(|(seat, n)| ((game.clone(), *seat), *n)))
                .collect::<BTreeMap<_, _>>()
        });
        let changes: BTreeMap<PresenceKey, u32> = {
            let recorded = self.recorded.lock().unwrap_or_else(PoisonError::into_inner);
            let gone = recorded
                .keys()
                .filter(|k| !now.contains_key(*k))
                .map(|k| (k.clone(), 0));
            let changed = now
                .iter()
                .filter(|(k, n)| recorded.get(*k) != Some(*n))
                .map(|(k, n)| (k.clone(), *n));
            gone.chain(changed).collect()
        };
        let at = epoch_ms();
        let expiry = i64::try_from(EXPIRY.as_millis()).unwrap_or(i64::MAX);
        store
            .beat_presence(&self.process, &changes, at, at - 3 * expiry)
            .await?;
        *self.recorded.lock().unwrap_or_else(PoisonError::into_inner) = now;
        let others = store.others_presence(&self.process, at - expiry).await?;
        *self.others.lock().unwrap_or_else(PoisonError::into_inner) =
            (others, Some(Instant::now()));
        Ok(())
    }

    fn with<T>(&self, f: impl FnOnce(&mut HashMap<GameId, HashMap<Option<Seat>, u32>>) -> T) -> T {
        f(&mut self.open.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Counts a stream on `game` for `audience` until the returned guard is dropped.
    pub fn enter(self: &Arc<Self>, game: &GameId, audience: Audience) -> Present {
        let seat = match audience {
            Audience::Seat(s) => Some(s),
            _ => None,
        };
        self.with(|open| {
            *open
                .entry(game.clone())
                .or_default()
                .entry(seat)
                .or_default() += 1;
        });
        let recheck = self
            .wakers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(game.clone())
            .or_default()
            .clone();
        Present {
            presence: self.clone(),
            game: game.clone(),
            seat,
            recheck,
        }
    }

    /// Wakes every stream of `game` open in this process to check its token now: the seam
    /// calls this after a token is issued again, so the old token's streams end at once.
    pub fn recheck(&self, game: &GameId) {
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

    /// Who follows `game` (of `players` seats) live, through this process or another.
    pub fn of(&self, game: &GameId, players: u8) -> PresenceView {
        let others = self.others.lock().unwrap_or_else(PoisonError::into_inner);
        let elsewhere = |seat: Option<Seat>| match &*others {
            (counts, Some(read)) if read.elapsed() < EXPIRY => {
                counts.get(&(game.clone(), seat)).copied().unwrap_or(0)
            }
            _ => 0,
        };
        self.with(|open| {
            let counts = open.get(game);
            let count = |seat: Option<Seat>| {
                counts.and_then(|c| c.get(&seat)).copied().unwrap_or(0) + elsewhere(seat)
            };
            PresenceView {
                seats: (0..players)
                    .map(|s| SeatPresence {
                        seat: s,
                        connected: count(Some(Seat(s))) > 0,
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
