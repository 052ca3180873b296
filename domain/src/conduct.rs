//! What each seat has publicly done this round: the counters bots turn into trust and
//! suspicion, and the card measures they are kept by.

use serde::{Deserialize, Serialize};

use crate::board::GOAL_CELLS;
use crate::cards::{Card, Team};
use crate::geometry::Cell;

/// What one seat has publicly done this round: counters the reducer keeps from public events
/// only, reset at each round's start. Bots turn them into trust and suspicion; any player could
/// keep the same tally by watching the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct Conduct {
    /// Path cards without a dead end that open towards the goals (east of the start's column
    /// side, or north/south between the goals).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub tunnels: u32,
    /// Path cards without a dead end that do not open towards the goals.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub detours: u32,
    /// Path cards with a dead-end segment (ladders excepted).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub dead_ends: u32,
    /// Rockfalls that removed a path card without a dead end.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub rockfalls: u32,
    /// Rockfalls that removed a dead-end card.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub cleared: u32,
    /// Tools broken in front of another seat.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub tools_broken: u32,
    /// Tools repaired in front of another seat.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub repairs: u32,
    /// Other seats trapped (`saboteur2`).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub traps: u32,
    /// Other seats freed from a trap (`saboteur2`).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub frees: u32,
    /// Green doors placed (`saboteur2`).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub green_doors: u32,
    /// Blue doors placed (`saboteur2`).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub blue_doors: u32,
}

impl Conduct {
    /// Counts a path card the seat placed: a door by colour, then a dead end, a tunnel towards
    /// the goals or a detour.
    pub(crate) fn count_path(&mut self, card: Card, at: Cell, rotated: bool) {
        match card
            .path_shape()
            .and_then(|s| s.segments.iter().find_map(|g| g.door))
        {
            Some(Team::Green) => self.green_doors += 1,
            Some(Team::Blue) => self.blue_doors += 1,
            None => {}
        }
        if is_dead_end(card) {
            self.dead_ends += 1;
        } else if opens_towards_goals(card, at, rotated) {
            self.tunnels += 1;
        } else {
            self.detours += 1;
        }
    }

    /// Counts a rockfall the seat played on `removed`: a dead end cleared or a tunnel cut.
    pub(crate) fn count_rockfall(&mut self, removed: Card) {
        if is_dead_end(removed) {
            self.cleared += 1;
        } else {
            self.rockfalls += 1;
        }
    }
}

/// Whether a path card has a dead-end segment (one opening only); ladders are roots, not dead
/// ends.
pub fn is_dead_end(card: Card) -> bool {
    card.path_shape()
        .is_some_and(|s| !s.ladder && s.segments.iter().any(|g| g.edges.0.count_ones() == 1))
}

/// Whether a path card lying at `at` in the given orientation opens towards the goals: east
/// west of the goals' column, west east of it, north or south in the goals' column.
pub fn opens_towards_goals(card: Card, at: Cell, rotated: bool) -> bool {
    use crate::geometry::Side;
    let Some(shape) = card.path_shape() else {
        return false;
    };
    let goal_x = GOAL_CELLS[0].x;
    match at.x.cmp(&goal_x) {
        std::cmp::Ordering::Less => shape.open(rotated, Side::E),
        std::cmp::Ordering::Greater => shape.open(rotated, Side::W),
        std::cmp::Ordering::Equal => shape.open(rotated, Side::N) || shape.open(rotated, Side::S),
    }
}
