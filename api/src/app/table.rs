//! A game held in memory (a [`Table`]) and its write: [`Table::commit`], which the seam
//! (`crate::app::seam`) calls for every act that appends; nothing else writes a table.
//!
//! A table is the game's log folded through the engine, its credentials and the store's view
//! of it (version, last hash, status). It is only ever changed by events the store accepted:
//!
//! - **commit**: the events are folded into a copy of the state first (to know whether a bot
//!   is due next), then appended at the table's version. Accepted: the copy becomes the
//!   table. Refused because another writer was first (a conflict): the table catches up from
//!   the log and the caller gets 409. Outcome unknown (the database went away mid-append): the
//!   table goes back to the version it knew recorded and checks the store before its next
//!   answer; while no database answers, a read is answered from it (see `table/outage.rs`).
//! - **follow**: before a table answers, it reads the events it has not seen yet — announced by
//!   the store (another process appended), or because it has not checked the store for
//!   [`RECHECK_AFTER`] — so no answer is staler than that bound.

use std::time::{Duration, Instant};

use saboteur_domain::{Event, History, Phase, Seat};
use saboteur_storage::{
    Append, AppendOutcome, Credential, EventStore, GameRecord, GameStatus, ReadStore, StoreError,
    TokenSwap,
};
use saboteur_verifier::seal::Sealer;

use crate::app::clock::TimeSource;
use crate::app::heads::Heads;
use crate::app::ids::{GameId, Version};
use crate::error::{ApiError, Conflict};

mod outage;
mod rewinds;
mod seats;

/// How long a table may answer without checking the store for appends it was not told of.
/// Announcements (PostgreSQL NOTIFY, or the in-process broadcast) normally tell it at once;
/// this bounds the staleness when an announcement is lost, or when another process shares an
/// SQLite file.
pub const RECHECK_AFTER: Duration = Duration::from_secs(1);

/// A game held in memory.
pub(crate) struct Table {
    /// The game's id.
    id: GameId,
    /// The game's row as last read or written.
    record: GameRecord,
    /// The log folded through the engine.
    history: History,
    /// The chain's head at each version it read or appended.
    heads: Heads,
    /// What seals its events for the chain (a game of record version 6 on).
    sealer: Option<Sealer>,
    /// Who may act for which seat.
    credentials: Vec<Credential>,
    /// When the table was last known to match the store; `None`: it must be read again.
    checked: Option<Instant>,
    /// When a request on this table last found the database unreachable.
    unreachable: Option<Instant>,
    /// The server's time: recorded in clocked games, and what deadlines are checked against.
    time: TimeSource,
    /// How many times the table was found ahead of the store and read again (events read
    /// before a database failover lost them): a stream that showed events of an earlier count
    /// may have shown some the game no longer has.
    rewinds: u64,
    /// The latest time signed for the game outside its events (a refusal, a commitment), as
    /// the store keeps it: nothing later is stamped or signed earlier.
    floor_ms: u64,
    /// Whose turn the bots' thinking takes ([`crate::app::thinkers`]): the game's maker, read
    /// from the store the first time a bot thinks.
    share: Option<String>,
    /// A seat's command the store could not record, at a version, and when (a 503 signed
    /// from memory): the seat is not timed out before its whole time again from then.
    outage: Option<Outage>,
}

/// When a seat's command could not be recorded, and at which version ([`Table::note_outage`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Outage {
    /// The last version the table knew recorded.
    version: Version,
    /// When the refusal was signed, in ms since the epoch.
    at: u64,
}

/// The range of sequence numbers a commit wrote (or, for a retried command id, had written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Batch {
    /// Its first sequence number.
    pub first: Version,
    /// Its last: the game's version after it.
    pub last: Version,
}

/// What a commit did.
pub(crate) enum Committed {
    /// The events are in the log and folded into the table.
    New(Batch),
    /// The command id had been used: nothing was written; this is the batch it wrote then.
    Retried(Batch),
}

