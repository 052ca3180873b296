//! The games held in memory: loaded on first use, bounded in bytes, told of appends by the
//! store's announcements so a table never answers from a log it knows to be behind.
//!
//! Requests on one game are serialised by its table's lock. A table's cost is estimated from
//! its log's length ([`cost`]); when the estimated total passes the budget, the tables nobody
//! holds are dropped, finished games first, then the longest idle (they are read again from
//! the store when next needed).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex as StdMutex, MutexGuard, PoisonError};
use std::time::Instant;

use saboteur_storage::ReadStore;
use tokio::sync::{Mutex, OwnedMutexGuard};

use crate::app::clock::TimeSource;
use crate::app::ids::{GameId, Version};
use crate::app::table::Table;
use crate::error::ApiError;

/// The default budget of the tables held in memory, in bytes (`--cache-bytes`).
pub const DEFAULT_CACHE_BYTES: usize = 256 * 1024 * 1024;

/// Estimated bytes a table costs besides its events (the state, the credentials, the maps).
const TABLE_BYTES: usize = 6 * 1024;
/// Estimated bytes each event of a table's log costs (the event and the history's indices):
/// measured at 195 once a game is read from the store (its lists shrunk to fit) and up to 370
/// while it grows by doubling (BENCHMARKS.md), and the chain's head held for it (33 bytes,
/// `app/heads.rs`).
const EVENT_BYTES: usize = 313;

/// The estimated memory a table holds (see BENCHMARKS.md for the measurement behind it).
pub fn cost(events: usize) -> usize {
    TABLE_BYTES + events * EVENT_BYTES
}

/// How long after a table found the store unreachable reads answer from memory without trying
/// it again (one read a second pays the pool's wait, [`saboteur_storage::ACQUIRE_TIMEOUT`]).
const STORE_RETRY_MS: u64 = 1000;

/// How long a read waits for a game's table while another request holds it before it reads
/// the game from the store instead ([`Tables::open_to_read`]): a write holds it for as long as
/// its commit takes, which a stalled synchronous standby makes as long as Patroni takes to
/// demote the primary; a spectator is not kept waiting behind it. The pool's wait: a write that
/// takes longer is stuck.
pub const READ_WAIT: std::time::Duration = saboteur_storage::ACQUIRE_TIMEOUT;

/// What [`Tables::open_as`] opened: the table, locked (and whether it is answered stale), or
/// nothing, a read having waited [`READ_WAIT`] for the lock (with the table's count of rewinds).
enum Opened {
    Held(Held, bool),
    Busy(u64),
}

/// A table in the cache, with what the cache knows of it without taking its lock.
struct Slot {
    table: Arc<Mutex<Table>>,
    /// The highest version the store announced for the game (`i64::MAX`: anything may have
    /// been missed).
    heard: AtomicI64,
    /// Its estimated cost, as of the last time its lock was released.
    bytes: AtomicUsize,
    /// When it was last used, in milliseconds since the cache was made.
    used: AtomicU64,
    /// The table's count of rewinds ([`Table::rewinds`]), as of the last time its lock was
    /// released: a copy read while it is held counts as many.
    rewinds: AtomicU64,
    finished: AtomicBool,
}

/// The tables held in memory.
pub(crate) struct Tables {
    store: ReadStore,
    /// The read-only store (a standby), where a game is read when the store cannot be reached.
    reads: Option<ReadStore>,
    /// When a table last found the store unreachable, in milliseconds since the cache was made
    /// (0: never): for [`STORE_RETRY_MS`] after it, reads answer from memory without trying it.
    unreachable_ms: AtomicU64,
    time: TimeSource,
    slots: StdMutex<HashMap<String, Arc<Slot>>>,
    budget: usize,
    total: AtomicUsize,
    epoch: Instant,
}

/// A table, locked for one request. Only the seam (`crate::app::seam`) writes through it.
pub(in crate::app) struct Held {
    table: OwnedMutexGuard<Table>,
    slot: Arc<Slot>,
    tables: Arc<Tables>,
}

impl std::ops::Deref for Held {
    type Target = Table;
    fn deref(&self) -> &Table {
        &self.table
    }
}

impl std::ops::DerefMut for Held {
    fn deref_mut(&mut self) -> &mut Table {
        &mut self.table
    }
}

