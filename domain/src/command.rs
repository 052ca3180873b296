//! Commands: what a player asks to do, in the JSON wire format of docs/scenarios.md. The HTTP API
//! accepts these very objects.

use serde::{Deserialize, Serialize};

use crate::cards::{Card, Tool};
use crate::geometry::Cell;
use crate::seat::Seat;

/// A seat as the target of an action: `{ "seat": n }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SeatTarget {
    /// The targeted seat.
    pub seat: Seat,
}

/// The target of an action card: a seat or a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum Target {
    /// A player, `{ "seat": n }`.
    Seat(SeatTarget),
    /// A cell of the maze, `{ "x": x, "y": y }`.
    Cell(Cell),
}

impl Target {
    /// A seat target.
    pub fn seat(seat: Seat) -> Target {
        Target::Seat(SeatTarget { seat })
    }
}

/// A player's command (docs/scenarios.md, "Commands").
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Play a path card into the maze (§3.1).
    PlayPath {
        /// The path card from the hand.
        card: Card,
        /// The empty cell to place it on.
        at: Cell,
        /// Whether it is turned 180°.
        #[serde(default)]
        rotated: bool,
    },
    /// Play an action card (§3.2, §4, §9.4).
    PlayAction {
        /// The action card from the hand.
        card: Card,
        /// A seat or a cell, as the card needs; none for Theft.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<Target>,
        /// For a double repair card: which of its two tools it repairs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<Tool>,
    },
    /// Pass, discarding face down (§3.3; `saboteur2` §9.2: 1 to 3 cards).
    Pass {
        /// The discarded cards.
        #[serde(default)]
        discard: Vec<Card>,
    },
    /// Discard two cards to remove one card lying in front of oneself (`saboteur2` §9.2).
    DiscardToRemove {
        /// The two discarded cards.
        discard: Vec<Card>,
        /// The card in front of the player to remove.
        remove: Card,
    },
    /// Keep one of the gold cards offered (§7.1).
    ChooseGold {
        /// The gold card kept.
        card: Card,
    },
    /// Resolve one's Theft at the end of the round (§9.4): a seat, or `null` to steal nothing.
    Steal {
        /// The robbed seat, or none.
        #[serde(default)]
        from: Option<Seat>,
    },
}

impl Command {
    /// The same command with redundant parts dropped: a single repair card's `tool` when it
    /// names the card's own tool, and the order of discarded cards. Two commands with the same canonical form have the same
    /// effect; legal-move listings contain canonical forms.
    pub fn canonical(&self) -> Command {
        let sorted = |cards: &Vec<Card>| {
            let mut v = cards.clone();
            v.sort_unstable();
            v
        };
        match self {
            Command::Pass { discard } => Command::Pass {
                discard: sorted(discard),
            },
            Command::DiscardToRemove { discard, remove } => Command::DiscardToRemove {
                discard: sorted(discard),
                remove: *remove,
            },
            Command::PlayAction {
                card,
                target,
                tool: Some(t),
            } => match card.action() {
                Some(crate::cards::Action::Repair(a, None)) if a == *t => Command::PlayAction {
                    card: *card,
                    target: *target,
                    tool: None,
                },
                _ => self.clone(),
            },
            _ => self.clone(),
        }
    }
}