impl Table {
    /// Reads a game back from the store.
    pub(in crate::app) async fn load(
        store: &ReadStore,
        id: &GameId,
        time: TimeSource,
    ) -> Result<Table, ApiError> {
        let record = store.get_game(id).await?;
        let (mut history, hashes) = store.load_history_and_heads(id).await?;
        // Read event by event, the lists grew by doubling: give the room back.
        history.shrink_to_fit();
        let credentials = store.credentials(id).await?;
        let floor_ms = u64::try_from(store.time_floor(id).await?).unwrap_or(0);
        let sealer = history
            .log()
            .first()
            .and_then(|created| Sealer::for_game(id.as_str(), created));
        let mut table = Table {
            id: id.clone(),
            record,
            history,
            heads: Heads::of(&hashes),
            sealer,
            credentials,
            checked: Some(Instant::now()),
            unreachable: None,
            time,
            rewinds: 0,
            floor_ms,
            share: None,
            outage: None,
        };
        // The row and the log are read apart: take the row's version and last hash from the log.
        if table.record.version != table.version() {
            // (Asked while the row's version differs: `head_at` reads it from the log.)
            table.record.last_hash = table.head_at(store, table.version()).await?;
            table.record.version = table.version();
        }
        Ok(table)
    }

    /// What seals the game's events for the chain: `None` before record version 6.
    pub(crate) fn sealer(&self) -> Option<&Sealer> {
        self.sealer.as_ref()
    }

    /// Reads the table again whole from the store, keeping its count of rewinds.
    async fn load_again(&mut self, store: &ReadStore) -> Result<(), ApiError> {
        let fresh = Table::load(store, &self.id, self.time.clone()).await?;
        let (rewinds, outage) = (self.rewinds, self.outage.take());
        *self = fresh;
        (self.rewinds, self.outage) = (rewinds, outage);
        Ok(())
    }

    /// The share the game's bots think in ([`crate::app::thinkers`]): the client that made
    /// the game, or the game itself when no maker was recorded (a rematch), or the store cannot
    /// say now (then it is asked again next time).
    pub(in crate::app) async fn share(&mut self, store: &ReadStore) -> String {
        if let Some(share) = &self.share {
            return share.clone();
        }
        let (share, known) = Table::share_of(store, &self.id).await;
        if known {
            self.share = Some(share.clone());
        }
        share
    }

    /// [`Table::share`] of game `id` read from the store, and whether the store said it (when
    /// it cannot say now, the game's own share, to be asked again next time).
    pub(in crate::app) async fn share_of(store: &ReadStore, id: &GameId) -> (String, bool) {
        match store.game_creator(id).await {
            Ok(maker) => (maker.unwrap_or_else(|| format!("game {id}")), true),
            Err(e) => {
                tracing::debug!(game = %id, "the game's maker not read: {e}");
                (format!("game {id}"), false)
            }
        }
    }

    /// The game's version: how many events its log holds.
    pub fn version(&self) -> Version {
        Version::of(self.history.version())
    }

    /// The version after the last event that changes what a seat decides on: an `If-Match`
    /// naming any version from this one to [`Table::version`] still holds.
    pub fn decision_version(&self) -> Version {
        Version::of(self.history.decision_version())
    }

    /// The log folded through the engine.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The game's row as last read or written.
    pub fn record(&self) -> &GameRecord {
        &self.record
    }

    /// Who holds which seat.
    pub fn credentials(&self) -> &[Credential] {
        &self.credentials
    }

    /// Now, for this game: the server's time, never earlier than a time already signed for the
    /// game ([`Table::signed_now_ms`] of a refusal or a commitment, kept in the store) nor than a
    /// time its record holds. What events are stamped with and receipts signed at, so a clock
    /// corrected backwards never makes a signed time contradict a later one.
    pub fn now_ms(&self) -> u64 {
        self.history
            .recorded_now(self.time.now_ms())
            .max(self.floor_ms)
    }

    /// [`Table::now_ms`] for a time signed outside the game's events (a refusal, a
    /// commitment): kept in the store first as the game's floor, so that no process, restarted
    /// or not, stamps a later event earlier.
    pub(in crate::app) async fn signed_now_ms(
        &mut self,
        store: &EventStore,
    ) -> Result<u64, ApiError> {
        let now = self.now_ms();
        let kept = store
            .raise_time_floor(&self.id, i64::try_from(now).unwrap_or(i64::MAX))
            .await?;
        self.floor_ms = self.floor_ms.max(u64::try_from(kept).unwrap_or(0));
        Ok(now.max(self.floor_ms))
    }

