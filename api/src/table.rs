//! The application layer: a game held in memory (a [`Table`]) and the one command cycle every
//! writer goes through — load, decide, persist, fold, publish — in [`Table::commit`].
//!
//! A table is the game's log folded through the engine, its credentials and the store's view
//! of it (version, last hash, status). It is only ever changed by events the store accepted:
//!
//! - **commit**: the events are folded into a copy of the state first (to know whether a bot
//!   is due next), then appended at the table's version. Accepted: the copy becomes the
//!   table. Refused because another writer was first (a conflict): the table catches up from
//!   the log and the caller gets 409. Outcome unknown (the database went away mid-append): the
//!   table is marked for a reload, and nothing is assumed; the next use reads the log again.
//! - **follow**: before a table answers, it reads the events it has not seen yet — announced by
//!   the store (another process appended), or because it has not checked the store for
//!   [`RECHECK_AFTER`] — so no answer is staler than that bound.

use std::time::{Duration, Instant};

use saboteur_domain::{Event, History, Phase, Seat};
use saboteur_storage::{
    Append, AppendOutcome, Credential, EventStore, GameRecord, GameStatus, StoreError, TokenSwap,
};

use crate::clock::TimeSource;

use crate::auth::{Caller, bearer, identify};
use crate::error::ApiError;

/// How long a table may answer without checking the store for appends it was not told of.
/// Announcements (PostgreSQL NOTIFY, or the in-process broadcast) normally tell it at once;
/// this bounds the staleness when an announcement is lost, or when another process shares an
/// SQLite file.
pub const RECHECK_AFTER: Duration = Duration::from_secs(1);

/// A game held in memory.
pub(crate) struct Table {
    /// The game's row as last read or written.
    pub record: GameRecord,
    /// The log folded through the engine.
    pub history: History,
    /// Who may act for which seat.
    pub credentials: Vec<Credential>,
    /// When the table was last known to match the store; `None`: it must be read again.
    checked: Option<Instant>,
    /// The server's time: recorded in clocked games, and what deadlines are checked against.
    pub time: TimeSource,
}