/// A table as the application layer hands it out to be read: it derefs to a [`Table`] it
/// cannot change, and can only catch up with the store (the seat a token holds, the events
/// appended meanwhile). Writes go through the seam's acts. Usually the game's table, locked for
/// one request; when a write has held that lock for [`READ_WAIT`] (its database stalled), a
/// copy of the game read from the store for this read alone.
pub(crate) struct Reading(Read);

enum Read {
    /// The game's table, locked.
    Held(Held),
    /// The game as read from the store (or its standby) for this read.
    Loose(Box<Table>),
}

impl Reading {
    /// The game's table, when this read holds it (not a copy).
    pub(in crate::app) fn held(&mut self) -> Option<&mut Held> {
        match &mut self.0 {
            Read::Held(held) => Some(held),
            Read::Loose(_) => None,
        }
    }

    fn table(&mut self) -> &mut Table {
        match &mut self.0 {
            Read::Held(held) => held,
            Read::Loose(table) => table,
        }
    }

    /// Who is calling with `token` ([`Table::caller`]: a token issued through another process
    /// is looked up in the store).
    pub async fn caller(
        &mut self,
        store: &ReadStore,
        token: Option<&str>,
    ) -> Result<crate::app::auth::Caller, ApiError> {
        self.table().caller(store, token).await
    }

    /// Reads the events appended since the table's version ([`Table::follow`]).
    pub async fn follow(&mut self, store: &ReadStore) -> Result<(), ApiError> {
        self.table().follow(store).await
    }
}

