//! The table around a game as everyone may see it ([`TableStatus`]): its settings, the clocks,
//! the seats handed to bots, what a signed act of each seat would be about, and the messages the
//! host hid. A function of the log alone.

use serde::{Deserialize, Serialize};

use crate::event::BotLevel;
use crate::history::History;
use crate::online::Deadline;
use crate::options::Clock;
use crate::seat::Seat;

/// One seat at the table, as everyone may see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SeatStatus {
    /// The seat.
    pub seat: Seat,
    /// Milliseconds left on the seat's clock at the start of its current (or next) decision:
    /// its bank, or the limit per decision; absent without a clock.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub remaining_ms: Option<u64>,
    /// Its timeouts in a row.
    pub timeouts: u8,
    /// The bot playing the seat since it was handed over (abandoned, or by the host), if one
    /// is. Seats taken by a bot when the game was set up are listed with the game.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub handed_to: Option<BotLevel>,
    /// The event (`seat_handed_to_bot`) that handed the seat to the bot playing it now: what
    /// its player's signed reclaim names (`about`, docs/clients.md).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub handed_at: Option<u64>,
    /// The event (`command_accepted`) of the seat's command that its undo would take back
    /// now, if any: what its player's signed undo names (`about`).
    #[cfg_attr(feature = "openapi", schema(required = true))]
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
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub clock: Option<Clock>,
    /// Timeouts in a row after which a seat is handed to a bot, if ever.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub abandon_after: Option<u8>,
    /// The level of the bot that decides for a seat that ran out of time.
    pub timeout_bot: BotLevel,
    /// Whether spectators may talk.
    pub spectator_talk: bool,
    /// The deadline of the awaited decision, if it has one.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub deadline: Option<Deadline>,
    /// Every seat, in order.
    pub seats: Vec<SeatStatus>,
    /// The sequence numbers of the messages the host hid.
    pub hidden_talk: Vec<u64>,
    /// The pending undo request's event (`undo_requested`), if one waits for votes: what a
    /// signed approval or decline names (`about`).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub undo_request: Option<u64>,
}

impl History {
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
