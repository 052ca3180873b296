//! The table around a game as [`crate::History`] follows it, in the order of the log: the
//! clocks (reckoned from recorded times), seats handed to bots, and the talk; and the status
//! everyone may see of it ([`TableStatus`]). What is decided from it, and the events that
//! change it, are in [`crate::online`].

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::event::{BotLevel, Event};
use crate::online::Deadline;
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
            keys: vec![None; players],
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
            Event::SeatHandedToBot { seat, level, .. } => {
                if let Some(h) = Table::seat_mut(&mut self.handed, *seat) {
                    *h = Some(*level);
                }
            }
            Event::SeatReclaimed { seat, .. } => {
                if let Some(h) = Table::seat_mut(&mut self.handed, *seat) {
                    *h = None;
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
            }
            _ => {}
        }
        if let Some(t) = recorded_time(event) {
            self.last_at = self.last_at.max(t);
        }
    }

    /// The bot a seat was handed to, if any.
    pub(crate) fn handed(&self, seat: Seat) -> Option<BotLevel> {
        self.handed.get(seat.index()).copied().flatten()
    }
}

/// The time an event records, if it records one.
pub fn recorded_time(event: &Event) -> Option<u64> {
    match event {
        Event::RoundStarted { at, .. }
        | Event::CommandAccepted { at, .. }
        | Event::Undone { at, .. } => *at,
        Event::TalkPosted { at, .. } | Event::TurnTimedOut { at, .. } => Some(*at),
        _ => None,
    }
}

/// One seat at the table, as everyone may see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SeatStatus {
    /// The seat.
    pub seat: Seat,
    /// Milliseconds left on the seat's clock at the start of its current (or next) decision:
    /// its bank, or the limit per decision; absent without a clock.
    pub remaining_ms: Option<u64>,
    /// Its timeouts in a row.
    pub timeouts: u8,
    /// The bot playing the seat since it was handed over (abandoned, or by the host), if one
    /// is. Seats taken by a bot when the game was set up are listed with the game.
    pub handed_to: Option<BotLevel>,
    /// The event (`seat_handed_to_bot`) that handed the seat to the bot playing it now: what
    /// its player's signed reclaim names (`about`, docs/clients.md).
    pub handed_at: Option<u64>,
    /// The event (`command_accepted`) of the seat's command that its undo would take back
    /// now, if any: what its player's signed undo names (`about`).
    pub undoable: Option<u64>,
    /// The Ed25519 public key (64 hex digits) that signs the seat's acts, if its player
    /// registered one (`seat_key_registered`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// The table around the game, as everyone may see it: its settings, the clocks, the seats
/// handed to bots and the messages the host hid. A function of the log alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TableStatus {
    /// The game's record version (`game_created.record_version`): which statement its players
    /// sign (5: `saboteur-act-v3`; 3 and 4: `saboteur-act-v2`; 1 and 2: `saboteur-act-v1`) and
    /// what its audit checks. A client refuses a game whose record version it does not sign
    /// (docs/clients.md).
    pub record_version: u8,
    /// The turn clock, if the game has one.
    pub clock: Option<Clock>,
    /// Timeouts in a row after which a seat is handed to a bot, if ever.
    pub abandon_after: Option<u8>,
    /// The level of the bot that decides for a seat that ran out of time.
    pub timeout_bot: BotLevel,
    /// Whether spectators may talk.
    pub spectator_talk: bool,
    /// The deadline of the awaited decision, if it has one.
    pub deadline: Option<Deadline>,
    /// Every seat, in order.
    pub seats: Vec<SeatStatus>,
    /// The sequence numbers of the messages the host hid.
    pub hidden_talk: Vec<u64>,
    /// The pending undo request's event (`undo_requested`), if one waits for votes: what a
    /// signed approval or decline names (`about`).
    pub undo_request: Option<u64>,
}

impl crate::history::History {
    /// The table around the game as everyone may see it.
    pub fn table_status(&self) -> TableStatus {
        let o = self.table.options;
        let seats = (0..self.game().n())
            .map(|i| {
                let seat = Seat(i as u8);
                SeatStatus {
                    seat,
                    remaining_ms: o.clock.map(|c| match c {
                        Clock::PerDecision { seconds } => u64::from(seconds) * 1000,
                        Clock::Bank { .. } => self.table.bank.get(i).copied().unwrap_or(0),
                    }),
                    timeouts: self.table.timeouts.get(i).copied().unwrap_or(0),
                    handed_to: self.table.handed(seat),
                    handed_at: self.handed_at(seat),
                    undoable: self.undoable(seat),
                    key: self.seat_key(seat).map(str::to_string),
                }
            })
            .collect();
        TableStatus {
            record_version: self.table.record_version,
            clock: o.clock,
            abandon_after: o.abandon_after,
            timeout_bot: o.timeout_bot(),
            spectator_talk: o.spectator_talk,
            deadline: self.deadline(),
            seats,
            hidden_talk: self.table.hidden.iter().copied().collect(),
            undo_request: self.pending_undo().map(|p| p.event),
        }
    }
}
