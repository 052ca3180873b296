//! Seats: the players of a game, counted from 0 clockwise.

use serde::{Deserialize, Serialize};

/// A player's seat at the table, counted from 0. Play goes clockwise: seat + 1 (§2).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat as an index into per-seat lists.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The seat `steps` places clockwise (left, seat + 1) at a table of `players`.
    pub fn left(self, players: usize, steps: usize) -> Seat {
        Seat(((self.index() + steps) % players) as u8)
    }

    /// The seat `steps` places counter-clockwise (right, seat − 1) at a table of `players`.
    pub fn right(self, players: usize, steps: usize) -> Seat {
        Seat(((self.index() + players - steps % players) % players) as u8)
    }
}

impl std::fmt::Display for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "seat {}", self.0)
    }
}