    /// The hash of the event at `version`: the head of the game's chain there, held for each
    /// event the table read or appended (so a replay is signed with no database); one it does
    /// not hold (a malformed stored hash) is read from the store.
    pub async fn head_at(&self, store: &ReadStore, version: Version) -> Result<String, ApiError> {
        if version == self.record.version {
            return Ok(self.record.last_hash.clone());
        }
        if let Some(held) = self.heads.get(version) {
            return Ok(held);
        }
        store
            .events_after(&self.id, Version::of(version.get().saturating_sub(1)), 1)
            .await?
            .into_iter()
            .find(|e| e.seq == version)
            .map(|e| e.hash)
            // The store is behind this table (a commit another session saw, lost in a
            // failover; a demoted primary's log read through another node): not an error of
            // the request; the table is read again before long (`follow`).
            .ok_or_else(|| {
                ApiError::Unavailable(format!(
                    "the game's log does not hold version {version} now; try again shortly"
                ))
            })
    }

    /// The game's id.
    pub fn id(&self) -> &GameId {
        &self.id
    }

    /// How many seats the game has.
    pub fn players(&self) -> u8 {
        self.history.game().players()
    }

    /// Whether the game is over.
    pub fn over(&self) -> bool {
        *self.history.game().phase() == Phase::GameOver
    }

    /// Whether nothing more will happen in the game: it is over, or it was cancelled in its
    /// lobby. Its event stream ends after its last event.
    pub fn ended(&self) -> bool {
        matches!(
            self.history.game().phase(),
            Phase::GameOver | Phase::Cancelled
        )
    }

    /// The bot playing `seat`, if a bot holds it: seated as a bot, or handed to one during play.
    pub fn bot(&self, seat: Seat) -> Option<saboteur_domain::BotLevel> {
        self.credentials
            .iter()
            .find(|c| c.seat == Some(seat))
            .and_then(saboteur_storage::Credential::bot_level)
            .or_else(|| self.history.handed_to(seat))
    }

    /// A bot seat that has still to vote on the pending undo request, if any.
    pub fn bot_voter(&self) -> Option<Seat> {
        let request = self.history.pending_undo()?;
        (0..self.players()).map(Seat).find(|s| {
            *s != request.seat && !request.approvals.contains(s) && self.bot(*s).is_some()
        })
    }

    /// Whether the game waits for a bot: its vote on a pending undo request, or its turn.
    pub fn bot_due(&self) -> bool {
        match self.history.pending_undo() {
            Some(_) => self.bot_voter().is_some(),
            None => self
                .history
                .game()
                .awaited()
                .is_some_and(|s| self.bot(s).is_some()),
        }
    }

    /// Whether the table must be read again before it answers: told so by the store, not
    /// checked for [`RECHECK_AFTER`], or a lobby (its seats, and the lobby version a keyed
    /// seat's act is signed at, change without an event or an announcement, through any
    /// process).
    pub fn needs_check(&self, heard: i64) -> bool {
        match self.checked {
            None => true,
            Some(_) if self.record.status == GameStatus::Lobby => true,
            Some(at) => heard > self.version().stored() || at.elapsed() >= RECHECK_AFTER,
        }
    }