impl std::ops::Deref for Reading {
    type Target = Table;
    fn deref(&self) -> &Table {
        match &self.0 {
            Read::Held(held) => held,
            Read::Loose(table) => table,
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let bytes = cost(self.table.history().log().len());
        let before = self.slot.bytes.swap(bytes, Ordering::Relaxed);
        self.tables.total.fetch_add(bytes, Ordering::Relaxed);
        self.tables.total.fetch_sub(before, Ordering::Relaxed);
        self.slot
            .finished
            .store(self.table.over(), Ordering::Relaxed);
        self.slot
            .used
            .store(self.tables.now_ms(), Ordering::Relaxed);
        self.slot
            .rewinds
            .store(self.table.rewinds(), Ordering::Relaxed);
    }
}

impl Tables {
    /// An empty cache of at most about `budget` bytes.
    pub fn new(
        store: ReadStore,
        reads: Option<ReadStore>,
        budget: usize,
        time: TimeSource,
    ) -> Tables {
        Tables {
            store,
            reads,
            unreachable_ms: AtomicU64::new(0),
            time,
            slots: StdMutex::new(HashMap::new()),
            budget,
            total: AtomicUsize::new(0),
            epoch: Instant::now(),
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn slots(&self) -> MutexGuard<'_, HashMap<String, Arc<Slot>>> {
        // The map is never left half-changed: a panic elsewhere cannot poison its meaning.
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many tables are held, and their estimated bytes.
    pub fn usage(&self) -> (usize, usize) {
        (self.slots().len(), self.total.load(Ordering::Relaxed))
    }

    /// The game's table, locked, loaded from the store on first use and brought up to the
    /// store when it may be behind (see [`Table::needs_check`]). For a write: when the store
    /// cannot be reached, 503.
    pub(in crate::app) async fn open(self: &Arc<Self>, game: &GameId) -> Result<Held, ApiError> {
        match self.open_as(game, false).await? {
            Opened::Held(held, _) => Ok(held),
            // (A write waits for the lock as long as it takes: never so.)
            Opened::Busy(_) => Err(ApiError::Unreachable(
                "the game is busy with a write its database has not answered".into(),
            )),
        }
    }

    /// [`Tables::open`] for a read: when the store cannot be reached (its primary demoted, a
    /// failover, the database gone), the table is answered as this process holds it, or read
    /// from the read-only store (a standby) when it holds none — nothing can be written
    /// meanwhile through this store, so what it holds is the game as far as this process can
    /// know. When a request has held the table for [`READ_WAIT`] (a write whose commit the
    /// database has not answered: a synchronous standby stalled), the game is read from the
    /// store for this read alone, or from the read-only store when the store cannot be reached.
    /// Whether it is answered so (stale, or a copy): the caller then writes nothing (no timeout
    /// recorded on the way).
    pub(in crate::app) async fn open_to_read(
        self: &Arc<Self>,
        game: &GameId,
    ) -> Result<(Reading, bool), ApiError> {
        match self.open_as(game, true).await? {
            Opened::Held(held, stale) => Ok((Reading(Read::Held(held)), stale)),
            Opened::Busy(rewinds) => {
                let (copy, _) = self.load(game, true).await?;
                let copy = copy.counting(rewinds);
                Ok((Reading(Read::Loose(Box::new(copy))), true))
            }
        }
    }

    /// The game read from the store; for a read (`read`), from the read-only store when the
    /// store cannot be reached (then marked to be checked against the store once it answers),
    /// and whether it was. A read skips the store while it was found away a moment ago.
    async fn load(&self, game: &GameId, read: bool) -> Result<(Table, bool), ApiError> {
        let loaded = if read && self.store_away() {
            Err(ApiError::Unreachable(
                "the database was away a moment ago".into(),
            ))
        } else {
            Table::load(&self.store, game, self.time.clone()).await
        };
        match (loaded, &self.reads) {
            (Ok(table), _) => Ok((table, false)),
            (Err(ApiError::Unreachable(why)), Some(reads)) if read => {
                self.note_store_away();
                let mut table = Table::load(reads, game, self.time.clone())
                    .await
                    .map_err(|e| match e {
                        ApiError::Unreachable(_) => ApiError::Unreachable(why),
                        other => other,
                    })?;
                table.check_soon();
                Ok((table, true))
            }
            (Err(e), _) => {
                if let ApiError::Unreachable(_) = e {
                    self.note_store_away();
                }
                Err(e)
            }
        }
    }

    /// For a read while the store cannot be reached: whether `table` may answer as it is — it
    /// holds the log as last read, or it was read again from the read-only store (an append's
    /// outcome was unknown, so what it held may not have been recorded).
    async fn as_held(&self, table: &mut Table) -> bool {
        if table.trusted() {
            return true;
        }
        match &self.reads {
            Some(reads) => table.read_from_standby(reads).await.is_ok(),
            None => false,
        }
    }

    /// Whether a read found the store unreachable within the last [`STORE_RETRY_MS`].
    pub fn store_away(&self) -> bool {
        let at = self.unreachable_ms.load(Ordering::Relaxed);
        at != 0 && self.now_ms().saturating_sub(at) < STORE_RETRY_MS
    }

    /// A read found the store unreachable: for [`STORE_RETRY_MS`], reads that can answer from
    /// memory do so without trying it.
    pub fn note_store_away(&self) {
        self.unreachable_ms
            .store(self.now_ms().max(1), Ordering::Relaxed);
    }

    async fn open_as(self: &Arc<Self>, game: &GameId, read: bool) -> Result<Opened, ApiError> {
        let id = game.as_str();
        let cached = self.slots().get(id).cloned();
        // Stale: read from the standby, the store away.
        let (slot, stale) = match cached {
            Some(slot) => (slot, false),
            None => {
                let (table, standby) = self.load(game, read).await?;
                (self.insert(id, table), standby)
            }
        };
        let arrived = Instant::now();
        let lock = slot.table.clone().lock_owned();
        let mut table = if read {
            match tokio::time::timeout(READ_WAIT, lock).await {
                Ok(table) => table,
                Err(_) => return Ok(Opened::Busy(slot.rewinds.load(Ordering::Relaxed))),
            }
        } else {
            lock.await
        };
        let heard = slot.heard.load(Ordering::Acquire);
        let held = |table, stale| {
            Ok(Opened::Held(
                Held {
                    table,
                    slot: slot.clone(),
                    tables: self.clone(),
                },
                stale,
            ))
        };
        if stale {
            return held(table, true);
        }
        if table.unreachable_since(arrived) || (read && self.store_away()) {
            if read && self.as_held(&mut table).await {
                return held(table, true);
            }
            return Err(ApiError::Unreachable(
                "the database could not be reached a moment ago; try again shortly".into(),
            ));
        }
        if table.needs_check(heard) {
            if let Err(e) = table.follow(&self.store).await {
                if let ApiError::Unreachable(_) = e {
                    table.note_unreachable();
                    self.note_store_away();
                    if read && self.as_held(&mut table).await {
                        return held(table, true);
                    }
                }
                return Err(e);
            }
            if heard == i64::MAX {
                let _ = slot.heard.compare_exchange(
                    i64::MAX,
                    table.version().stored(),
                    Ordering::AcqRel,
                    Ordering::Relaxed,
                );
            }
        }
        held(table, false)
    }

    /// The game's table as [`Tables::open`] gives it, only when it is held in memory: for a
    /// refusal that must not cost a read of a whole log (a per-client limit's).
    pub(in crate::app) async fn open_if_cached(
        self: &Arc<Self>,
        game: &GameId,
    ) -> Option<Result<Held, ApiError>> {
        if !self.slots().contains_key(game.as_str()) {
            return None;
        }
        Some(self.open(game).await)
    }

    /// Drops the tables nobody holds that nobody used for `idle` (lobbies nobody started, games
    /// abandoned): they are read again from the store if asked for.
    pub fn forget_idle(&self, idle: std::time::Duration) {
        let cutoff = self
            .now_ms()
            .saturating_sub(u64::try_from(idle.as_millis()).unwrap_or(u64::MAX));
        let mut slots = self.slots();
        let before = slots.len();
        slots.retain(|_, s| {
            let keep = Arc::strong_count(s) > 1
                || Arc::strong_count(&s.table) > 1
                || s.used.load(Ordering::Relaxed) >= cutoff;
            if !keep {
                self.total
                    .fetch_sub(s.bytes.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            keep
        });
        if slots.len() < before {
            slots.shrink_to_fit();
        }
    }

    /// Whether a request holds the game's table now, or waits for it.
    pub fn busy(&self, id: &GameId) -> bool {
        self.slots()
            .get(id.as_str())
            .is_some_and(|s| Arc::strong_count(&s.table) > 1)
    }

    /// Keeps a loaded table (unless another request cached the game first: then that one),
    /// making room within the budget.
    fn insert(&self, id: &str, table: Table) -> Arc<Slot> {
        let bytes = cost(table.history().log().len());
        let (finished, rewinds) = (table.over(), table.rewinds());
        let mut slots = self.slots();
        if let Some(existing) = slots.get(id) {
            return existing.clone();
        }
        if self.total.load(Ordering::Relaxed) + bytes > self.budget {
            self.evict(&mut slots, bytes);
        }
        let slot = Arc::new(Slot {
            heard: AtomicI64::new(table.version().stored()),
            table: Arc::new(Mutex::new(table)),
            bytes: AtomicUsize::new(bytes),
            used: AtomicU64::new(self.now_ms()),
            rewinds: AtomicU64::new(rewinds),
            finished: AtomicBool::new(finished),
        });
        self.total.fetch_add(bytes, Ordering::Relaxed);
        slots.insert(id.to_string(), slot.clone());
        slot
    }

    /// Drops tables nobody holds until `room` more bytes fit in nine tenths of the budget:
    /// finished games first, then the longest idle.
    fn evict(&self, slots: &mut HashMap<String, Arc<Slot>>, room: usize) {
        let target = (self.budget / 10 * 9).saturating_sub(room);
        let mut idle: Vec<(bool, u64, String)> = slots
            .iter()
            .filter(|(_, s)| Arc::strong_count(s) == 1 && Arc::strong_count(&s.table) == 1)
            .map(|(id, s)| {
                (
                    !s.finished.load(Ordering::Relaxed),
                    s.used.load(Ordering::Relaxed),
                    id.clone(),
                )
            })
            .collect();
        idle.sort_unstable();
        for (_, _, id) in idle {
            if self.total.load(Ordering::Relaxed) <= target {
                break;
            }
            if let Some(slot) = slots.remove(&id) {
                self.total
                    .fetch_sub(slot.bytes.load(Ordering::Relaxed), Ordering::Relaxed);
            }
        }
    }

    /// The store announced that a game reached `version` (through any process).
    pub fn heard(&self, id: &GameId, version: Version) {
        if let Some(slot) = self.slots().get(id.as_str()) {
            slot.heard.fetch_max(version.stored(), Ordering::AcqRel);
        }
    }

    /// Announcements of `id` may have been lost: its table checks the store before its next
    /// answer.
    pub fn doubt(&self, id: &str) {
        if let Some(slot) = self.slots().get(id) {
            slot.heard.store(i64::MAX, Ordering::Release);
        }
    }

    /// Announcements may have been lost: every table checks the store before its next answer.
    pub fn heard_nothing_for_sure(&self) {
        for slot in self.slots().values() {
            slot.heard.store(i64::MAX, Ordering::Release);
        }
    }
}
