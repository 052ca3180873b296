//! The card catalogue (docs/cards.md) as one data table, and the shapes of path cards (§1.2).
//!
//! A correction to a card is a one-line change in [`CATALOGUE`].

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

const fn seg(edges: u8) -> Segment {
    Segment {
        edges: Edges(edges),
        door: None,
    }
}
const fn door(edges: u8, team: Team) -> Segment {
    Segment {
        edges: Edges(edges),
        door: Some(team),
    }
}
const fn shape(segments: &'static [Segment]) -> Shape {
    Shape {
        segments,
        ladder: false,
        crystals: 0,
    }
}
const fn ladder(segments: &'static [Segment]) -> Shape {
    Shape {
        segments,
        ladder: true,
        crystals: 0,
    }
}
const fn crystal(segments: &'static [Segment]) -> Shape {
    Shape {
        segments,
        ladder: false,
        crystals: 1,
    }
}
const fn path(card: Card, shape: Shape, count: u8, set: Ruleset) -> CardSpec {
    CardSpec {
        card,
        kind: Kind::Path(shape),
        count,
        set,
    }
}
const fn action(card: Card, action: Action, count: u8, set: Ruleset) -> CardSpec {
    CardSpec {
        card,
        kind: Kind::Action(action),
        count,
        set,
    }
}

// Openings as bits: N = 1, E = 2, S = 4, W = 8.
const N: u8 = 1;
const E: u8 = 2;
const S: u8 = 4;
const W: u8 = 8;
use Ruleset::{Base as B, Saboteur2 as X};
use Tool::{Cart, Lantern, Pickaxe};

