//! The `heuristic` bot: scores every legal command for its role and plays the best one (ties
//! broken by the generator).
//!
//! - Gold-diggers (and in `saboteur2` the boss, the profiteer and, with a taste for crystals,
//!   geologists) extend the maze towards the goals that may hold the gold (goals seen with a
//!   map are remembered through the view), repair themselves and the seats they trust, break
//!   tools of (and trap) seats they suspect, look at goals with maps, and pass their least
//!   useful card. Team diggers measure progress along routes avoiding the other colour's doors
//!   and like to place their own doors.
//! - Saboteurs block the best open ends with dead ends and rockfalls when the maze comes near
//!   the goals, break tools of (and trap) the seats that dig, repair themselves, and otherwise
//!   play cards that do not help.
//! - Beliefs: each other seat's suspicion comes from its public conduct counters, overridden by
//!   what the seat saw with Inspection.

use rand_core::Rng;

use crate::board::{GOAL_CELLS, Reach};
use crate::cards::{Action, Card, Role, Team};
use crate::command::Command;
use crate::game::{Game, is_dead_end};
use crate::geometry::{Cell, Side};
use crate::legal::legal_commands;
use crate::seat::Seat;
use crate::view::View;

use super::placeholder::rebuild;

mod maze;
mod score;

use maze::expected_distance;
pub(super) use maze::{manhattan, open_ends, reach_for, team_of};

/// Which side of the table the bot plays for this round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side2 {
    /// Wants the gold reached (optionally by a route its team may use).
    Digger,
    /// Wants the gold not reached.
    Saboteur,
}

struct Ctx<'a> {
    view: &'a View,
    game: Game,
    me: Seat,
    side: Side2,
    team: Option<Team>,
    geologist: bool,
    /// Probability that each goal cell holds the gold (0 for known stones and revealed goals).
    gold_prob: [f64; 3],
    /// Reached segments along the routes this bot cares about.
    reach: Reach,
    /// Empty cells a reached segment opens onto.
    open_ends: Vec<Cell>,
    /// Expected distance (in cards) from the maze to the gold.
    distance: f64,
    /// The weight of open ends near the best one in the distance.
    branches: f64,
    /// How likely each seat is a saboteur, roughly (negative: trusted).
    suspicion: Vec<f64>,
}

/// What each extra open end near the best one is worth to a saboteur, in cards of distance.
const BRANCHES: f64 = 0.25;

