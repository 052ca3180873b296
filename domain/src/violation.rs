//! Rule violations: why a command was rejected, with the stable codes of docs/scenarios.md.

use serde::{Deserialize, Serialize};

/// The stable rule-violation codes (docs/scenarios.md), in the table's order: when a command breaks
/// several rules, the first in this order is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Violation {
    /// The game has ended.
    GameOver,
    /// Another player must act.
    NotYourTurn,
    /// The command does not fit the current phase.
    WrongPhase,
    /// The player does not hold that card.
    CardNotInHand,
    /// The card is of the wrong kind for the command.
    WrongCardKind,
    /// The player has a broken tool and cannot play a path card.
    ToolsBroken,
    /// The player is trapped.
    Trapped,
    /// The cell holds a card, the start or a goal.
    CellOccupied,
    /// An edge does not match a face-up neighbour.
    EdgesMismatch,
    /// No segment of the new card connects to the start.
    NotConnected,
    /// A ladder next to a goal, or touching no card.
    LadderPlacement,
    /// A seat or target that does not exist or may not be chosen.
    InvalidTarget,
    /// That tool is already broken in front of the target.
    ToolAlreadyBroken,
    /// No matching broken tool in front of the target.
    NothingToRepair,
    /// Rockfall on an empty cell, the start or a goal.
    NotATunnel,
    /// Map on a cell that is not a face-down goal.
    NotAHiddenGoal,
    /// The target already has that kind of action card in front.
    AlreadyInFront,
    /// Nothing to remove.
    NothingToRemove,
    /// Wrong number of cards to discard.
    InvalidDiscard,
    /// Swap hats with no dwarf card left.
    DwarfPileEmpty,
    /// A gold card that is not among those offered.
    NotOffered,
}

impl Violation {
    /// Every violation, in the table's order.
    pub const ALL: [Violation; 21] = [
        Violation::GameOver,
        Violation::NotYourTurn,
        Violation::WrongPhase,
        Violation::CardNotInHand,
        Violation::WrongCardKind,
        Violation::ToolsBroken,
        Violation::Trapped,
        Violation::CellOccupied,
        Violation::EdgesMismatch,
        Violation::NotConnected,
        Violation::LadderPlacement,
        Violation::InvalidTarget,
        Violation::ToolAlreadyBroken,
        Violation::NothingToRepair,
        Violation::NotATunnel,
        Violation::NotAHiddenGoal,
        Violation::AlreadyInFront,
        Violation::NothingToRemove,
        Violation::InvalidDiscard,
        Violation::DwarfPileEmpty,
        Violation::NotOffered,
    ];

    /// The stable code, e.g. `"edges_mismatch"`.
    pub fn code(self) -> &'static str {
        match self {
            Violation::GameOver => "game_over",
            Violation::NotYourTurn => "not_your_turn",
            Violation::WrongPhase => "wrong_phase",
            Violation::CardNotInHand => "card_not_in_hand",
            Violation::WrongCardKind => "wrong_card_kind",
            Violation::ToolsBroken => "tools_broken",
            Violation::Trapped => "trapped",
            Violation::CellOccupied => "cell_occupied",
            Violation::EdgesMismatch => "edges_mismatch",
            Violation::NotConnected => "not_connected",
            Violation::LadderPlacement => "ladder_placement",
            Violation::InvalidTarget => "invalid_target",
            Violation::ToolAlreadyBroken => "tool_already_broken",
            Violation::NothingToRepair => "nothing_to_repair",
            Violation::NotATunnel => "not_a_tunnel",
            Violation::NotAHiddenGoal => "not_a_hidden_goal",
            Violation::AlreadyInFront => "already_in_front",
            Violation::NothingToRemove => "nothing_to_remove",
            Violation::InvalidDiscard => "invalid_discard",
            Violation::DwarfPileEmpty => "dwarf_pile_empty",
            Violation::NotOffered => "not_offered",
        }
    }
}

/// A rejected command: the stable code and a sentence saying what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{detail}")]
pub struct RuleViolation {
    /// The rule broken.
    pub violation: Violation,
    /// What was wrong, in plain words.
    pub detail: String,
}

impl RuleViolation {
    /// A violation with its explanation.
    pub fn new(violation: Violation, detail: impl Into<String>) -> Self {
        RuleViolation {
            violation,
            detail: detail.into(),
        }
    }

    /// The stable code.
    pub fn code(&self) -> &'static str {
        self.violation.code()
    }
}

/// Why a game could not be created or a position not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The ruleset does not allow that many players.
    #[error("{ruleset} is played by {min} to {max} players, not {players}")]
    PlayerCount {
        /// The ruleset's name.
        ruleset: &'static str,
        /// The requested count.
        players: usize,
        /// The fewest allowed.
        min: usize,
        /// The most allowed.
        max: usize,
    },
    /// The first player is not a seat of the game.
    #[error("first player {0} is not a seat of the game")]
    FirstPlayer(u8),
    /// The table's settings cannot be used (a clock out of range, abandonment without a clock).
    #[error("{0}")]
    Settings(String),
    /// No such rules version (docs/rules.md §13).
    #[error("rules version {0} does not exist: versions run from 1 to {max}", max = crate::options::RULES_VERSION)]
    RulesVersion(u8),
    /// A per-seat list does not have one entry per seat.
    #[error("`{field}` must have one entry per seat ({players}), not {len}")]
    PerSeat {
        /// The list's name.
        field: &'static str,
        /// The number of seats.
        players: usize,
        /// Its length.
        len: usize,
    },
    /// A card is not of the kind the place needs.
    #[error("{card} cannot be used as {place}")]
    WrongCard {
        /// The card.
        card: crate::cards::Card,
        /// Where it was given.
        place: &'static str,
    },
    /// The round number is out of range.
    #[error("round must be 1, 2 or 3, not {0}")]
    Round(u8),
}
