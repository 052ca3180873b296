//! The maze: cards on the grid, which segments are reached (§1.3), where a path card may go
//! (§3.1) and which goals a placement turns (§5).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::cards::{Card, Shape, Team};
use crate::geometry::{Cell, Edges, Side};

/// The three goal cells, top to bottom (§1.1).
pub const GOAL_CELLS: [Cell; 3] = [Cell::new(8, -2), Cell::new(8, 0), Cell::new(8, 2)];

/// The name of a goal cell as used in scenario files: `top`, `middle` or `bottom`.
pub fn goal_name(cell: Cell) -> Option<&'static str> {
    GOAL_CELLS
        .iter()
        .position(|c| *c == cell)
        .map(|i| ["top", "middle", "bottom"][i])
}

/// A card lying in the maze.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tile {
    /// The card.
    pub card: Card,
    /// Whether it lies turned 180°.
    pub rotated: bool,
    /// Whether it is a goal card still face down.
    pub face_down: bool,
}

impl Tile {
    fn shape(&self) -> &'static Shape {
        // Only start, goal and path cards are ever put on the board.
        self.card
            .shape()
            .unwrap_or(Card::Start.shape().expect("start has a shape"))
    }

    /// Whether the tile is open on `side` (a face-down goal is never open).
    pub fn open(&self, side: Side) -> bool {
        !self.face_down && self.shape().open(self.rotated, side)
    }
}

/// A card on the board, with its cell: the serialised form of the maze.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PlacedCard {
    /// Column.
    pub x: i32,
    /// Row.
    pub y: i32,
    /// The card.
    pub card: Card,
    /// Whether it lies turned 180°.
    #[serde(default)]
    pub rotated: bool,
}

/// The maze: every card on the grid, keyed by cell.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(from = "Vec<(Cell, Tile)>", into = "Vec<(Cell, Tile)>")]
pub struct Board {
    tiles: Tiles,
}

impl From<Vec<(Cell, Tile)>> for Board {
    fn from(v: Vec<(Cell, Tile)>) -> Self {
        // As a map takes them: in cell order, the last of a cell's cards kept.
        let map: BTreeMap<Cell, Tile> = v.into_iter().collect();
        Board {
            tiles: Tiles::of(map.into_iter().collect()),
        }
    }
}
impl From<Board> for Vec<(Cell, Tile)> {
    fn from(b: Board) -> Self {
        b.tiles.0
    }
}

/// The cards of the maze in cell order, one to a cell: a lookup is a binary search over one
/// allocation, and a copy (a bot's search copies boards by the thousand) a single one. Beside
/// them, which cells of a window around the start hold a card, a bit each: most lookups are of
/// empty cells (the neighbours of the places a card could go), answered without a search.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Tiles(Vec<(Cell, Tile)>, Occupied);

/// The window's first column and row, and its rows (of 64 columns each).
const WINDOW_X: i32 = -24;
const WINDOW_Y: i32 = -16;
const WINDOW_ROWS: usize = 32;

/// Which cells of the window hold a card: bit `x - WINDOW_X` of row `y - WINDOW_Y`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Occupied([u64; WINDOW_ROWS]);

impl Default for Occupied {
    fn default() -> Self {
        Occupied([0; WINDOW_ROWS])
    }
}

impl Occupied {
    /// The row and bit of `cell`, when it lies in the window.
    fn place(cell: Cell) -> Option<(usize, u64)> {
        let row = usize::try_from(cell.y.checked_sub(WINDOW_Y)?).ok()?;
        let column = u32::try_from(cell.x.checked_sub(WINDOW_X)?).ok()?;
        (row < WINDOW_ROWS && column < 64).then(|| (row, 1u64 << column))
    }

    /// Whether `cell` may hold a card: `false` only for an empty cell of the window.
    fn may_hold(&self, cell: Cell) -> bool {
        Self::place(cell).is_none_or(|(row, bit)| self.0[row] & bit != 0)
    }

    fn set(&mut self, cell: Cell, held: bool) {
        if let Some((row, bit)) = Self::place(cell) {
            if held {
                self.0[row] |= bit;
            } else {
                self.0[row] &= !bit;
            }
        }
    }
}

impl Tiles {
    /// The cards in cell order, one to a cell.
    fn of(tiles: Vec<(Cell, Tile)>) -> Tiles {
        let mut occupied = Occupied::default();
        for (cell, _) in &tiles {
            occupied.set(*cell, true);
        }
        Tiles(tiles, occupied)
    }