impl<'a> Ctx<'a> {
    fn new(view: &'a View, me: Seat) -> Ctx<'a> {
        let game = rebuild(view);
        let role = view.role.unwrap_or(Role::GoldDigger);
        let side = if role == Role::Saboteur {
            Side2::Saboteur
        } else {
            Side2::Digger
        };
        let team = team_of(role);
        // Where the gold may be: goals face down, not seen to be stone.
        let mut gold_prob = [0.0; 3];
        let mut known_gold = None;
        for (k, cell) in GOAL_CELLS.iter().enumerate() {
            let g = view.goals.iter().find(|g| g.x == cell.x && g.y == cell.y);
            match g {
                Some(g) if g.revealed => {}
                Some(g) if g.card == Some(Card::GoalGold) => known_gold = Some(k),
                Some(g) if g.card.is_some() => {}
                Some(_) => gold_prob[k] = 1.0,
                None => {}
            }
        }
        if let Some(k) = known_gold {
            gold_prob = [0.0; 3];
            gold_prob[k] = 1.0;
        }
        let total: f64 = gold_prob.iter().sum();
        if total > 0.0 {
            gold_prob.iter_mut().for_each(|p| *p /= total);
        }
        let reach = reach_for(&game.board, team);
        let ends = open_ends(&game.board, &reach);
        let branches = if side == Side2::Saboteur {
            BRANCHES
        } else {
            0.0
        };
        let distance = expected_distance(&ends, &gold_prob, [false; 3], branches);
        let suspicion = beliefs(view, me, team);
        Ctx {
            view,
            game,
            me,
            side,
            team,
            geologist: role == Role::Geologist,
            gold_prob,
            reach,
            open_ends: ends,
            distance,
            branches,
            suspicion,
        }
    }

    fn uncertain(&self) -> bool {
        self.gold_prob.iter().filter(|p| **p > 0.0).count() > 1
    }

    /// How pressing it is to block: grows as the maze nears the goals.
    fn urgency(&self) -> f64 {
        1.0 + (7.0 - self.distance).max(0.0) / 2.0
    }

    /// How much the bot wants `seat` to do well: positive for an ally, negative for an opponent.
    fn ally(&self, seat: Seat) -> f64 {
        if seat == self.me {
            return 10.0;
        }
        let s = self.suspicion[seat.index()];
        match self.side {
            Side2::Digger => -s,
            Side2::Saboteur => s - 1.0,
        }
    }

    /// The expected distance to the gold once `card` lies at `at`, and the probability that the
    /// placement turns the gold.
    fn after_path(&self, card: Card, at: Cell, rotated: bool) -> (f64, f64) {
        let Some(shape) = card.path_shape() else {
            return (self.distance, 0.0);
        };
        let board = &self.game.board;
        let mut ends: Vec<Cell> = self
            .open_ends
            .iter()
            .copied()
            .filter(|c| *c != at)
            .collect();
        let mut reached_goal = [false; 3];
        for seg in shape.segments {
            let passable = match (seg.door, self.team) {
                (Some(d), Some(t)) => d == t,
                _ => true,
            };
            if !passable {
                continue;
            }
            let edges = seg.edges.oriented(rotated);
            let connected = shape.ladder
                || Side::ALL.iter().any(|&side| {
                    if !edges.has(side) {
                        return false;
                    }
                    let n = at.neighbour(side);
                    board.get(n).is_some_and(|t| {
                        !t.face_down
                            && t.card
                                .shape()
                                .and_then(|s| s.segment_on(t.rotated, side.opposite()))
                                .is_some_and(|j| self.reach.contains((n, j)))
                    })
                });
            if !connected {
                continue;
            }
            for side in Side::ALL {
                if !edges.has(side) {
                    continue;
                }
                let n = at.neighbour(side);
                match board.get(n) {
                    None => ends.push(n),
                    Some(t) if t.face_down => {
                        if let Some(k) = GOAL_CELLS.iter().position(|g| *g == n) {
                            reached_goal[k] = true;
                        }
                    }
                    Some(_) => {}
                }
            }
        }
        let p_gold: f64 = (0..3)
            .filter(|k| reached_goal[*k])
            .map(|k| self.gold_prob[k])
            .sum();
        (
            expected_distance(&ends, &self.gold_prob, reached_goal, self.branches),
            p_gold,
        )
    }

    /// The expected distance to the gold once the card at `at` is removed.
    fn after_rockfall(&self, at: Cell) -> f64 {
        let mut board = self.game.board.clone();
        board.remove(at);
        let reach = reach_for(&board, self.team);
        let ends = open_ends(&board, &reach);
        expected_distance(&ends, &self.gold_prob, [false; 3], self.branches)
    }

    /// How much the bot wants to keep a card in hand.
    fn keep_value(&self, card: Card) -> f64 {
        if let Some(shape) = card.path_shape() {
            let crystals = if self.geologist {
                f64::from(shape.crystals) * 2.0
            } else {
                0.0
            };
            let door = shape.segments.iter().find_map(|s| s.door);
            let base = match self.side {
                Side2::Digger => {
                    if is_dead_end(card) {
                        -1.0
                    } else if shape.ladder {
                        0.5
                    } else {
                        let open = shape.openings().0.count_ones() as f64;
                        let door_value = match (door, self.team) {
                            (Some(d), Some(t)) if d == t => 1.0,
                            (Some(_), Some(_)) => -2.0,
                            _ => 0.0,
                        };
                        1.0 + open * 0.6 + door_value
                    }
                }
                Side2::Saboteur => {
                    if is_dead_end(card) {
                        3.0
                    } else {
                        0.5
                    }
                }
            };
            return base + crystals;
        }
        let Some(action) = card.action() else {
            return 0.0;
        };
        match (self.side, action) {
            (_, Action::Repair(..)) => 3.0,
            (_, Action::Theft) => 3.0,
            (_, Action::FreeAtLast) => 2.5,
            (Side2::Digger, Action::Map) if self.uncertain() => 3.0,
            (_, Action::Map) => 0.5,
            (Side2::Digger, Action::Break(_)) => 2.0,
            (Side2::Saboteur, Action::Break(_)) => 3.5,
            (Side2::Digger, Action::Rockfall) => 1.0,
            (Side2::Saboteur, Action::Rockfall) => 4.0,
            (_, Action::Trapped) => 2.5,
            (_, Action::HandsOff) => 1.0,
            (_, Action::Inspection) => 1.0,
            (_, Action::SwapHats | Action::SwapHand) => 0.0,
        }
    }

    /// Whether the bot's own hand holds a card that undoes `card` lying in front of it.
    fn can_undo(&self, card: Card) -> bool {
        let hand = self.view.hand.as_deref().unwrap_or(&[]);
        match card.action() {
            Some(Action::Break(tool)) => hand.iter().any(|c| {
                matches!(c.action(), Some(Action::Repair(a, b)) if a == tool || b == Some(tool))
            }),
            Some(Action::Trapped) => hand.contains(&Card::FreeAtLast),
            _ => false,
        }
    }
}

/// How much each seat looks like a saboteur to `me`, from public conduct and inspections: about
/// +2 per blocking act, −1 per helpful one. Known roles override.
pub(super) fn beliefs(view: &View, me: Seat, team: Option<Team>) -> Vec<f64> {
    let n = view.players as usize;
    (0..n)
        .map(|i| {
            if i == me.index() {
                return -10.0;
            }
            if let Some(seen) = view.inspected.iter().rev().find(|x| x.seat.index() == i) {
                return match &seen.role {
                    Role::Saboteur => 10.0,
                    r if team.is_some() && team_of(*r).is_some() && team_of(*r) != team => 1.0,
                    _ => -5.0,
                };
            }
            let Some(c) = view.conduct.get(i) else {
                return 0.0;
            };
            let f = |v: u32| f64::from(v);
            let mut s = 2.0 * f(c.dead_ends)
                + 2.5 * f(c.rockfalls)
                + 0.7 * f(c.tools_broken)
                + 0.8 * f(c.traps)
                + 0.3 * f(c.detours)
                - 1.0 * f(c.tunnels)
                - 1.5 * f(c.repairs)
                - 1.0 * f(c.frees)
                - 1.0 * f(c.cleared);
            if let Some(t) = team {
                let rival = match t {
                    Team::Green => c.blue_doors,
                    Team::Blue => c.green_doors,
                };
                s += 0.5 * f(rival);
            }
            s
        })
        .collect()
}

/// The heuristic bot's command for the seat of `view`, or `None` when it is not its decision.
pub(super) fn command(view: &View, rng: &mut impl Rng) -> Option<Command> {
    let me = view.seat?;
    if view.phase.awaited != Some(me) {
        return None;
    }
    let ctx = Ctx::new(view, me);
    let legal = legal_commands(&ctx.game, me);
    let mut best: Option<(f64, Command)> = None;
    for cmd in legal {
        // A tiny random term breaks ties between equal scores reproducibly.
        let noise = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 1e-3;
        let s = ctx.score(&cmd) + noise;
        if best.as_ref().is_none_or(|(b, _)| s > *b) {
            best = Some((s, cmd));
        }
    }
    best.map(|(_, c)| c)
}

/// Every legal command for the seat of `view` with the heuristic's score, best first (ties in
/// the order [`legal_commands`] lists them); empty when it is not the seat's decision. No
/// generator: the expert bot prunes its search with it.
pub(super) fn ranked(view: &View) -> Vec<(f64, Command)> {
    let Some(me) = view.seat else {
        return Vec::new();
    };
    if view.phase.awaited != Some(me) {
        return Vec::new();
    }
    let ctx = Ctx::new(view, me);
    let mut scored: Vec<(f64, Command)> = legal_commands(&ctx.game, me)
        .into_iter()
        .map(|c| (ctx.score(&c), c))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored
}