/// The whole catalogue, in the order of [`Card`]'s variants.
pub static CATALOGUE: &[CardSpec] = &[
    CardSpec {
        card: Card::Start,
        kind: Kind::Start(shape(&[seg(N | E | S | W)])),
        count: 1,
        set: B,
    },
    CardSpec {
        card: Card::GoalGold,
        kind: Kind::Goal(shape(&[seg(N | E | S | W)]), true),
        count: 1,
        set: B,
    },
    CardSpec {
        card: Card::GoalStoneNe,
        kind: Kind::Goal(shape(&[seg(N | E)]), false),
        count: 1,
        set: B,
    },
    CardSpec {
        card: Card::GoalStoneNw,
        kind: Kind::Goal(shape(&[seg(N | W)]), false),
        count: 1,
        set: B,
    },
    path(Card::TunnelEw, shape(&[seg(E | W)]), 3, B),
    path(Card::TunnelNs, shape(&[seg(N | S)]), 4, B),
    path(Card::TunnelNe, shape(&[seg(N | E)]), 5, B),
    path(Card::TunnelNw, shape(&[seg(N | W)]), 4, B),
    path(Card::TunnelNew, shape(&[seg(N | E | W)]), 5, B),
    path(Card::TunnelNes, shape(&[seg(N | E | S)]), 5, B),
    path(Card::TunnelNesw, shape(&[seg(N | E | S | W)]), 5, B),
    path(Card::DeadendN, shape(&[seg(N)]), 1, B),
    path(Card::DeadendE, shape(&[seg(E)]), 1, B),
    path(Card::DeadendNs, shape(&[seg(N), seg(S)]), 1, B),
    path(Card::DeadendEw, shape(&[seg(E), seg(W)]), 1, B),
    path(Card::DeadendNe, shape(&[seg(N), seg(E)]), 1, B),
    path(Card::DeadendNw, shape(&[seg(N), seg(W)]), 1, B),
    path(Card::DeadendNew, shape(&[seg(N), seg(E), seg(W)]), 1, B),
    path(Card::DeadendNes, shape(&[seg(N), seg(E), seg(S)]), 1, B),
    path(
        Card::DeadendNesw,
        shape(&[seg(N), seg(E), seg(S), seg(W)]),
        1,
        B,
    ),
    action(Card::BreakPickaxe, Action::Break(Pickaxe), 3, B),
    action(Card::BreakLantern, Action::Break(Lantern), 3, B),
    action(Card::BreakCart, Action::Break(Cart), 3, B),
    action(Card::RepairPickaxe, Action::Repair(Pickaxe, None), 2, B),
    action(Card::RepairLantern, Action::Repair(Lantern, None), 2, B),
    action(Card::RepairCart, Action::Repair(Cart, None), 2, B),
    action(
        Card::RepairPickaxeLantern,
        Action::Repair(Pickaxe, Some(Lantern)),
        1,
        B,
    ),
    action(
        Card::RepairPickaxeCart,
        Action::Repair(Pickaxe, Some(Cart)),
        1,
        B,
    ),
    action(
        Card::RepairLanternCart,
        Action::Repair(Lantern, Some(Cart)),
        1,
        B,
    ),
    action(Card::Map, Action::Map, 6, B),
    action(Card::Rockfall, Action::Rockfall, 3, B),
    CardSpec {
        card: Card::Gold1,
        kind: Kind::Gold(1),
        count: 16,
        set: B,
    },
    CardSpec {
        card: Card::Gold2,
        kind: Kind::Gold(2),
        count: 8,
        set: B,
    },
    CardSpec {
        card: Card::Gold3,
        kind: Kind::Gold(3),
        count: 4,
        set: B,
    },
    path(Card::Bridge, shape(&[seg(N | S), seg(E | W)]), 2, X),
    path(Card::DoubleCurve, shape(&[seg(N | W), seg(E | S)]), 2, X),
    path(Card::LadderS, ladder(&[seg(S)]), 1, X),
    path(Card::LadderE, ladder(&[seg(E)]), 1, X),
    path(Card::LadderNe, ladder(&[seg(N | E)]), 1, X),
    path(Card::LadderNw, ladder(&[seg(N | W)]), 1, X),
    path(Card::DoorBlueNs, shape(&[door(N | S, Team::Blue)]), 1, X),
    path(Card::DoorBlueEw, shape(&[door(E | W, Team::Blue)]), 1, X),
    path(Card::DoorBlueNe, shape(&[door(N | E, Team::Blue)]), 1, X),
    path(
        Card::DoorGreenNes,
        shape(&[door(N | S, Team::Green), seg(E)]),
        1,
        X,
    ),
    path(Card::DoorGreenEw, shape(&[door(E | W, Team::Green)]), 1, X),
    path(Card::DoorGreenNw, shape(&[door(N | W, Team::Green)]), 1, X),
    path(Card::CrystalDeadendN, crystal(&[seg(N)]), 1, X),
    path(Card::CrystalDeadendE, crystal(&[seg(E)]), 1, X),
    path(
        Card::CrystalTunnelNesw,
        crystal(&[seg(N | E | S | W)]),
        2,
        X,
    ),
    path(Card::CrystalTunnelNew, crystal(&[seg(N | E | W)]), 3, X),
    path(Card::CrystalTunnelNes, crystal(&[seg(N | E | S)]), 2, X),
    path(
        Card::CrystalSplitNesW,
        crystal(&[seg(N | E | S), seg(W)]),
        1,
        X,
    ),
    path(
        Card::CrystalSplitNewS,
        crystal(&[seg(N | E | W), seg(S)]),
        1,
        X,
    ),
    path(Card::CrystalSplitEwN, crystal(&[seg(E | W), seg(N)]), 1, X),
    path(Card::CrystalTunnelNs, crystal(&[seg(N | S)]), 1, X),
    path(Card::CrystalTunnelEw, crystal(&[seg(E | W)]), 1, X),
    path(Card::CrystalTunnelNe, crystal(&[seg(N | E)]), 1, X),
    path(Card::CrystalTunnelNw, crystal(&[seg(N | W)]), 1, X),
    action(Card::Theft, Action::Theft, 4, X),
    action(Card::HandsOff, Action::HandsOff, 3, X),
    action(Card::SwapHand, Action::SwapHand, 2, X),
    action(Card::Inspection, Action::Inspection, 2, X),
    action(Card::SwapHats, Action::SwapHats, 2, X),
    action(Card::Trapped, Action::Trapped, 3, X),
    action(Card::FreeAtLast, Action::FreeAtLast, 4, X),
];

