//! A game's whole log: the events as recorded, the state they lead to with undone events
//! skipped, pending undo requests, and the audit that decides every command again.
//!
//! Versions count events: version `v` is the state after the first `v` events of the log
//! (event `seq` = 1, 2, …). Undoing never removes an event: [`Event::Undone`] names the version
//! the game returns to, and replaying skips what came between.

use serde::{Deserialize, Serialize};

use crate::command::Command;
use crate::decide::{decide, start, start_with};
use crate::event::{BotMove, Event, consequences};
use crate::game::{Game, Phase};
use crate::random::Contribution;
use crate::seat::Seat;
use crate::secret::Secret;
use crate::view::{Audience, redact, reveals_hidden};
use crate::violation::RuleViolation;

/// A pending request to take back a command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndoRequest {
    /// Who asked.
    pub seat: Seat,
    /// The request's event (`undo_requested`): what a vote on it is about.
    #[serde(default)]
    pub event: u64,
    /// The version the game would return to.
    pub to_version: u64,
    /// Who has approved so far.
    pub approvals: Vec<Seat>,
    /// Whether the commands it would take back showed the requester something hidden
    /// (docs/rules.md §12); taken as so for requests recorded before this was kept.
    pub revealed: bool,
}

impl UndoRequest {
    /// How a bot votes on the request (docs/rules.md §12, "knowledge cannot be taken back"): it
    /// declines a request whose taken-back commands revealed hidden information to the
    /// requester, and approves the others. A bot's own draws count for nothing: a bot keeps
    /// no memory of them.
    pub fn bot_approves(&self) -> bool {
        !self.revealed
    }
}

/// Why an undo or a rollback was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UndoError {
    /// The game is over: its record is final.
    #[error("the game is over: its record is final")]
    GameOver,
    /// The player has no command to take back, or someone acted since.
    #[error("{0} has no command to take back: nobody may have acted since it")]
    NothingToUndo(Seat),
    /// Another undo request is waiting for votes.
    #[error("another undo request is waiting for votes")]
    AlreadyPending,
    /// No undo request is waiting for votes.
    #[error("no undo request is waiting for votes")]
    NonePending,
    /// The player cannot vote on this request.
    #[error("{0} cannot vote on this request (the requester, or already voted)")]
    CannotVote(Seat),
    /// The version is not one the game can return to.
    #[error("version {0} is not an earlier version between two commands after the deal")]
    BadVersion(u64),
    /// A rollback needs a written reason.
    #[error("a rollback needs a written reason")]
    NoReason,
}

impl UndoError {
    /// Every stable code an undo or a rollback may be refused with, in the order of the
    /// variants.
    pub const CODES: &'static [&'static str] = &[
        "game_over",
        "nothing_to_undo",
        "undo_pending",
        "no_undo_pending",
        "cannot_vote",
        "bad_version",
        "no_reason",
    ];

    /// The stable code of the refusal (one of [`UndoError::CODES`]).
    pub fn code(&self) -> &'static str {
        match self {
            UndoError::GameOver => "game_over",
            UndoError::NothingToUndo(_) => "nothing_to_undo",
            UndoError::AlreadyPending => "undo_pending",
            UndoError::NonePending => "no_undo_pending",
            UndoError::CannotVote(_) => "cannot_vote",
            UndoError::BadVersion(_) => "bad_version",
            UndoError::NoReason => "no_reason",
        }
    }
}

/// A game's log with its current state.
#[derive(Debug, Clone)]
pub struct History {
    log: Vec<Event>,
    game: Game,
    pending: Option<UndoRequest>,
    /// Seq of the effective `CommandAccepted` events (not undone), in order.
    commands: Vec<u64>,
    /// The effective events as a persistent list: each node is (parent node, log index).
    nodes: Vec<(Option<usize>, usize)>,
    /// The last node of the effective list after each version (index `version - 1`).
    heads: Vec<usize>,
    /// The table around the game: talk, clocks, seats handed to bots (followed in log order;
    /// no undo takes it back).
    pub(crate) table: crate::table::Table,
}

