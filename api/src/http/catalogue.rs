//! The card catalogue, as clients draw it: every card of each ruleset with its shape, every
//! action card with what it targets, every role with how many are dealt. Derived from the
//! engine's own table ([`saboteur_domain::cards::CATALOGUE`]), never a second copy.

use actix_web::{HttpResponse, get};
use saboteur_domain::cards::{Action, CATALOGUE, CardSpec, Kind, Shape, hand_size, role_set};
use saboteur_domain::{Card, Role, Ruleset, Side, Team, Tool};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(catalogue);
}

/// The catalogue of both rulesets.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Catalogue {
    /// One entry per ruleset: `base`, then `saboteur2`.
    pub rulesets: Vec<RulesetCatalogue>,
}

/// The cards and roles of one ruleset.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RulesetCatalogue {
    /// The ruleset.
    pub ruleset: Ruleset,
    /// Every card used by the ruleset (start, goals, path, action and gold cards).
    pub cards: Vec<CardEntry>,
    /// Every role of the ruleset with how many dwarf cards are dealt per player count.
    pub roles: Vec<RoleEntry>,
    /// The cards in each hand at the start of a round, per player count.
    pub hand_sizes: Vec<PerPlayers>,
}

/// What kind of card a card is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CardKind {
    /// The start card.
    Start,
    /// A goal card.
    Goal,
    /// A path card that players place.
    Path,
    /// An action card.
    Action,
    /// A gold card.
    Gold,
}

/// A side of a card, upright: north is up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Opening {
    /// North (up).
    N,
    /// East (right).
    E,
    /// South (down).
    S,
    /// West (left).
    W,
}

/// One segment of a card in the maze: openings joined through the card's centre.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SegmentEntry {
    /// The openings of the segment, upright.
    pub openings: Vec<Opening>,
    /// The colour of the door on this segment, if any (`saboteur2`).
    #[schema(required = true)]
    pub door: Option<Team>,
    /// Whether the segment ends inside the card (a single opening that is not a ladder).
    pub dead_end: bool,
}

/// What an action card targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActionTarget {
    /// A player: `{"seat": n}`.
    Player,
    /// A path card in the maze: a cell.
    Cell,
    /// A face-down goal: a goal cell.
    Goal,
}

/// What an action card does.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ActionEntry {
    /// The effect: `break`, `repair`, `rockfall`, `map`, `theft`, `hands_off`, `swap_hand`,
    /// `inspection`, `swap_hats`, `trapped` or `free_at_last`.
    pub effect: String,
    /// The tools a break or repair card shows.
    pub tools: Vec<Tool>,
    /// What the card is played on.
    pub target: ActionTarget,
    /// Whether the card stays in front of its target until removed.
    pub stays_in_front: bool,
}

/// One card of the catalogue.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CardEntry {
    /// The card's identifier (docs/cards.md).
    pub card: Card,
    /// What kind of card it is.
    pub kind: CardKind,
    /// How many copies the ruleset has.
    pub count: u8,
    /// The ruleset that brings the card (`base` cards are in both).
    pub set: Ruleset,
    /// Every opening of a card in the maze, upright (empty for action and gold cards).
    pub openings: Vec<Opening>,
    /// The segments of a card in the maze, upright.
    pub segments: Vec<SegmentEntry>,
    /// How many segments end inside the card.
    pub dead_ends: u8,
    /// The colours of the card's doors.
    pub doors: Vec<Team>,
    /// Whether the card is a ladder.
    pub ladder: bool,
    /// How many crystals the card shows.
    pub crystals: u8,
    /// For a goal card: whether it is the gold.
    #[schema(required = true)]
    pub gold: Option<bool>,
    /// For an action card: what it does and targets.
    #[schema(required = true)]
    pub action: Option<ActionEntry>,
    /// For a gold card: its value in nuggets.
    #[schema(required = true)]
    pub value: Option<u8>,
}

/// A number per player count.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PerPlayers {
    /// The player count.
    pub players: u8,
    /// The number.
    pub count: u8,
}

/// A role and how many of its dwarf cards are dealt for each player count.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RoleEntry {
    /// The role.
    pub role: Role,
    /// Its dwarf cards per player count.
    pub dealt: Vec<PerPlayers>,
}

fn openings(edges: saboteur_domain::Edges) -> Vec<Opening> {
    [
        (Side::N, Opening::N),
        (Side::E, Opening::E),
        (Side::S, Opening::S),
        (Side::W, Opening::W),
    ]
    .into_iter()
    .filter(|(side, _)| edges.has(*side))
    .map(|(_, o)| o)
    .collect()
}

fn action_entry(action: Action) -> ActionEntry {
    let (effect, tools, target) = match action {
        Action::Break(t) => ("break", vec![t], ActionTarget::Player),
        Action::Repair(t, u) => (
            "repair",
            std::iter::once(t).chain(u).collect(),
            ActionTarget::Player,
        ),
        Action::Rockfall => ("rockfall", vec![], ActionTarget::Cell),
        Action::Map => ("map", vec![], ActionTarget::Goal),
        Action::Theft => ("theft", vec![], ActionTarget::Player),
        Action::HandsOff => ("hands_off", vec![], ActionTarget::Player),
        Action::SwapHand => ("swap_hand", vec![], ActionTarget::Player),
        Action::Inspection => ("inspection", vec![], ActionTarget::Player),
        Action::SwapHats => ("swap_hats", vec![], ActionTarget::Player),
        Action::Trapped => ("trapped", vec![], ActionTarget::Player),
        Action::FreeAtLast => ("free_at_last", vec![], ActionTarget::Player),
    };
    ActionEntry {
        effect: effect.into(),
        tools,
        target,
        stays_in_front: action.stays_in_front(),
    }
}

