//! The card vocabulary: [`Card`] (every docs/cards.md identifier), [`Role`], [`Tool`], [`Team`],
//! [`Ruleset`], and what a card is: its [`Kind`], a path card's [`Shape`], an [`Action`].

use serde::{Deserialize, Serialize};

use crate::geometry::{Edges, Side};

/// Which rule set a card or a game belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Ruleset {
    /// The base game, 3–10 players (§2–§8).
    Base,
    /// The base game with the Saboteur 2 expansion, 2–12 players (§9–§10).
    Saboteur2,
}

/// A tool that can be broken and repaired (§4.1, §4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    /// The pickaxe.
    Pickaxe,
    /// The lantern.
    Lantern,
    /// The mine cart.
    Cart,
}

/// The colour of a team and of its doors (§9.3, §10.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Team {
    /// The green team.
    Green,
    /// The blue team.
    Blue,
}

/// A dwarf card: the secret role a player holds for one round (§2, §9.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A gold-digger (base game).
    GoldDigger,
    /// A saboteur (both rulesets).
    Saboteur,
    /// A gold-digger of the green team (`saboteur2`).
    GreenDigger,
    /// A gold-digger of the blue team (`saboteur2`).
    BlueDigger,
    /// The boss, who wins with either team (`saboteur2`).
    Boss,
    /// A geologist, paid for crystals (`saboteur2`).
    Geologist,
    /// The profiteer, who always wins (`saboteur2`).
    Profiteer,
}

/// Every card identifier of docs/cards.md: the public vocabulary of the API, events and fixtures.
#[allow(missing_docs)] // each variant is the docs/cards.md identifier it serialises to
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Card {
    Start,
    GoalGold,
    GoalStoneNe,
    GoalStoneNw,
    TunnelEw,
    TunnelNs,
    TunnelNe,
    TunnelNw,
    TunnelNew,
    TunnelNes,
    TunnelNesw,
    DeadendN,
    DeadendE,
    DeadendNs,
    DeadendEw,
    DeadendNe,
    DeadendNw,
    DeadendNew,
    DeadendNes,
    DeadendNesw,
    BreakPickaxe,
    BreakLantern,
    BreakCart,
    RepairPickaxe,
    RepairLantern,
    RepairCart,
    RepairPickaxeLantern,
    RepairPickaxeCart,
    RepairLanternCart,
    Map,
    Rockfall,
    #[serde(rename = "gold_1")]
    Gold1,
    #[serde(rename = "gold_2")]
    Gold2,
    #[serde(rename = "gold_3")]
    Gold3,
    Bridge,
    DoubleCurve,
    LadderS,
    LadderE,
    LadderNe,
    LadderNw,
    DoorBlueNs,
    DoorBlueEw,
    DoorBlueNe,
    DoorGreenNes,
    DoorGreenEw,
    DoorGreenNw,
    CrystalDeadendN,
    CrystalDeadendE,
    CrystalTunnelNesw,
    CrystalTunnelNew,
    CrystalTunnelNes,
    CrystalSplitNesW,
    CrystalSplitNewS,
    CrystalSplitEwN,
    CrystalTunnelNs,
    CrystalTunnelEw,
    CrystalTunnelNe,
    CrystalTunnelNw,
    Theft,
    HandsOff,
    SwapHand,
    Inspection,
    SwapHats,
    Trapped,
    FreeAtLast,
}

/// One segment of a path card: openings joined through the card's centre (§1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// The openings of this segment, upright.
    pub edges: Edges,
    /// The colour of the door on this segment, if any (`saboteur2`, §9.3).
    pub door: Option<Team>,
}

/// The shape of a card that lies in the maze: start, goals and path cards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// The card's segments, upright.
    pub segments: &'static [Segment],
    /// Whether the card is a ladder, whose segment is a root (§9.3).
    pub ladder: bool,
    /// How many crystals the card shows (§9.3).
    pub crystals: u8,
}

impl Shape {
    /// Every opening of the card, upright.
    pub fn openings(&self) -> Edges {
        self.segments
            .iter()
            .fold(Edges::NONE, |a, s| a.with(s.edges))
    }

    /// Whether the card is open on `side` when lying in the given orientation.
    pub fn open(&self, rotated: bool, side: Side) -> bool {
        self.openings().oriented(rotated).has(side)
    }

    /// The index of the segment holding the opening on `side`, in the given orientation.
    pub fn segment_on(&self, rotated: bool, side: Side) -> Option<usize> {
        self.segments
            .iter()
            .position(|s| s.edges.oriented(rotated).has(side))
    }
}

/// What an action card does (§4, §9.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Breaks a tool (§4.1).
    Break(Tool),
    /// Repairs one of the named tools (§4.2); the second is for double repair cards.
    Repair(Tool, Option<Tool>),
    /// Removes a path card from the maze (§4.3).
    Rockfall,
    /// Looks at a face-down goal (§4.4).
    Map,
    /// Steals a coin at the end of the round (§9.4).
    Theft,
    /// Removes a Theft card (§9.4).
    HandsOff,
    /// Exchanges hands with another player (§9.4).
    SwapHand,
    /// Looks at a player's dwarf card (§9.4).
    Inspection,
    /// Makes a player take a new dwarf card (§9.4).
    SwapHats,
    /// Traps a player (§9.4).
    Trapped,
    /// Frees a trapped player (§9.4).
    FreeAtLast,
}

impl Action {
    /// Whether the action card stays in front of its target until removed.
    pub fn stays_in_front(self) -> bool {
        matches!(self, Action::Break(_) | Action::Theft | Action::Trapped)
    }
}

/// What kind of card a [`Card`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The start card.
    Start(Shape),
    /// A goal card; `true` for the gold.
    Goal(Shape, bool),
    /// A path card that players place (§3.1).
    Path(Shape),
    /// An action card (§3.2).
    Action(Action),
    /// A gold card of the given value in nuggets (§7).
    Gold(u8),
}

/// One row of the catalogue.
#[derive(Debug, Clone, Copy)]
pub struct CardSpec {
    /// The card's identifier.
    pub card: Card,
    /// What the card is.
    pub kind: Kind,
    /// How many copies the game has.
    pub count: u8,
    /// The rule set that brings the card: [`Ruleset::Base`] cards are in both.
    pub set: Ruleset,
}
