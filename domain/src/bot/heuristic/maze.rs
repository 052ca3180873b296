//! Measures of the maze for the heuristic bot: distances, the reach a team may use, open
//! ends, and the expected distance to the gold.

use crate::board::{Board, GOAL_CELLS, Reach};
use crate::cards::{Role, Team};
use crate::geometry::{Cell, Side};

pub(crate) fn manhattan(a: Cell, b: Cell) -> i32 {
    (a.x - b.x).abs() + (a.y - b.y).abs()
}

pub(crate) fn team_of(role: Role) -> Option<Team> {
    match role {
        Role::GreenDigger => Some(Team::Green),
        Role::BlueDigger => Some(Team::Blue),
        _ => None,
    }
}

pub(crate) fn reach_for(board: &Board, team: Option<Team>) -> Reach {
    match team {
        None => board.reached(),
        Some(t) => board.reached_through(|door| door.is_none() || door == Some(t)),
    }
}

/// The empty cells a reached segment opens onto (face-down goals excluded).
pub(crate) fn open_ends(board: &Board, reach: &Reach) -> Vec<Cell> {
    let mut out = Vec::new();
    for &(cell, i) in reach.segments() {
        let Some(t) = board.get(cell) else { continue };
        let Some(shape) = t.card.shape() else {
            continue;
        };
        let edges = shape.segments[i].edges.oriented(t.rotated);
        for side in Side::ALL {
            let next = cell.neighbour(side);
            if edges.has(side) && board.get(next).is_none() {
                out.push(next);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The expected number of cards still needed to reach the gold from the open ends.
pub(crate) fn expected_distance(
    ends: &[Cell],
    probs: &[f64; 3],
    reached_goal: [bool; 3],
    branches: f64,
) -> f64 {
    let mut d = 0.0;
    for (k, goal) in GOAL_CELLS.iter().enumerate() {
        if probs[k] <= 0.0 {
            continue;
        }
        let best = if reached_goal[k] {
            0.0
        } else {
            let min = ends
                .iter()
                .map(|e| manhattan(*e, *goal))
                .min()
                .unwrap_or(20);
            // Several ends near the best one make the way harder to block.
            let near = ends
                .iter()
                .filter(|e| manhattan(**e, *goal) <= min + 1)
                .count()
                .saturating_sub(1)
                .min(4);
            f64::from(min) - branches * near as f64
        };
        d += probs[k] * best;
    }
    d
}
