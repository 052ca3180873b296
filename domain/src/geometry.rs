//! Maze geometry (docs/rules.md §1.1): cells, sides and sets of openings.

use serde::{Deserialize, Serialize};

/// A cell of the unbounded maze grid. `x` grows east (towards the goals), `y` grows south.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Cell {
    /// Column: 0 is the start card, 8 the goal cards.
    pub x: i32,
    /// Row: 0 is the start card's row; negative is north.
    pub y: i32,
}

impl Cell {
    /// The cell at `(x, y)`.
    pub const fn new(x: i32, y: i32) -> Self {
        Cell { x, y }
    }

    /// The start card's cell, (0, 0) (§1.1).
    pub const START: Cell = Cell::new(0, 0);

    /// The neighbouring cell across `side`.
    pub const fn neighbour(self, side: Side) -> Cell {
        match side {
            Side::N => Cell::new(self.x, self.y - 1),
            Side::E => Cell::new(self.x + 1, self.y),
            Side::S => Cell::new(self.x, self.y + 1),
            Side::W => Cell::new(self.x - 1, self.y),
        }
    }
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// One of a card's four edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// North: towards smaller `y`.
    N,
    /// East: towards the goals.
    E,
    /// South: towards larger `y`.
    S,
    /// West: away from the goals.
    W,
}

impl Side {
    /// All four sides in the fixed order N, E, S, W.
    pub const ALL: [Side; 4] = [Side::N, Side::E, Side::S, Side::W];

    /// The side facing this one on the neighbouring cell.
    pub const fn opposite(self) -> Side {
        match self {
            Side::N => Side::S,
            Side::E => Side::W,
            Side::S => Side::N,
            Side::W => Side::E,
        }
    }

    /// This side as a one-bit [`Edges`] set.
    pub const fn edges(self) -> Edges {
        Edges(match self {
            Side::N => 1,
            Side::E => 2,
            Side::S => 4,
            Side::W => 8,
        })
    }
}

/// A set of edges (openings) of a card, as a bit set over N, E, S, W.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Edges(pub u8);

impl Edges {
    /// No opening.
    pub const NONE: Edges = Edges(0);
    /// North.
    pub const N: Edges = Edges(1);
    /// East.
    pub const E: Edges = Edges(2);
    /// South.
    pub const S: Edges = Edges(4);
    /// West.
    pub const W: Edges = Edges(8);

    /// The union of two sets.
    pub const fn with(self, other: Edges) -> Edges {
        Edges(self.0 | other.0)
    }

    /// Whether the set holds `side`.
    pub const fn has(self, side: Side) -> bool {
        self.0 & side.edges().0 != 0
    }

    /// The set as it lies when the card is turned 180° (N↔S, E↔W, §1.2).
    pub const fn rotated(self) -> Edges {
        Edges(((self.0 << 2) | (self.0 >> 2)) & 0xF)
    }

    /// The set in the given orientation.
    pub const fn oriented(self, rotated: bool) -> Edges {
        if rotated { self.rotated() } else { self }
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}