impl Card {
    /// The card's row in the catalogue.
    pub fn spec(self) -> &'static CardSpec {
        &CATALOGUE[self as usize]
    }

    /// What kind of card this is.
    pub fn kind(self) -> Kind {
        self.spec().kind
    }

    /// The shape of a card that lies in the maze (start, goal, path card).
    pub fn shape(self) -> Option<&'static Shape> {
        match &self.spec().kind {
            Kind::Start(s) | Kind::Goal(s, _) | Kind::Path(s) => Some(s),
            Kind::Action(_) | Kind::Gold(_) => None,
        }
    }

    /// The shape of a path card that players place.
    pub fn path_shape(self) -> Option<&'static Shape> {
        match &self.spec().kind {
            Kind::Path(s) => Some(s),
            _ => None,
        }
    }

    /// What an action card does.
    pub fn action(self) -> Option<Action> {
        match self.kind() {
            Kind::Action(a) => Some(a),
            _ => None,
        }
    }

    /// The value of a gold card in nuggets.
    pub fn gold_value(self) -> Option<u8> {
        match self.kind() {
            Kind::Gold(v) => Some(v),
            _ => None,
        }
    }

    /// The identifier as written in docs/cards.md.
    pub fn id(self) -> &'static str {
        CARD_IDS[self as usize]
    }
}