/// The range of sequence numbers a commit wrote (or, for a retried command id, had written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Batch {
    /// Its first sequence number.
    pub first: i64,
    /// Its last: the game's version after it.
    pub last: i64,
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
    pub async fn load(store: &EventStore, id: &str, time: TimeSource) -> Result<Table, ApiError> {
        let record = store.get_game(id).await?;
        let mut history = store.load_history(id).await?;
        // Read event by event, the lists grew by doubling: give the room back.
        history.shrink_to_fit();
        let credentials = store.credentials(id).await?;
        let mut table = Table {
            record,
            history,
            credentials,
            checked: Some(Instant::now()),
            time,
        };
        // The row and the log are read apart: take the row's version and last hash from the log.
        if table.record.version != table.version() {
            // (Asked while the row's version differs: `head_at` reads it from the log.)
            table.record.last_hash = table.head_at(store, table.version()).await?;
            table.record.version = table.version();
        }
        Ok(table)
    }

    /// The game's version: how many events its log holds.
    pub fn version(&self) -> i64 {
        self.history.version() as i64
    }

    /// The hash of the event at `version`: the head of the game's chain there. The current
    /// version's is held; an earlier one's is read from the store.
    pub async fn head_at(&self, store: &EventStore, version: i64) -> Result<String, ApiError> {
        if version == self.record.version {
            return Ok(self.record.last_hash.clone());
        }
        store
            .events_after(self.id(), version - 1, 1)
            .await?
            .into_iter()
            .find(|e| e.seq == version)
            .map(|e| e.hash)
            .ok_or_else(|| ApiError::Internal(format!("the log has no event {version}")))
    }

    /// The game's id.
    pub fn id(&self) -> &str {
        &self.record.id
    }

    /// How many seats the game has.
    pub fn players(&self) -> u8 {
        self.history.game().players()
    }

    /// Whether the game is over.
    pub fn over(&self) -> bool {
        *self.history.game().phase() == Phase::GameOver
    }

    /// The bot playing `seat`, if a bot holds it: seated as a bot, or handed to one during play.
    pub fn bot(&self, seat: Seat) -> Option<saboteur_domain::BotLevel> {
        self.credentials
            .iter()
            .find(|c| c.seat == Some(i32::from(seat.0)))
            .and_then(crate::bot_level)
            .or_else(|| self.history.handed_to(seat))
    }

    /// The awaited seat ran out of time: records its timeout (and the bot's decision for it)
    /// if the deadline has passed. Whichever process gets there first records it; the others
    /// lose the race at the store and read it. Whether a timeout was recorded.
    pub async fn enforce_clock(&mut self, store: &EventStore) -> Result<bool, ApiError> {
        let now = self.time.now_ms();
        if !self.history.overdue(now) {
            return Ok(false);
        }
        let events = self
            .history
            .time_out(now)
            .map_err(|e| ApiError::Internal(format!("a timeout could not be decided: {e}")))?;
        self.commit(store, events, None).await?;
        Ok(true)
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

    /// Whether the table must be read again before it answers: told so by the store, or not
    /// checked for [`RECHECK_AFTER`].
    pub fn needs_check(&self, heard: i64) -> bool {
        match self.checked {
            None => true,
            Some(at) => heard > self.version() || at.elapsed() >= RECHECK_AFTER,
        }
    }

    /// Brings the table up to the store: reloads it when an append's outcome was unknown, or
    /// folds in the events appended since its version (by another process).
    pub async fn follow(&mut self, store: &EventStore) -> Result<(), ApiError> {
        if self.checked.is_none() {
            *self = Table::load(store, &self.record.id, self.time.clone()).await?;
            return Ok(());
        }
        let record = store.get_game(self.id()).await?;
        if record.version > self.version() {
            let mut after = self.version();
            while after < record.version {
                let page = store.events_after(self.id(), after, 1000).await?;
                let Some(last) = page.last() else { break };
                after = last.seq;
                for stored in &page {
                    self.history.push(saboteur_storage::decode(stored)?);
                }
            }
            if self.version() != record.version {
                // The row moved on while the log was read: read it all again next time.
                self.checked = None;
                return Err(ApiError::Unavailable(
                    "the game moved on while it was read; try again".into(),
                ));
            }
        }
        if record.status == GameStatus::Lobby || record.version != self.record.version {
            // Seats change in the lobby without events; a started game's seats are fixed.
            self.credentials = store.credentials(self.id()).await?;
        }
        self.record = record;
        self.checked = Some(Instant::now());
        Ok(())
    }

    /// Marks the table to be read again from the store before its next answer.
    pub fn distrust(&mut self) {
        self.checked = None;
    }

    /// The command cycle's write: appends `events` at the table's version (with an optional
    /// command id that makes a retry return the first outcome) and folds them in.
    ///
    /// The events are folded first (the game's status and whether a bot is due next are
    /// written with them), then appended. Anything but an accepted append leaves a table that
    /// holds events the log may not: it is read again from the store — at once after a lost
    /// race (409) or a retried command id, before its next answer after an unknown outcome
    /// (503).
    pub async fn commit(
        &mut self,
        store: &EventStore,
        events: Vec<Event>,
        command_id: Option<String>,
    ) -> Result<Committed, ApiError> {
        self.commit_with(store, events, command_id, None).await
    }

    /// [`Table::commit`], swapping a seat's token in the same transaction.
    pub async fn commit_with(
        &mut self,
        store: &EventStore,
        mut events: Vec<Event>,
        command_id: Option<String>,
        token: Option<TokenSwap>,
    ) -> Result<Committed, ApiError> {
        let now = self.time.now_ms();
        if matches!(events.first(), Some(Event::CommandAccepted { .. }))
            && self.history.overdue(now)
        {
            // The clock ran out while the command was decided: the timeout comes first.
            return Err(ApiError::Conflict(
                "the clock ran out before the decision was recorded: it is made for the seat"
                    .into(),
            ));
        }
        self.history.stamp(&mut events, now);
        let expected_version = self.version();
        let was_lobby = self.record.status == GameStatus::Lobby;
        let new_events = events.iter().map(saboteur_storage::to_new_event).collect();
        for e in events {
            self.history.push(e);
        }
        let status = if self.over() {
            Some(GameStatus::Finished)
        } else if was_lobby {
            Some(GameStatus::Active)
        } else {
            None
        };
        let bot_awaited = self.bot_due();
        let deadline = self
            .history
            .deadline()
            .and_then(|d| i64::try_from(d.at).ok());
        let outcome = store
            .append(Append {
                game_id: self.record.id.clone(),
                expected_version,
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
            }) => {
                self.record.version = last_seq;
                self.record.last_hash = last_hash;
                if let Some(s) = status {
                    self.record.status = s;
                }
                if let Some(swap) = &token {
                    for c in &mut self.credentials {
                        if c.seat == Some(swap.seat) {
                            c.token_hash.clone_from(&swap.token_hash);
                        }
                    }
                }
                if self.over() {
                    self.record.seed = Some(self.history.game().seed().0.to_vec());
                }
                if status == Some(GameStatus::Finished) {
                    // Written once per game; if this fails, the bots' sweep logs it later.
                    if let Err(e) = store.log_finished_game(self.id()).await {
                        tracing::warn!(
                            game = self.id(),
                            "the finished game is not logged yet: {e}"
                        );
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
                self.reload(store).await;
                Ok(Committed::Retried(Batch {
                    first: first_seq,
                    last: last_seq,
                }))
            }
            Err(e @ StoreError::Conflict { .. }) => {
                self.reload(store).await;
                Err(e.into())
            }
            Err(e) => {
                // The append may or may not have been recorded: assume nothing.
                self.distrust();
                Err(e.into())
            }
        }
    }

    /// Reads the table again from the store now, or before its next answer if that fails.
    async fn reload(&mut self, store: &EventStore) {
        match Table::load(store, &self.record.id, self.time.clone()).await {
            Ok(table) => *self = table,
            Err(_) => self.distrust(),
        }
    }
}

impl Table {
    /// Who is calling. A token this table does not know is looked up once more in the store
    /// (it may have been issued through another process) before it is refused (401).
    pub async fn caller(
        &mut self,
        store: &EventStore,
        req: &actix_web::HttpRequest,
    ) -> Result<Caller, ApiError> {
        let Some(token) = bearer(req)? else {
            return Ok(Caller::Anonymous);
        };
        if let Some(who) = identify(&token, &self.credentials) {
            return Ok(who);
        }
        self.credentials = store.credentials(self.id()).await?;
        identify(&token, &self.credentials)
            .ok_or_else(|| ApiError::Unauthorized("this token does not belong to this game".into()))
    }
}

impl Table {
    /// The game as listed.
    pub fn summary(&self) -> crate::dto::GameSummary {
        crate::dto::summary(&self.record, &self.credentials)
    }
}
