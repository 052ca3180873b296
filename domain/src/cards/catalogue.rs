//! The card catalogue (docs/cards.md) as one data table, and the shapes of path cards (§1.2).
//!
//! A correction to a card is a one-line change in [`CATALOGUE`].

use super::card::{Action, Card, CardSpec, Kind, Ruleset, Segment, Shape, Team, Tool};
use crate::geometry::Edges;

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
}
