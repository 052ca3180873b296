//! What a signed act is about (record version 5 on): the event an undo, a vote or a reclaim
//! names in the statement its player signs ([`crate::act_statement`]'s `about`). The server
//! reads it from the game as it stands ([`History::about`]); the verifier from the log as it
//! goes ([`About`]); both name the same event for the same act, so a signature made for one
//! request, command or hand-over never stands for another.

use crate::command::Command;
use crate::event::{Event, consequences};
use crate::history::History;
use crate::seat::Seat;
use crate::signature::SignedAct;

/// What a signed act is about and what its body says, read by the server and the verifier.
impl SignedAct {
    /// The event this act is about, when `event` records it ([`crate::About`] follows a log
    /// for the rest): an undo's command (the event after the version it returns to), a vote's
    /// request (`last_request`, the log's last `undo_requested`: a vote is taken only while it
    /// is pending), a reclaim's hand-over (`handed_at`, the seat's last `seat_handed_to_bot`);
    /// `None` for the other acts.
    pub fn about(
        self,
        event: &Event,
        last_request: Option<u64>,
        handed_at: Option<u64>,
    ) -> Option<u64> {
        match (self, event) {
            (
                SignedAct::Undo,
                Event::UndoRequested { to_version, .. } | Event::Undone { to_version, .. },
            ) => Some(to_version + 1),
            // An undo is recorded by one of the two events above.
            (SignedAct::Undo, _) => None,
            (SignedAct::Approve | SignedAct::Decline, _) => last_request,
            (SignedAct::Reclaim, _) => handed_at,
            (
                SignedAct::Command
                | SignedAct::Talk
                | SignedAct::Leave
                | SignedAct::Key
                | SignedAct::Name
                | SignedAct::Sit,
                _,
            ) => None,
        }
    }

    /// Whether `body`, the signed request's body as recorded, says what `event` (the record's
    /// event for this act) records: a command's body is the command accepted, a message's text
    /// the text posted, a key's `public_key` the key registered; an act without a body signs
    /// an empty one. A seat is named anew, or changed for another, only before the start, where
    /// nothing is recorded, so no event agrees with a `name` or a `sit`.
    pub fn agrees(self, body: &str, event: &Event) -> bool {
        let field = |name: &str| {
            serde_json::from_str::<serde_json::Value>(body)
                .ok()?
                .get(name)?
                .as_str()
                .map(str::to_string)
        };
        match (self, event) {
            (SignedAct::Command, Event::CommandAccepted { command, .. }) => {
                match (serde_json::from_str::<Command>(body).ok(), command.known()) {
                    (Some(signed), Some(recorded)) => signed.canonical() == recorded.canonical(),
                    (None, _) | (_, None) => false,
                }
            }
            (SignedAct::Talk, Event::TalkPosted { text, .. }) => {
                text.known().map(|t| t.trim()) == field("text").as_deref().map(str::trim)
            }
            (SignedAct::Key, Event::SeatKeyRegistered { key, .. }) => {
                field("public_key").map(|k| k.to_ascii_lowercase()).as_ref() == Some(key)
            }
            (SignedAct::Command | SignedAct::Talk | SignedAct::Key, _) => false,
            (
                SignedAct::Undo
                | SignedAct::Approve
                | SignedAct::Decline
                | SignedAct::Reclaim
                | SignedAct::Leave,
                _,
            ) => body.is_empty(),
            (SignedAct::Name | SignedAct::Sit, _) => false,
        }
    }
}

/// Follows a log to tell what each signed act in it is about ([`About::of`]).
#[derive(Debug, Clone)]
pub struct About {
    last_request: Option<u64>,
    handed_at: Vec<Option<u64>>,
}

impl About {
    /// Before the first event of a game of `players` seats.
    pub fn new(players: usize) -> About {
        About {
            last_request: None,
            handed_at: vec![None; players],
        }
    }

    /// The event `seat`'s signed `act`, recorded by `event`, is about: an undo's command (the
    /// event after the version it returns to), a vote's request (the last `undo_requested`: a
    /// vote is taken only while it is pending), a reclaim's hand-over (the seat's last
    /// `seat_handed_to_bot`); `None` for the other acts. Call before [`About::observe`] of
    /// the same event.
    pub fn of(&self, event: &Event, seat: Seat, act: SignedAct) -> Option<u64> {
        let handed_at = self.handed_at.get(seat.index()).copied().flatten();
        act.about(event, self.last_request, handed_at)
    }

    /// Follows the event numbered `seq`.
    pub fn observe(&mut self, seq: u64, event: &Event) {
        match event {
            Event::UndoRequested { .. } => self.last_request = Some(seq),
            Event::SeatHandedToBot { seat, .. } => {
                if let Some(at) = self.handed_at.get_mut(seat.index()) {
                    *at = Some(seq);
                }
            }
            // No other event is what an act is about.
            Event::GameCreated { .. }
            | Event::SeedMixed { .. }
            | Event::RoundStarted { .. }
            | Event::CommandAccepted { .. }
            | Event::UndoApproved { .. }
            | Event::UndoDeclined { .. }
            | Event::Undone { .. }
            | Event::TalkPosted { .. }
            | Event::TalkHidden { .. }
            | Event::TurnTimedOut { .. }
            | Event::SeatReclaimed { .. }
            | Event::SeatKeyRegistered { .. }
            | Event::TokenReissued { .. }
            | Event::GameCancelled {}
            | consequences!() => {}
        }
    }
}

impl History {
    /// The event `seat`'s `act` would be about if it were made now
    /// ([`SignedAct::names_an_event`]): the command an undo would take back
    /// ([`History::undoable`]), the request a vote would answer, the hand-over a reclaim would
    /// end ([`History::handed_at`]). `None` when there is none (the act is then refused) and
    /// for the acts about no event.
    pub fn about(&self, seat: Seat, act: SignedAct) -> Option<u64> {
        match act {
            SignedAct::Undo => self.undoable(seat),
            SignedAct::Approve | SignedAct::Decline => self.pending_undo().map(|p| p.event),
            SignedAct::Reclaim => self.handed_at(seat),
            SignedAct::Command
            | SignedAct::Talk
            | SignedAct::Leave
            | SignedAct::Key
            | SignedAct::Name
            | SignedAct::Sit => None,
        }
    }

    /// The event `seat`'s `act` was about if it was made at `version`: [`History::about`] for
    /// a version of the current decision (from [`History::decision_version`] on, where nothing
    /// an act can be about has changed), else as the game stood then (replayed). What a refusal
    /// of a stale act hashes as the statement its player signed.
    pub fn about_at(&self, version: u64, seat: Seat, act: SignedAct) -> Option<u64> {
        if !act.names_an_event() {
            return None;
        }
        if version >= self.decision_version() {
            return self.about(seat, act);
        }
        self.at(version)?.about(seat, act)
    }

    /// The event (`command_accepted`) of `seat`'s command that its undo would take back now:
    /// its last own command, when since then only bots have acted and the game is not over.
    pub fn undoable(&self, seat: Seat) -> Option<u64> {
        if *self.game().phase() == crate::game::Phase::GameOver {
            return None;
        }
        self.last_own_command(seat).map(|(_, before)| before + 1)
    }

    /// The event that handed `seat` to the bot playing it now (`seat_handed_to_bot`), if a
    /// bot plays it since one did.
    pub fn handed_at(&self, seat: Seat) -> Option<u64> {
        self.handed_to(seat)?;
        self.log()
            .iter()
            .rposition(|e| matches!(e, Event::SeatHandedToBot { seat: s, .. } if *s == seat))
            .map(|i| i as u64 + 1)
    }
}