/// Whether an event opens a batch appended at once: a command (unless a timeout's), an undo
/// event, the start, or an act at the table (talk, a timeout, a seat handed over or taken
/// back, a token issued again).
pub(crate) fn opens_batch(log: &[Event], index: usize) -> bool {
    let after_timeout = index > 0
        && matches!(
            log[index - 1],
            Event::TurnTimedOut { .. }
                | Event::SeatHandedToBot {
                    reason: crate::event::HandOver::Abandoned,
                    ..
                }
        );
    match &log[index] {
        Event::CommandAccepted { .. } | Event::SeatHandedToBot { .. } => !after_timeout,
        Event::TalkPosted { .. }
        | Event::TalkHidden { .. }
        | Event::TurnTimedOut { .. }
        | Event::SeatReclaimed { .. }
        | Event::SeatKeyRegistered { .. }
        | Event::TokenReissued { .. }
        | Event::GameCancelled {} => true,
        Event::UndoRequested { .. } | Event::UndoApproved { .. } | Event::UndoDeclined { .. } => {
            true
        }
        // The host's rollback is always its own batch, even right after an approval that left
        // a request waiting; the last approval and the undo it completes are appended together.
        Event::Undone { by: None, .. } => true,
        Event::Undone { by: Some(_), .. } => {
            index > 0 && !matches!(log[index - 1], Event::UndoApproved { .. })
        }
        Event::SeedMixed { .. } | Event::RoundStarted { round: 1, .. } => {
            index > 0
                && matches!(
                    log[index - 1],
                    Event::GameCreated { .. } | Event::Undone { .. }
                )
        }
        Event::GameCreated { .. } | Event::RoundStarted { .. } | consequences!() => false,
    }
}

impl History {
    /// A history from its first event, which must be [`Event::GameCreated`] with its seed.
    pub fn new(created: Event) -> Option<History> {
        let game = Game::from_created(&created)?;
        let Event::GameCreated { record_version, .. } = &created else {
            return None;
        };
        if !(crate::options::FIRST_RECORD_VERSION..=crate::options::RECORD_VERSION)
            .contains(record_version)
        {
            return None;
        }
        let mut table = crate::table::Table::new(game.options(), game.n());
        table.record_version = *record_version;
        Some(History {
            table,
            log: vec![created],
            game,
            pending: None,
            commands: Vec::new(),
            nodes: vec![(None, 0)],
            heads: vec![0],
        })
    }

    /// The log indices of the effective events after `version`, in order.
    pub(crate) fn path(&self, version: u64) -> Vec<usize> {
        let mut out = Vec::new();
        let mut node = Some(self.heads[version as usize - 1]);
        while let Some(n) = node {
            out.push(self.nodes[n].1);
            node = self.nodes[n].0;
        }
        out.reverse();
        out
    }

    /// The state at an earlier version (undone events skipped), without its log.
    pub fn state_at(&self, version: u64) -> Option<Game> {
        if version == 0 || version > self.version() {
            return None;
        }
        let path = self.path(version);
        let mut game = Game::from_created(&self.log[path[0]])?;
        for &i in &path[1..] {
            game.apply(&self.log[i]);
        }
        Some(game)
    }

    /// Replays a whole log; `None` if it does not start with a game's creation.
    pub fn replay(events: impl IntoIterator<Item = Event>) -> Option<History> {
        let mut events = events.into_iter();
        let mut h = History::new(events.next()?)?;
        for e in events {
            h.push(e);
        }
        Some(h)
    }

    /// The state now, undone events skipped.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Every event recorded, undone ones included.
    pub fn log(&self) -> &[Event] {
        &self.log
    }

    /// Gives back the room its lists grew into while the log was read (they grow by doubling):
    /// for a history kept in memory for long, e.g. a server's cached game.
    pub fn shrink_to_fit(&mut self) {
        self.log.shrink_to_fit();
        self.nodes.shrink_to_fit();
        self.heads.shrink_to_fit();
        self.commands.shrink_to_fit();
    }

    /// The version: how many events the log holds.
    pub fn version(&self) -> u64 {
        self.log.len() as u64
    }

    /// The version after the last event that can change what a seat decides on
    /// ([`Event::changes_decisions`]): a command chosen at any version from this one to
    /// [`History::version`] was chosen on the same game.
    pub fn decision_version(&self) -> u64 {
        let trailing = self
            .log
            .iter()
            .rev()
            .take_while(|e| !e.changes_decisions())
            .count();
        self.version() - trailing as u64
    }

    /// The end of the answer to the batch ending at `last`: `last`, then every batch right
    /// after it that a bot decided (a bot's command not forced by a timeout), which the server
    /// records in the same request. A command's reply covers its batch and these, whichever
    /// process recorded them, so a retry answers as the first reply did.
    pub fn answered_through(&self, last: u64) -> u64 {
        let mut end = last.min(self.version());
        let mut i = end as usize;
        while i < self.log.len()
            && opens_batch(&self.log, i)
            && matches!(self.log[i], Event::CommandAccepted { bot: Some(_), .. })
        {
            i += 1;
            while i < self.log.len() && !opens_batch(&self.log, i) {
                i += 1;
            }
            end = i as u64;
        }
        end
    }