    /// Brings the table up to the store: reloads it when an append's outcome was unknown, or
    /// folds in the events appended since its version (by another process).
    pub(in crate::app) async fn follow(&mut self, store: &ReadStore) -> Result<(), ApiError> {
        if self.checked.is_none() {
            return self.load_again(store).await;
        }
        let record = store.get_game(&self.id).await?;
        if record.version < self.version() {
            // The table holds events the store does not: read from a primary that died before
            // its standby had them (PostgreSQL shows a commit to other sessions before the
            // synchronous standby confirms it; never acknowledged, it is lost in the failover).
            // The store's log is the game: read it again whole.
            let why = format!(
                "the store is at version {} behind this table's {}: a failover lost writes \
                 never acknowledged",
                record.version,
                self.version()
            );
            return self.rewind(store, &why).await;
        }
        if record.version == self.version() && record.last_hash != self.record.last_hash {
            // As many events as this table holds, but not the same ones: writes lost in a
            // failover and others made in their place. The store's log is the game.
            let why = format!("the store's event {} is not this table's", record.version);
            return self.rewind(store, &why).await;
        }
        if record.version > self.version() {
            let mut after = self.version();
            let mut head = self.record.last_hash.clone();
            // Up to the row's version exactly: events appended since the row was read are
            // folded in by the next follow, with the row that counts them.
            while after < record.version {
                let want =
                    u32::try_from((record.version.get() - after.get()).min(1000)).unwrap_or(1000);
                let page = store.events_after(&self.id, after, want).await?;
                let Some(last) = page.last() else { break };
                after = last.seq;
                for stored in page.iter().filter(|e| e.seq <= record.version) {
                    if stored.prev_hash != head {
                        // The store's log is not the one this table holds up to here (writes
                        // lost in a failover and others made at the same versions, or a log
                        // changed beneath it): never build on it; read the game again whole.
                        let why = format!(
                            "event {} does not follow this table's version {}",
                            stored.seq,
                            self.version()
                        );
                        return self.rewind(store, &why).await;
                    }
                    self.history.push(saboteur_storage::decode(stored)?);
                    self.heads.set(stored.seq, &stored.hash);
                    head.clone_from(&stored.hash);
                }
            }
            if self.version() != record.version {
                // The log holds fewer events than its row counts: read it all again next time.
                self.checked = None;
                return Err(ApiError::Internal(format!(
                    "game {}: the row counts {} events, the log gave {}",
                    self.id,
                    record.version,
                    self.version()
                )));
            }
        }
        if record.status == GameStatus::Lobby || record.version != self.record.version {
            // Seats change in the lobby without events; a started game's seats are fixed.
            self.credentials = store.credentials(&self.id).await?;
        }
        self.record = record;
        self.checked = Some(Instant::now());
        Ok(())
    }

    /// Notes that the database could not be reached by a request on this table now.
    pub(in crate::app) fn note_unreachable(&mut self) {
        self.unreachable = Some(Instant::now());
    }

    /// Whether a request on this table found the database unreachable since `t`. Requests on
    /// one game wait for each other (the table's lock): one that waited behind a request stuck
    /// on the pool answers 503 at once rather than wait on the pool itself (twice the bound a
    /// client is promised); one that arrives later tries the database again.
    pub fn unreachable_since(&self, t: Instant) -> bool {
        self.unreachable.is_some_and(|at| at >= t)
    }

    /// Reads the game again from `reads` (the read-only store, a standby) while the store
    /// cannot be reached and the table cannot be trusted (an append's outcome unknown): the
    /// log as the standby holds it, checked against the store as soon as it answers.
    pub(in crate::app) async fn read_from_standby(
        &mut self,
        reads: &ReadStore,
    ) -> Result<(), ApiError> {
        self.load_again(reads).await?;
        self.check_soon();
        Ok(())
    }

    /// Whether the table holds the log as the store had it when it was last read (false after
    /// an append whose outcome is unknown, or a lost race, until it is read again): what a read
    /// may answer from memory while the store cannot be reached.
    pub fn trusted(&self) -> bool {
        self.checked.is_some()
    }

    /// Marks the table to be checked against the store before its next answer (read from a
    /// standby, which may be behind), keeping what it holds.
    pub(in crate::app) fn check_soon(&mut self) {
        self.checked = Instant::now().checked_sub(RECHECK_AFTER).or(self.checked);
    }

    /// Marks the table to be read again from the store before its next answer.
    pub(in crate::app) fn distrust(&mut self) {
        self.checked = None;
    }