    /// Where `cell`'s card is, or where it would go.
    fn find(&self, cell: Cell) -> Result<usize, usize> {
        self.0.binary_search_by(|(c, _)| c.cmp(&cell))
    }

    /// Where `cell`'s card is, if it holds one.
    fn index(&self, cell: Cell) -> Option<usize> {
        if self.1.may_hold(cell) {
            self.find(cell).ok()
        } else {
            None
        }
    }

    fn get(&self, cell: Cell) -> Option<&Tile> {
        self.index(cell).map(|i| &self.0[i].1)
    }

    fn get_mut(&mut self, cell: Cell) -> Option<&mut Tile> {
        self.index(cell).map(|i| &mut self.0[i].1)
    }

    fn insert(&mut self, cell: Cell, tile: Tile) {
        match self.find(cell) {
            Ok(i) => self.0[i].1 = tile,
            Err(i) => self.0.insert(i, (cell, tile)),
        }
        self.1.set(cell, true);
    }

    fn remove(&mut self, cell: Cell) -> Option<Tile> {
        let i = self.index(cell)?;
        self.1.set(cell, false);
        Some(self.0.remove(i).1)
    }

    fn iter(&self) -> impl Iterator<Item = (&Cell, &Tile)> {
        self.0.iter().map(|(c, t)| (c, t))
    }

    fn values(&self) -> impl Iterator<Item = &Tile> {
        self.0.iter().map(|(_, t)| t)
    }

    fn len(&self) -> usize {
        self.0.len()
    }
}

/// A segment of a tile: the cell and the segment's index in the card's shape.
pub type SegmentRef = (Cell, usize);

impl Board {
    /// A board with the start at (0, 0) and the given goals face down, top to bottom.
    pub fn new(goals: [Card; 3]) -> Self {
        let mut tiles = Tiles::default();
        tiles.insert(
            Cell::START,
            Tile {
                card: Card::Start,
                rotated: false,
                face_down: false,
            },
        );
        for (cell, card) in GOAL_CELLS.iter().zip(goals) {
            tiles.insert(
                *cell,
                Tile {
                    card,
                    rotated: false,
                    face_down: true,
                },
            );
        }
        Board { tiles }
    }

    /// The tile at a cell.
    pub fn get(&self, cell: Cell) -> Option<&Tile> {
        self.tiles.get(cell)
    }

    /// Every tile, in cell order.
    pub fn tiles(&self) -> impl Iterator<Item = (Cell, &Tile)> {
        self.tiles.iter().map(|(c, t)| (*c, t))
    }

    /// How many cards lie on the board.
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    /// Whether the board is empty (never, once a round is laid out).
    pub fn is_empty(&self) -> bool {
        self.tiles.len() == 0
    }

    /// Puts a card on a cell (no legality check: see [`Board::edges_match`] and [`Board::connects`]).
    pub fn place(&mut self, cell: Cell, tile: Tile) {
        self.tiles.insert(cell, tile);
    }

    /// Takes the card off a cell.
    pub fn remove(&mut self, cell: Cell) -> Option<Tile> {
        self.tiles.remove(cell)
    }

    /// Turns a face-down goal face up in the given orientation.
    pub fn reveal(&mut self, cell: Cell, rotated: bool) {
        if let Some(t) = self.tiles.get_mut(cell) {
            t.face_down = false;
            t.rotated = rotated;
        }
    }