    /// The undo request waiting for votes, if any.
    pub fn pending_undo(&self) -> Option<&UndoRequest> {
        self.pending.as_ref()
    }

    /// The history as it was at an earlier version.
    pub fn at(&self, version: u64) -> Option<History> {
        if version == 0 || version > self.version() {
            return None;
        }
        History::replay(self.log[..version as usize].iter().cloned())
    }

    /// Appends one event: the reducer of the log.
    pub fn push(&mut self, event: Event) {
        let seq = self.version() + 1;
        let mut head = *self.heads.last().expect("a history has its first event");
        let mut effective = false;
        self.table.observe(seq, &event);
        match &event {
            Event::Undone { to_version, .. } => {
                if let Some(game) = self.state_at(*to_version) {
                    head = self.heads[*to_version as usize - 1];
                    self.game = game;
                    self.commands = self
                        .path(*to_version)
                        .into_iter()
                        .filter(|&i| matches!(self.log[i], Event::CommandAccepted { .. }))
                        .map(|i| i as u64 + 1)
                        .collect();
                }
                self.pending = None;
            }
            Event::UndoRequested {
                seat,
                to_version,
                revealed,
                ..
            } => {
                self.pending = Some(UndoRequest {
                    seat: *seat,
                    event: seq,
                    to_version: *to_version,
                    approvals: Vec::new(),
                    revealed: revealed.unwrap_or(true),
                });
            }
            Event::UndoApproved { seat, .. } => {
                if let Some(p) = &mut self.pending {
                    p.approvals.push(*seat);
                }
            }
            Event::UndoDeclined { .. } => self.pending = None,
            // The table's acts: followed by `table`, outside the game's state.
            Event::TalkPosted { .. }
            | Event::TalkHidden { .. }
            | Event::TurnTimedOut { .. }
            | Event::SeatHandedToBot { .. }
            | Event::SeatReclaimed { .. }
            | Event::SeatKeyRegistered { .. }
            | Event::TokenReissued { .. } => {}
            Event::CommandAccepted { .. } => {
                // Acting moves the game on: a pending request would take this back too.
                self.pending = None;
                self.commands.push(seq);
                effective = true;
            }
            e => {
                self.game.apply(e);
                effective = true;
            }
        }
        if effective {
            self.nodes.push((Some(head), self.log.len()));
            head = self.nodes.len() - 1;
        }
        self.heads.push(head);
        self.log.push(event);
    }

    /// Decides a player's command: `CommandAccepted` followed by the events it causes.
    pub fn execute(&self, seat: Seat, command: &Command) -> Result<Vec<Event>, RuleViolation> {
        self.execute_as(seat, command, None)
    }

    /// Decides a command as [`History::execute`], recording how a bot chose it, if one did.
    pub(crate) fn execute_as(
        &self,
        seat: Seat,
        command: &Command,
        bot: Option<BotMove>,
    ) -> Result<Vec<Event>, RuleViolation> {
        let mut events = vec![Event::CommandAccepted {
            seat,
            command: Secret::Known(command.clone()),
            bot,
            at: None,
            signature: None,
        }];
        events.extend(decide(&self.game, seat, command)?);
        Ok(events)
    }

    /// Decides the start of the game: round 1 dealt.
    pub fn start(&self) -> Result<Vec<Event>, RuleViolation> {
        start(&self.game)
    }

    /// Decides the start of the game with the players' shares mixed into the seed
    /// ([`crate::start_with`]).
    pub fn start_with(&self, contributions: &[Contribution]) -> Result<Vec<Event>, RuleViolation> {
        start_with(&self.game, contributions)
    }

    /// Decides the start of the game with the players' shares mixed into the seed, some
    /// committed to before any was seen ([`crate::start_committed`]).
    pub fn start_committed(
        &self,
        contributions: &[Contribution],
        committed: &[crate::ShareCommitment],
    ) -> Result<Vec<Event>, RuleViolation> {
        crate::start_committed(&self.game, contributions, committed)
    }

    /// The last command `seat` chose itself (not by a bot), if only bots have acted since:
    /// with the version before it.
    pub(crate) fn last_own_command(&self, seat: Seat) -> Option<(Seat, u64)> {
        for &seq in self.commands.iter().rev() {
            // `commands` numbers the log's accepted commands only.
            let Event::CommandAccepted { seat: s, bot, .. } = &self.log[seq as usize - 1] else {
                return None;
            };
            match (s, bot) {
                // A timeout's command was nobody's choice: it is not taken back.
                _ if seq >= 2
                    && matches!(
                        self.log[seq as usize - 2],
                        Event::TurnTimedOut { .. }
                            | Event::SeatHandedToBot {
                                reason: crate::event::HandOver::Abandoned
                                    | crate::event::HandOver::Host,
                                ..
                            }
                    ) =>
                {
                    return None;
                }
                (s, None) if *s == seat => return Some((seat, seq - 1)),
                (_, Some(_)) => {}
                // Another player's own command: nothing of `seat`'s to take back.
                (_, None) => return None,
            }
        }
        None
    }