fn card_entry(spec: &CardSpec) -> CardEntry {
    let (kind, shape, gold, action, value): (_, Option<&Shape>, _, _, _) = match &spec.kind {
        Kind::Start(s) => (CardKind::Start, Some(s), None, None, None),
        Kind::Goal(s, g) => (CardKind::Goal, Some(s), Some(*g), None, None),
        Kind::Path(s) => (CardKind::Path, Some(s), None, None, None),
        Kind::Action(a) => (CardKind::Action, None, None, Some(action_entry(*a)), None),
        Kind::Gold(v) => (CardKind::Gold, None, None, None, Some(*v)),
    };
    let segments: Vec<SegmentEntry> = shape
        .map(|s| {
            s.segments
                .iter()
                .map(|seg| {
                    let o = openings(seg.edges);
                    SegmentEntry {
                        dead_end: o.len() == 1 && !s.ladder,
                        openings: o,
                        door: seg.door,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    CardEntry {
        card: spec.card,
        kind,
        count: spec.count,
        set: spec.set,
        openings: shape.map(|s| openings(s.openings())).unwrap_or_default(),
        dead_ends: segments.iter().filter(|s| s.dead_end).count() as u8,
        doors: segments.iter().filter_map(|s| s.door).collect(),
        ladder: shape.is_some_and(|s| s.ladder),
        crystals: shape.map(|s| s.crystals).unwrap_or(0),
        segments,
        gold,
        action,
        value,
    }
}

fn player_counts(ruleset: Ruleset) -> std::ops::RangeInclusive<u8> {
    match ruleset {
        Ruleset::Base => 3..=10,
        Ruleset::Saboteur2 => 2..=12,
    }
}

fn ruleset_catalogue(ruleset: Ruleset) -> RulesetCatalogue {
    let cards = CATALOGUE
        .iter()
        .filter(|s| s.set == Ruleset::Base || ruleset == Ruleset::Saboteur2)
        // The base game's gold cards are not used in `saboteur2` (§9.5).
        .filter(|s| !(ruleset == Ruleset::Saboteur2 && matches!(s.kind, Kind::Gold(_))))
        .map(card_entry)
        .collect();
    let mut roles: Vec<RoleEntry> = Vec::new();
    for players in player_counts(ruleset) {
        for role in role_set(ruleset, players as usize).unwrap_or_default() {
            if !roles.iter().any(|r| r.role == role) {
                roles.push(RoleEntry {
                    role,
                    dealt: vec![],
                });
            }
            let Some(entry) = roles.iter_mut().find(|r| r.role == role) else {
                continue;
            };
            match entry.dealt.last_mut() {
                Some(p) if p.players == players => p.count += 1,
                _ => entry.dealt.push(PerPlayers { players, count: 1 }),
            }
        }
    }
    let hand_sizes = player_counts(ruleset)
        .map(|players| PerPlayers {
            players,
            count: hand_size(ruleset, players as usize) as u8,
        })
        .collect();
    RulesetCatalogue {
        ruleset,
        cards,
        roles,
        hand_sizes,
    }
}

/// The whole catalogue.
pub fn build() -> Catalogue {
    Catalogue {
        rulesets: vec![
            ruleset_catalogue(Ruleset::Base),
            ruleset_catalogue(Ruleset::Saboteur2),
        ],
    }
}

/// Read the card catalogue
///
/// Every card of each ruleset (kind, count, openings, segments, dead ends, doors, ladders,
/// crystals), every action card with what it targets, and every role with how many are dealt
/// per player count: enough to draw any card from its segments.
#[utoipa::path(
    tag = "catalogue",
    responses(
        (status = 200, description = "The catalogue", body = Catalogue),
        (status = 500, description = "Internal error", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/catalogue")]
async fn catalogue() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("cache-control", "public, max-age=3600"))
        .json(build())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_follows_the_domain_table() {
        let c = build();
        let base = &c.rulesets[0];
        let path: u32 = base
            .cards
            .iter()
            .filter(|c| c.kind == CardKind::Path)
            .map(|c| u32::from(c.count))
            .sum();
        assert_eq!(path, 40);
        let two = &c.rulesets[1];
        let door = two
            .cards
            .iter()
            .find(|c| c.card == Card::DoorGreenNes)
            .map(|c| (c.doors.clone(), c.openings.len()));
        assert_eq!(door, Some((vec![Team::Green], 3)));
        assert!(two.cards.iter().any(|c| c.ladder));
        assert!(two.roles.iter().any(|r| r.role == Role::Profiteer));
        let deadend = base.cards.iter().find(|c| c.card == Card::DeadendNesw);
        assert_eq!(deadend.map(|c| c.dead_ends), Some(4));
    }
}