    /// The write: appends `events` at the table's version (with an optional command id that
    /// makes a retry return the first outcome, and a seat's new token swapped in the same
    /// transaction) and folds them in. Only the seam calls it.
    ///
    /// The time is stamped into a clocked game's events first, then they are folded (the
    /// game's status, whether a bot is due next and the deadline are written with them), then
    /// appended. Anything but an accepted append leaves a table that holds events the log may
    /// not: it is read again from the store — at once after a lost race (409) or a retried
    /// command id, before its next answer after an unknown outcome (503).
    pub(in crate::app) async fn commit(
        &mut self,
        store: &EventStore,
        mut events: Vec<Event>,
        command_id: Option<String>,
        token: Option<TokenSwap>,
    ) -> Result<Committed, ApiError> {
        let now = self.now_ms();
        if matches!(
            events.first(),
            Some(Event::CommandAccepted { bot: None, .. })
        ) && self.timeout_due(now)
        {
            // The clock ran out while the command was decided: the timeout comes first.
            return Err(ApiError::Conflict(
                Conflict::ClockRanOut,
                "the clock ran out before the decision was recorded: it is made for the seat"
                    .into(),
            ));
        }
        self.history.stamp(&mut events, now);
        let expected = self.version();
        let was_lobby = self.record.status == GameStatus::Lobby;
        let new_events =
            saboteur_storage::to_new_events(&events, expected.plus(1), self.sealer.as_ref());
        for e in events {
            self.history.push(e);
        }
        let status = if self.over() {
            Some(GameStatus::Finished)
        } else if *self.history.game().phase() == Phase::Cancelled {
            Some(GameStatus::Cancelled)
        } else if was_lobby {
            Some(GameStatus::Active)
        } else {
            None
        };
        let bot_awaited = self.bot_due();
        // A bot seated at the table is never timed out: it is played, not waited for.
        let deadline = self
            .history
            .deadline()
            .filter(|_| !bot_awaited)
            .and_then(|d| i64::try_from(d.at).ok());
        let outcome = store
            .append(Append {
                game_id: self.id.clone(),
                expected_version: expected,
                prev_hash: Some(self.record.last_hash.clone()),
                events: new_events,
                command_id,
                status,
                bot_awaited,
                deadline,
                token: token.clone(),
            })
            .await;
        match outcome {
            Ok(AppendOutcome::Appended {
                first_seq,
                last_seq,
                last_hash,
                hashes,
                at,
            }) => {
                for (n, hash) in hashes.iter().enumerate() {
                    self.heads.set(first_seq.plus(n), hash);
                }
                self.record.version = last_seq;
                self.record.last_hash = last_hash;
                self.record.updated_at = at;
                if let Some(s) = status {
                    self.record.status = s;
                }
                if let Some(swap) = &token {
                    for c in &mut self.credentials {
                        if c.seat == Some(swap.seat) {
                            c.token_hash = Some(swap.token_hash.clone());
                        }
                    }
                }
                if self.over() {
                    self.record.seed = Some(self.history.game().seed().0.to_vec());
                }
                if status == Some(GameStatus::Finished) {
                    // Written once per game; if this fails, the bots' sweep logs it later.
                    let now = i64::try_from(self.now_ms()).unwrap_or(i64::MAX);
                    if let Err(e) = store.log_finished_game(&self.id, now).await {
                        tracing::warn!(game = %self.id, "the finished game is not logged yet: {e}");
                    }
                }
                self.checked = Some(Instant::now());
                Ok(Committed::New(Batch {
                    first: first_seq,
                    last: last_seq,
                }))
            }
            Ok(AppendOutcome::Duplicate {
                first_seq,
                last_seq,
            }) => {
                // Another request with the same command id was recorded first (perhaps through
                // another process).
                self.reload(&store.reader()).await;
                Ok(Committed::Retried(Batch {
                    first: first_seq,
                    last: last_seq,
                }))
            }
            Err(e @ StoreError::Conflict { .. }) => {
                self.reload(&store.reader()).await;
                Err(e.into())
            }
            Err(e) => {
                self.unknown_outcome(expected);
                Err(e.into())
            }
        }
    }

    /// Clears the store's flag that a bot is due in this game, if the game is still at the
    /// table's version there: the sweep found none due in the game as the store has it (the
    /// flag outlived its reason). Whether it did.
    pub(in crate::app) async fn clear_bot_flag(
        &self,
        store: &EventStore,
    ) -> Result<bool, ApiError> {
        Ok(store.clear_bot_awaited(&self.id, self.version()).await?)
    }

    /// Reads the table again from the store now, or before its next answer if that fails.
    pub(in crate::app) async fn reload(&mut self, store: &ReadStore) {
        if self.load_again(store).await.is_err() {
            self.distrust();
        }
    }
}