impl std::fmt::Display for Card {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

static CARD_IDS: &[&str] = &[
    "start",
    "goal_gold",
    "goal_stone_ne",
    "goal_stone_nw",
    "tunnel_ew",
    "tunnel_ns",
    "tunnel_ne",
    "tunnel_nw",
    "tunnel_new",
    "tunnel_nes",
    "tunnel_nesw",
    "deadend_n",
    "deadend_e",
    "deadend_ns",
    "deadend_ew",
    "deadend_ne",
    "deadend_nw",
    "deadend_new",
    "deadend_nes",
    "deadend_nesw",
    "break_pickaxe",
    "break_lantern",
    "break_cart",
    "repair_pickaxe",
    "repair_lantern",
    "repair_cart",
    "repair_pickaxe_lantern",
    "repair_pickaxe_cart",
    "repair_lantern_cart",
    "map",
    "rockfall",
    "gold_1",
    "gold_2",
    "gold_3",
    "bridge",
    "double_curve",
    "ladder_s",
    "ladder_e",
    "ladder_ne",
    "ladder_nw",
    "door_blue_ns",
    "door_blue_ew",
    "door_blue_ne",
    "door_green_nes",
    "door_green_ew",
    "door_green_nw",
    "crystal_deadend_n",
    "crystal_deadend_e",
    "crystal_tunnel_nesw",
    "crystal_tunnel_new",
    "crystal_tunnel_nes",
    "crystal_split_nes_w",
    "crystal_split_new_s",
    "crystal_split_ew_n",
    "crystal_tunnel_ns",
    "crystal_tunnel_ew",
    "crystal_tunnel_ne",
    "crystal_tunnel_nw",
    "theft",
    "hands_off",
    "swap_hand",
    "inspection",
    "swap_hats",
    "trapped",
    "free_at_last",
];

/// The cards of the draw pile for a ruleset (path and action cards), each as often as it exists,
/// in catalogue order.
pub fn deck(ruleset: Ruleset) -> Vec<Card> {
    CATALOGUE
        .iter()
        .filter(|s| matches!(s.kind, Kind::Path(_) | Kind::Action(_)))
        .filter(|s| s.set == Ruleset::Base || ruleset == Ruleset::Saboteur2)
        .flat_map(|s| std::iter::repeat_n(s.card, s.count as usize))
        .collect()
}

/// The 28 gold cards of the base game, in catalogue order (§2).
pub fn gold_cards() -> Vec<Card> {
    CATALOGUE
        .iter()
        .filter(|s| matches!(s.kind, Kind::Gold(_)))
        .flat_map(|s| std::iter::repeat_n(s.card, s.count as usize))
        .collect()
}

/// The three goal cards (§2).
pub const GOALS: [Card; 3] = [Card::GoalGold, Card::GoalStoneNe, Card::GoalStoneNw];

/// The dwarf cards dealt for a player count (§2, §9.1): one more than the players in the base
/// game (all eleven with ten players), all fifteen in `saboteur2`.
pub fn role_set(ruleset: Ruleset, players: usize) -> Option<Vec<Role>> {
    let (saboteurs, diggers) = match (ruleset, players) {
        (Ruleset::Base, 3) => (1, 3),
        (Ruleset::Base, 4) => (1, 4),
        (Ruleset::Base, 5) => (2, 4),
        (Ruleset::Base, 6) => (2, 5),
        (Ruleset::Base, 7) => (3, 5),
        (Ruleset::Base, 8) => (3, 6),
        (Ruleset::Base, 9) => (3, 7),
        (Ruleset::Base, 10) => (4, 7),
        (Ruleset::Saboteur2, 2..=12) => {
            let mut roles = Vec::with_capacity(15);
            roles.extend([Role::GreenDigger; 4]);
            roles.extend([Role::BlueDigger; 4]);
            roles.push(Role::Boss);
            roles.extend([Role::Geologist; 2]);
            roles.push(Role::Profiteer);
            roles.extend([Role::Saboteur; 3]);
            return Some(roles);
        }
        _ => return None,
    };
    let mut roles = vec![Role::GoldDigger; diggers];
    roles.extend(std::iter::repeat_n(Role::Saboteur, saboteurs));
    Some(roles)
}

/// Cards in each hand at the start of a round (§2, §9.1).
pub fn hand_size(ruleset: Ruleset, players: usize) -> usize {
    match (ruleset, players) {
        (Ruleset::Saboteur2, _) => 6,
        (Ruleset::Base, 0..=5) => 6,
        (Ruleset::Base, 6 | 7) => 5,
        (Ruleset::Base, _) => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_rows_follow_the_enum_order_and_ids_round_trip() {
        for (i, spec) in CATALOGUE.iter().enumerate() {
            assert_eq!(spec.card as usize, i, "row {i} is out of order");
        }
        assert_eq!(CARD_IDS.len(), CATALOGUE.len());
        for spec in CATALOGUE {
            let json = serde_json::to_string(&spec.card).unwrap();
            assert_eq!(json, format!("\"{}\"", spec.card.id()));
        }
    }

    #[test]
    fn card_counts_match_cards_md() {
        let base = deck(Ruleset::Base);
        let paths = base.iter().filter(|c| c.path_shape().is_some()).count();
        assert_eq!(paths, 40);
        assert_eq!(base.len() - paths, 27);
        let all = deck(Ruleset::Saboteur2);
        let paths2 = all.iter().filter(|c| c.path_shape().is_some()).count();
        assert_eq!(paths2 - paths, 30);
        assert_eq!(all.len() - paths2 - 27, 20);
        assert_eq!(gold_cards().len(), 28);
        let nuggets: u32 = gold_cards()
            .iter()
            .map(|c| c.gold_value().unwrap() as u32)
            .sum();
        assert_eq!(nuggets, 16 + 16 + 12);
    }

    #[test]
    fn identifiers_spell_their_openings() {
        for spec in CATALOGUE {
            let Kind::Path(shape) = spec.kind else {
                continue;
            };
            let id = spec.card.id();
            let Some(dirs) = id.strip_prefix("tunnel_").or(id.strip_prefix("deadend_")) else {
                continue;
            };
            let want = dirs.chars().fold(Edges::NONE, |e, c| {
                e.with(match c {
                    'n' => Edges::N,
                    'e' => Edges::E,
                    's' => Edges::S,
                    _ => Edges::W,
                })
            });
            assert_eq!(shape.openings(), want, "{id}");
            if shape.openings().0.count_ones() > 1 {
                let joined = shape.segments.len() == 1;
                assert_eq!(joined, id.starts_with("tunnel_"), "{id}");
            }
        }
    }

    #[test]
    fn role_sets_leave_one_card_over_in_the_base_game() {
        for players in 3..=9 {
            assert_eq!(role_set(Ruleset::Base, players).unwrap().len(), players + 1);
        }
        assert_eq!(role_set(Ruleset::Base, 10).unwrap().len(), 11);
        assert!(role_set(Ruleset::Base, 2).is_none());
        assert_eq!(role_set(Ruleset::Saboteur2, 12).unwrap().len(), 15);
    }
}