    /// The cards the players placed (not the start, not goals).
    pub fn path_cards(&self) -> impl Iterator<Item = Card> + '_ {
        self.tiles
            .values()
            .filter(|t| t.card.path_shape().is_some())
            .map(|t| t.card)
    }

    /// The segment of the tile at `cell` that is open on `side`, if the tile is face up.
    fn segment_on(&self, cell: Cell, side: Side) -> Option<usize> {
        segment_of(self.tiles.get(cell)?, side)
    }

    /// Every segment linked to a root by a chain of connected segments (§1.3). Roots are the
    /// start card and, in `saboteur2`, every ladder (§9.3). Face-down goals are never traversed.
    pub fn reached(&self) -> Reach {
        self.reached_through(|_| true)
    }

    /// The segments reached through segments whose door `passable` accepts (§10.1 routes):
    /// `passable(None)` is asked of plain tunnels, `passable(Some(team))` of doors.
    pub fn reached_through(&self, passable: impl Fn(Option<Team>) -> bool) -> Reach {
        let tiles = &self.tiles.0;
        let ok = |k: usize, i: usize| passable(tiles[k].1.shape().segments[i].door);
        // The segments reached so far: bit `i` of `marks[k]` for segment `i` of the `k`th tile
        // (a card has at most a handful of segments); a stack of (tile, segment) to go on from.
        let mut marks = vec![0u16; tiles.len()];
        let mut mark = |k: usize, i: usize| {
            let bit = 1u16 << i;
            let new = marks[k] & bit == 0;
            marks[k] |= bit;
            new
        };
        let mut stack: Vec<(usize, usize)> = Vec::with_capacity(16);
        for (k, (_, t)) in tiles.iter().enumerate() {
            if !t.face_down && (t.card == Card::Start || t.shape().ladder) {
                for i in 0..t.shape().segments.len() {
                    if ok(k, i) && mark(k, i) {
                        stack.push((k, i));
                    }
                }
            }
        }
        while let Some((k, i)) = stack.pop() {
            let (cell, t) = tiles[k];
            let edges = t.shape().segments[i].edges.oriented(t.rotated);
            for side in Side::ALL {
                if !edges.has(side) {
                    continue;
                }
                let Some(n) = self.tiles.index(cell.neighbour(side)) else {
                    continue;
                };
                if let Some(j) = segment_of(&tiles[n].1, side.opposite())
                    && ok(n, j)
                    && mark(n, j)
                {
                    stack.push((n, j));
                }
            }
        }
        // In cell order, then segment order: sorted, for `Reach::contains`.
        let seen = tiles
            .iter()
            .zip(&marks)
            .flat_map(|((cell, _), m)| {
                (0..16)
                    .filter(move |i| m & (1 << i) != 0)
                    .map(|i| (*cell, i))
            })
            .collect();
        Reach { seen }
    }

    /// Checks the edges of a card placed at an empty `cell` (§3.1.3): on every edge shared with
    /// a face-up card both sides are open or both closed. Face-down goals constrain nothing.
    pub fn edges_match(&self, cell: Cell, shape: &Shape, rotated: bool) -> bool {
        self.fit(cell, None).edges_match(shape, rotated)
    }

    /// Whether a card at `cell` would have a segment connected to a reached segment of a
    /// neighbour (§3.1.4). Assumes the edges match.
    pub fn connects(&self, reach: &Reach, cell: Cell, shape: &Shape, rotated: bool) -> bool {
        self.fit(cell, Some(reach)).connects(shape, rotated)
    }

    /// What the cards around an empty `cell` ask of a card placed there, read once for every
    /// card and orientation tried there: the edges it shares with face-up cards, which of those
    /// are open, and (given `reach`) which lead to a reached segment.
    pub fn fit(&self, cell: Cell, reach: Option<&Reach>) -> Fit {
        let mut fit = Fit::default();
        for side in Side::ALL {
            let next = cell.neighbour(side);
            let Some(n) = self.tiles.get(next) else {
                continue;
            };
            if n.face_down {
                continue;
            }
            fit.face_up = fit.face_up.with(side.edges());
            if n.open(side.opposite()) {
                fit.open = fit.open.with(side.edges());
            }
            if let Some(reach) = reach
                && segment_of(n, side.opposite()).is_some_and(|j| reach.contains((next, j)))
            {
                fit.reached = fit.reached.with(side.edges());
            }
        }
        fit
    }

    /// Whether any card lies next to `cell` (orthogonally).
    pub fn touches_card(&self, cell: Cell) -> bool {
        Side::ALL
            .iter()
            .any(|s| self.tiles.get(cell.neighbour(*s)).is_some())
    }

    /// Whether a goal cell is orthogonally next to `cell`.
    pub fn next_to_goal(&self, cell: Cell) -> bool {
        Side::ALL
            .iter()
            .any(|s| GOAL_CELLS.contains(&cell.neighbour(*s)))
    }

    /// The face-down goals that a reached segment now opens towards (§5) after a card was
    /// placed at `placed`, each with the orientation it is turned to, under the game's rules
    /// version (§13):
    ///
    /// - version 2 (the revised ruling): the orientation open towards the card that reached
    ///   it — the card just placed, if it lies next to the goal open towards it, otherwise
    ///   every reached neighbour open towards the goal; where both orientations are, or
    ///   neither, the one matching the most neighbouring edges; then upright;
    /// - version 1: the one matching the most neighbouring edges; on a tie, the one open
    ///   towards a card that reached it; then upright.
    pub fn goals_to_reveal(
        &self,
        reach: &Reach,
        placed: Cell,
        rules_version: u8,
    ) -> Vec<(Cell, Card, bool)> {
        let mut out = Vec::new();
        for cell in GOAL_CELLS {
            let Some(goal) = self.tiles.get(cell) else {
                continue;
            };
            if !goal.face_down {
                continue;
            }
            let reaching: Vec<Side> = Side::ALL
                .into_iter()
                .filter(|&side| {
                    let n = cell.neighbour(side);
                    self.segment_on(n, side.opposite())
                        .is_some_and(|j| reach.contains((n, j)))
                })
                .collect();
            if reaching.is_empty() {
                continue;
            }
            // Version 2: the card just placed, when it is one that reached the goal.
            let by_placed: Vec<Side> = reaching
                .iter()
                .copied()
                .filter(|&s| cell.neighbour(s) == placed)
                .collect();
            let towards_sides = if by_placed.is_empty() {
                &reaching
            } else {
                &by_placed
            };
            let shape = goal.shape();
            let score = |rotated: bool| {
                let matches = Side::ALL
                    .iter()
                    .filter(|&&side| match self.tiles.get(cell.neighbour(side)) {
                        Some(n) if !n.face_down => {
                            n.open(side.opposite()) == shape.open(rotated, side)
                        }
                        _ => false,
                    })
                    .count();
                if rules_version >= 2 {
                    let towards = towards_sides.iter().any(|&s| shape.open(rotated, s));
                    (usize::from(towards), matches)
                } else {
                    let towards = reaching.iter().any(|&s| shape.open(rotated, s));
                    (matches, usize::from(towards))
                }
            };
            let rotated = score(true) > score(false);
            out.push((cell, goal.card, rotated));
        }
        out
    }

    /// How many crystals the path cards in the maze show (§9.3, §10.2).
    pub fn crystals(&self) -> u32 {
        self.path_cards()
            .map(|c| c.path_shape().map_or(0, |s| u32::from(s.crystals)))
            .sum()
    }

    /// Every empty cell next to a card on the board.
    pub fn frontier(&self) -> Vec<Cell> {
        let mut cells: Vec<Cell> = self
            .tiles
            .iter()
            .flat_map(|(c, _)| Side::ALL.map(|s| c.neighbour(s)))
            .filter(|c| self.tiles.get(*c).is_none())
            .collect();
        cells.sort_unstable();
        cells.dedup();
        cells
    }
}

