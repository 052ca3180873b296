//! The table around a game as [`crate::History`] follows it, in the order of the log: the
//! clocks (reckoned from recorded times), seats handed to bots, and the talk. What is decided
//! from it, and the events that change it, are in [`crate::online`]; what everyone may see of
//! it, in [`crate::status`].

use std::collections::BTreeSet;

use crate::event::{BotLevel, Event, consequences};
use crate::options::{Clock, Options};
use crate::seat::Seat;

/// What [`crate::History`] follows at the table, in the order of the log.
#[derive(Debug, Clone, Default)]
pub(crate) struct Table {
    pub(crate) options: Options,
    /// When the awaited decision began (the last recorded time that started one).
    pub(crate) since: Option<u64>,
    /// Each seat's bank, in milliseconds.
    pub(crate) bank: Vec<u64>,
    /// Each seat's timeouts in a row.
    pub(crate) timeouts: Vec<u8>,
    /// The bot each seat was handed to, if any.
    pub(crate) handed: Vec<Option<BotLevel>>,
    /// Whether each seat's bot plays in its player's place (handed over by the host, or the
    /// seat abandoned), not a bot's seat from the lobby on.
    pub(crate) for_player: Vec<bool>,
    /// Every message: its speaker and time.
    pub(crate) talk: Vec<(Option<Seat>, u64)>,
    /// The sequence numbers of messages, and of those hidden.
    pub(crate) messages: BTreeSet<u64>,
    pub(crate) hidden: BTreeSet<u64>,
    /// The latest time recorded.
    pub(crate) last_at: u64,
    /// The last decision-making event was a timeout: the command after it is its bot's.
    pub(crate) timed_out: bool,
    /// The key each seat's acts are signed with, if its player registered one.
    pub(crate) keys: Vec<Option<String>>,
    /// The sequence number of each seat's last reissued token (0 if none): a key registered
    /// for the seat later must be proved at that version or after (record version 7 on).
    pub(crate) reissued: Vec<u64>,
    /// The game's record version ([`crate::options::RECORD_VERSION`]).
    pub(crate) record_version: u8,
}

impl Table {
    /// The table of a new game.
    pub(crate) fn new(options: Options, players: usize) -> Table {
        let bank = match options.clock {
            Some(Clock::Bank { seconds, .. }) => u64::from(seconds) * 1000,
            _ => 0,
        };
        Table {
            options,
            bank: vec![bank; players],
            timeouts: vec![0; players],
            handed: vec![None; players],
            for_player: vec![false; players],
            keys: vec![None; players],
            reissued: vec![0; players],
            record_version: crate::options::FIRST_RECORD_VERSION,
            ..Table::default()
        }
    }

    fn seat_mut<T>(list: &mut [T], seat: Seat) -> Option<&mut T> {
        list.get_mut(seat.index())
    }

    /// Follows one event of the log, numbered `seq`.
    pub(crate) fn observe(&mut self, seq: u64, event: &Event) {
        match event {
            Event::RoundStarted {
                round: 1,
                at: Some(t),
                ..
            } => self.since = Some(*t),
            Event::CommandAccepted { seat, bot, at, .. } => {
                if let (Some(t), Some(clock)) = (at, self.options.clock) {
                    let spent = t.saturating_sub(self.since.unwrap_or(*t));
                    if let Some(bank) = Table::seat_mut(&mut self.bank, *seat)
                        && let Clock::Bank {
                            increment_seconds, ..
                        } = clock
                    {
                        if !self.timed_out {
                            *bank = bank.saturating_sub(spent);
                        }
                        *bank += u64::from(increment_seconds) * 1000;
                    }
                    self.since = Some(*t);
                }
                if bot.is_none()
                    && let Some(n) = Table::seat_mut(&mut self.timeouts, *seat)
                {
                    *n = 0;
                }
                self.timed_out = false;
            }
            Event::Undone { at: Some(t), .. } => self.since = Some(*t),
            Event::TurnTimedOut { seat, at, .. } => {
                if let Some(bank) = Table::seat_mut(&mut self.bank, *seat) {
                    *bank = 0;
                }
                if let Some(n) = Table::seat_mut(&mut self.timeouts, *seat) {
                    *n = n.saturating_add(1);
                }
                self.since = Some(*at);
                self.timed_out = true;
            }
            Event::SeatHandedToBot {
                seat,
                level,
                reason,
            } => {
                if let Some(h) = Table::seat_mut(&mut self.handed, *seat) {
                    *h = Some(*level);
                }
                if let Some(p) = Table::seat_mut(&mut self.for_player, *seat) {
                    *p = *reason != crate::event::HandOver::Lobby;
                }
            }
            Event::SeatReclaimed { seat, .. } => {
                if let Some(h) = Table::seat_mut(&mut self.handed, *seat) {
                    *h = None;
                }
                if let Some(p) = Table::seat_mut(&mut self.for_player, *seat) {
                    *p = false;
                }
                if let Some(n) = Table::seat_mut(&mut self.timeouts, *seat) {
                    *n = 0;
                }
            }
            Event::TalkPosted { seat, at, .. } => {
                self.talk.push((*seat, *at));
                self.messages.insert(seq);
            }
            Event::TalkHidden { message } => {
                self.hidden.insert(*message);
            }
            Event::SeatKeyRegistered { seat, key, .. } => {
                if let Some(k) = Table::seat_mut(&mut self.keys, *seat) {
                    *k = Some(key.clone());
                }
            }
            Event::TokenReissued { seat } => {
                if let Some(k) = Table::seat_mut(&mut self.keys, *seat) {
                    *k = None;
                }
                if let Some(r) = Table::seat_mut(&mut self.reissued, *seat) {
                    *r = seq;
                }
            }
            // Nothing else changes the table's clocks, seats, keys or talk.
            Event::GameCreated { .. }
            | Event::SeedMixed { .. }
            | Event::RoundStarted { .. }
            | Event::UndoRequested { .. }
            | Event::UndoApproved { .. }
            | Event::UndoDeclined { .. }
            | Event::Undone { .. }
            | Event::GameCancelled {}
            | consequences!() => {}
        }
        if let Some(t) = recorded_time(event) {
            self.last_at = self.last_at.max(t);
        }
    }

    /// The bot a seat was handed to, if any.
    pub(crate) fn handed(&self, seat: Seat) -> Option<BotLevel> {
        self.handed.get(seat.index()).copied().flatten()
    }

    /// Whether a bot plays the seat in its player's place (not a bot's seat from the lobby).
    pub(crate) fn plays_for_player(&self, seat: Seat) -> bool {
        self.handed(seat).is_some() && self.for_player.get(seat.index()).copied().unwrap_or(false)
    }
}

/// The time an event records, if it records one.
pub fn recorded_time(event: &Event) -> Option<u64> {
    match event {
        Event::RoundStarted { at, .. }
        | Event::CommandAccepted { at, .. }
        | Event::Undone { at, .. } => *at,
        Event::TalkPosted { at, .. } | Event::TurnTimedOut { at, .. } => Some(*at),
        Event::GameCreated { .. }
        | Event::SeedMixed { .. }
        | Event::UndoRequested { .. }
        | Event::UndoApproved { .. }
        | Event::UndoDeclined { .. }
        | Event::TalkHidden { .. }
        | Event::SeatHandedToBot { .. }
        | Event::SeatReclaimed { .. }
        | Event::SeatKeyRegistered { .. }
        | Event::TokenReissued { .. }
        | Event::GameCancelled {}
        | consequences!() => None,
    }
}