    /// A player asks to take back their last command. Taken back at once when nobody has acted
    /// since and it revealed nothing hidden to anyone; otherwise a request every other player
    /// must approve. When only bots have acted since, their commands go back with it (by
    /// request: the server approves for its bots).
    pub fn request_undo(&self, seat: Seat) -> Result<Vec<Event>, UndoError> {
        if self.game.phase == Phase::GameOver {
            return Err(UndoError::GameOver);
        }
        let Some((by, to_version)) = self.last_own_command(seat) else {
            return Err(UndoError::NothingToUndo(seat));
        };
        // Nobody acted since: no command after it, and only its own events follow.
        let after = &self.log[to_version as usize + 1..];
        let revealing = after.iter().any(|e| {
            reveals_hidden(e)
                || !self.effective_event(e)
                || matches!(e, Event::CommandAccepted { .. })
        });
        if !revealing {
            return Ok(vec![Event::Undone {
                to_version,
                by: Some(by),
                reason: None,
                at: None,
                signature: None,
            }]);
        }
        if self.pending.is_some() {
            return Err(UndoError::AlreadyPending);
        }
        Ok(vec![Event::UndoRequested {
            seat,
            to_version,
            revealed: Some(self.revealed_to(seat, to_version)),
            signature: None,
        }])
    }

    /// Whether the events after `version` showed `seat` something hidden: an event that shows
    /// that seat more than a spectator (its own draw, its peek, a swap it took part in, gold
    /// offered to it), or one that turns something face up for everyone (a goal, the roles at
    /// a round's end). Another seat's draw shows `seat` nothing.
    fn revealed_to(&self, seat: Seat, version: u64) -> bool {
        let after = self.log.get(version as usize..).unwrap_or_default();
        after.iter().any(|e| {
            if !reveals_hidden(e) {
                return false;
            }
            let public = redact(e, Audience::Spectator, false);
            redact(e, Audience::Seat(seat), false) != public
                || redact(e, Audience::Omniscient, false) == public
        })
    }

    /// Whether an event after the last command is one of that command's own events (not an
    /// undo vote or request, which mean others took part).
    fn effective_event(&self, e: &Event) -> bool {
        !matches!(
            e,
            Event::UndoRequested { .. }
                | Event::UndoApproved { .. }
                | Event::UndoDeclined { .. }
                | Event::Undone { .. }
        )
    }

    /// A player votes on the pending undo request; the last approval takes the command back.
    pub fn vote_undo(&self, seat: Seat, approve: bool) -> Result<Vec<Event>, UndoError> {
        let Some(p) = &self.pending else {
            return Err(UndoError::NonePending);
        };
        if seat == p.seat || p.approvals.contains(&seat) || seat.index() >= self.game.n() {
            return Err(UndoError::CannotVote(seat));
        }
        if !approve {
            return Ok(vec![Event::UndoDeclined {
                seat,
                signature: None,
            }]);
        }
        let mut events = vec![Event::UndoApproved {
            seat,
            signature: None,
        }];
        if p.approvals.len() + 2 >= self.game.n() {
            events.push(Event::Undone {
                to_version: p.to_version,
                by: Some(p.seat),
                reason: None,
                at: None,
                signature: None,
            });
        }
        Ok(events)
    }

    /// The host rolls the game back to an earlier version, with a written reason.
    pub fn rollback(&self, to_version: u64, reason: &str) -> Result<Vec<Event>, UndoError> {
        if self.game.phase == Phase::GameOver {
            return Err(UndoError::GameOver);
        }
        if reason.trim().is_empty() {
            return Err(UndoError::NoReason);
        }
        if to_version == 0
            || to_version >= self.version()
            || !opens_batch(&self.log, to_version as usize)
        {
            return Err(UndoError::BadVersion(to_version));
        }
        // A started game is never taken back to before its deal: nothing could start it again.
        if self
            .state_at(to_version)
            .is_none_or(|g| g.phase == Phase::NotStarted)
        {
            return Err(UndoError::BadVersion(to_version));
        }
        Ok(vec![Event::Undone {
            to_version,
            by: None,
            reason: Some(reason.to_string()),
            at: None,
            signature: None,
        }])
    }
}