/// What the cards around an empty cell ask of a card placed there ([`Board::fit`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fit {
    /// The sides shared with a face-up card.
    face_up: Edges,
    /// Of those, the sides where that card is open.
    open: Edges,
    /// Of those, the sides where that card's open segment is reached.
    reached: Edges,
}

impl Fit {
    /// §3.1.3: on every side shared with a face-up card, the card placed is open exactly where
    /// its neighbour is.
    pub fn edges_match(&self, shape: &Shape, rotated: bool) -> bool {
        let openings = shape.openings().oriented(rotated);
        (openings.0 ^ self.open.0) & self.face_up.0 == 0
    }

    /// §3.1.4: the card placed opens onto a reached segment of a neighbour (assuming the
    /// edges match).
    pub fn connects(&self, shape: &Shape, rotated: bool) -> bool {
        shape.openings().oriented(rotated).0 & self.reached.0 != 0
    }
}

/// The segment of `t` open on `side`, if it lies face up.
fn segment_of(t: &Tile, side: Side) -> Option<usize> {
    if t.face_down {
        return None;
    }
    t.shape().segment_on(t.rotated, side)
}

/// The set of reached segments of a board (§1.3).
#[derive(Debug, Clone)]
pub struct Reach {
    /// Sorted: by cell, then segment.
    seen: Vec<SegmentRef>,
}

impl Reach {
    /// Whether a segment is reached.
    pub fn contains(&self, seg: SegmentRef) -> bool {
        self.seen.binary_search(&seg).is_ok()
    }

    /// The reached segments.
    pub fn segments(&self) -> impl Iterator<Item = &SegmentRef> {
        self.seen.iter()
    }
}
