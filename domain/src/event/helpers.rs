//! What an event says about itself: its `type` tag, whether it changes decisions, the seat
//! that acted and its signature, and how a stored event is read back.

use serde::Deserialize;

use super::{EVENT_SCHEMA_VERSION, Event, consequences};
use crate::seat::Seat;
use crate::secret::Secret;
use crate::signature::SeatSignature;

impl Event {
    /// The event's `type` tag.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::GameCreated { .. } => "game_created",
            Event::SeedMixed { .. } => "seed_mixed",
            Event::RoundStarted { .. } => "round_started",
            Event::PathPlayed { .. } => "path_played",
            Event::GoalRevealed { .. } => "goal_revealed",
            Event::ToolBroken { .. } => "tool_broken",
            Event::ToolRepaired { .. } => "tool_repaired",
            Event::PathRemoved { .. } => "path_removed",
            Event::MapUsed { .. } => "map_used",
            Event::Passed { .. } => "passed",
            Event::CardDrawn { .. } => "card_drawn",
            Event::TurnSkipped { .. } => "turn_skipped",
            Event::RoundEnded { .. } => "round_ended",
            Event::GoldDrawn { .. } => "gold_drawn",
            Event::GoldOffered { .. } => "gold_offered",
            Event::GoldKept { .. } => "gold_kept",
            Event::SaboteursPaid { .. } => "saboteurs_paid",
            Event::DiscardedToRemove { .. } => "discarded_to_remove",
            Event::TheftPlayed { .. } => "theft_played",
            Event::PlayerTrapped { .. } => "player_trapped",
            Event::ActionCancelled { .. } => "action_cancelled",
            Event::HatsSwapped { .. } => "hats_swapped",
            Event::Inspected { .. } => "inspected",
            Event::HandsSwapped { .. } => "hands_swapped",
            Event::CoinsPaid { .. } => "coins_paid",
            Event::StealingStarted { .. } => "stealing_started",
            Event::CoinStolen { .. } => "coin_stolen",
            Event::CommandAccepted { .. } => "command_accepted",
            Event::UndoRequested { .. } => "undo_requested",
            Event::UndoApproved { .. } => "undo_approved",
            Event::UndoDeclined { .. } => "undo_declined",
            Event::Undone { .. } => "undone",
            Event::TalkPosted { .. } => "talk_posted",
            Event::TalkHidden { .. } => "talk_hidden",
            Event::TurnTimedOut { .. } => "turn_timed_out",
            Event::SeatHandedToBot { .. } => "seat_handed_to_bot",
            Event::SeatReclaimed { .. } => "seat_reclaimed",
            Event::SeatKeyRegistered { .. } => "seat_key_registered",
            Event::TokenReissued { .. } => "token_reissued",
            Event::GameEnded { .. } => "game_ended",
            Event::GameCancelled {} => "game_cancelled",
        }
    }

    /// Whether the event can change what a seat decides on: everything but talk at the table,
    /// a token issued again and a key registered. A client's `If-Match` is held against the events that do
    /// ([`crate::History::decision_version`]), so a message posted meanwhile never makes a
    /// pending command stale.
    pub fn changes_decisions(&self) -> bool {
        match self {
            Event::TalkPosted { .. }
            | Event::TalkHidden { .. }
            | Event::TokenReissued { .. }
            | Event::SeatKeyRegistered { .. } => false,
            Event::GameCreated { .. }
            | Event::SeedMixed { .. }
            | Event::RoundStarted { .. }
            | Event::CommandAccepted { .. }
            | Event::UndoRequested { .. }
            | Event::UndoApproved { .. }
            | Event::UndoDeclined { .. }
            | Event::Undone { .. }
            | Event::TurnTimedOut { .. }
            | Event::SeatHandedToBot { .. }
            | Event::SeatReclaimed { .. }
            | Event::GameCancelled {}
            | consequences!() => true,
        }
    }

    /// The seat whose act caused the event, if a player's.
    pub fn actor(&self) -> Option<Seat> {
        match self {
            Event::PathPlayed { seat, .. }
            | Event::ToolBroken { seat, .. }
            | Event::ToolRepaired { seat, .. }
            | Event::PathRemoved { seat, .. }
            | Event::MapUsed { seat, .. }
            | Event::Passed { seat, .. }
            | Event::DiscardedToRemove { seat, .. }
            | Event::TheftPlayed { seat }
            | Event::PlayerTrapped { seat, .. }
            | Event::ActionCancelled { seat, .. }
            | Event::HatsSwapped { seat, .. }
            | Event::Inspected { seat, .. }
            | Event::HandsSwapped { seat, .. }
            | Event::CoinStolen { seat, .. }
            | Event::TalkPosted {
                seat: Some(seat), ..
            }
            | Event::SeatReclaimed { seat, .. }
            | Event::SeatKeyRegistered { seat, .. }
            | Event::GoldKept {
                seat,
                automatic: false,
                ..
            } => Some(*seat),
            // Caused by the deal, the rules or the server, or recorded as the act itself.
            Event::GameCreated { .. }
            | Event::SeedMixed { .. }
            | Event::RoundStarted { .. }
            | Event::GoalRevealed { .. }
            | Event::CardDrawn { .. }
            | Event::TurnSkipped { .. }
            | Event::RoundEnded { .. }
            | Event::GoldDrawn { .. }
            | Event::GoldOffered { .. }
            | Event::GoldKept { .. }
            | Event::SaboteursPaid { .. }
            | Event::CoinsPaid { .. }
            | Event::StealingStarted { .. }
            | Event::GameEnded { .. }
            | Event::CommandAccepted { .. }
            | Event::UndoRequested { .. }
            | Event::UndoApproved { .. }
            | Event::UndoDeclined { .. }
            | Event::Undone { .. }
            | Event::TalkPosted { .. }
            | Event::TalkHidden { .. }
            | Event::TurnTimedOut { .. }
            | Event::SeatHandedToBot { .. }
            | Event::TokenReissued { .. }
            | Event::GameCancelled {} => None,
        }
    }

    /// The player's signature the event records, if any (a hidden one counts as none).
    pub fn signature(&self) -> Option<&SeatSignature> {
        match self {
            Event::CommandAccepted { signature, .. } | Event::TalkPosted { signature, .. } => {
                signature.as_ref().and_then(Secret::known)
            }
            Event::UndoRequested { signature, .. }
            | Event::UndoApproved { signature, .. }
            | Event::UndoDeclined { signature, .. }
            | Event::Undone { signature, .. }
            | Event::SeatReclaimed { signature, .. }
            | Event::SeatKeyRegistered { signature, .. } => signature.as_ref(),
            _ => None,
        }
    }

    /// Records a player's signature in the first event of `events` that records an act of
    /// `seat` a player signs (a command, an undo request, a vote, a message, a reclaim, a key).
    /// Whether one did.
    pub fn sign(events: &mut [Event], seat: Seat, signed: SeatSignature) -> bool {
        for e in events {
            match e {
                Event::CommandAccepted {
                    seat: s,
                    bot: None,
                    signature,
                    ..
                }
                | Event::TalkPosted {
                    seat: Some(s),
                    signature,
                    ..
                } if *s == seat => {
                    *signature = Some(Secret::Known(signed));
                    return true;
                }
                Event::UndoRequested {
                    seat: s, signature, ..
                }
                | Event::UndoApproved { seat: s, signature }
                | Event::UndoDeclined { seat: s, signature }
                | Event::Undone {
                    by: Some(s),
                    signature,
                    ..
                }
                | Event::SeatReclaimed { seat: s, signature }
                | Event::SeatKeyRegistered {
                    seat: s, signature, ..
                } if *s == seat => {
                    *signature = Some(signed);
                    return true;
                }
                _ => {}
            }
        }
        false
    }

    /// Reads an event stored with the given schema version. Only version 1 exists.
    pub fn decode<'de, D: serde::Deserializer<'de>>(
        schema_version: u16,
        data: D,
    ) -> Result<Event, D::Error> {
        match schema_version {
            EVENT_SCHEMA_VERSION => Event::deserialize(data),
            v => Err(serde::de::Error::custom(format!(
                "unknown event schema version {v}"
            ))),
        }
    }
}
