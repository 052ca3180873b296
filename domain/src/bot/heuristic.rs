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

use crate::board::{Board, GOAL_CELLS, Reach};
use crate::cards::{Action, Card, Role, Team};
use crate::command::{Command, Target};
use crate::game::{Game, is_dead_end};
use crate::geometry::{Cell, Side};
use crate::legal::legal_commands;
use crate::seat::Seat;
use crate::view::View;

use super::rebuild;

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

fn manhattan(a: Cell, b: Cell) -> i32 {
    (a.x - b.x).abs() + (a.y - b.y).abs()
}

fn team_of(role: Role) -> Option<Team> {
    match role {
        Role::GreenDigger => Some(Team::Green),
        Role::BlueDigger => Some(Team::Blue),
        _ => None,
    }
}

fn reach_for(board: &Board, team: Option<Team>) -> Reach {
    match team {
        None => board.reached(),
        Some(t) => board.reached_through(|door| door.is_none() || door == Some(t)),
    }
}

/// The empty cells a reached segment opens onto (face-down goals excluded).
fn open_ends(board: &Board, reach: &Reach) -> Vec<Cell> {
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
fn expected_distance(
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

    fn score(&self, cmd: &Command) -> f64 {
        match cmd {
            Command::PlayPath { card, at, rotated } => self.score_path(*card, *at, *rotated),
            Command::PlayAction { card, target, .. } => self.score_action(*card, *target),
            Command::Pass { discard } => {
                let lost: f64 = discard.iter().map(|c| self.keep_value(*c)).sum();
                // Discarding several cards draws as many; worth it only for junk.
                -lost - 0.3 * (discard.len().saturating_sub(1)) as f64
            }
            Command::DiscardToRemove { discard, remove } => {
                let lost: f64 = discard.iter().map(|c| self.keep_value(*c)).sum();
                let gain = match (remove.action(), self.side) {
                    (Some(Action::Theft), _) => -20.0,
                    _ if self.can_undo(*remove) => 0.0,
                    (_, Side2::Digger) => 7.0 + (8.0 - self.distance).max(0.0) * 0.5,
                    (_, Side2::Saboteur) => 3.0 + self.urgency(),
                };
                gain - lost
            }
            Command::ChooseGold { card } => f64::from(card.gold_value().unwrap_or(0)),
            Command::Steal { from } => match from {
                None => -1.0,
                Some(s) => {
                    let gold = self.view.gold.as_ref().map_or(0, |g| g[s.index()]);
                    f64::from(gold) - 0.1 * self.ally(*s).max(0.0)
                }
            },
        }
    }

    fn score_path(&self, card: Card, at: Cell, rotated: bool) -> f64 {
        let (after, p_gold) = self.after_path(card, at, rotated);
        let progress = self.distance - after;
        let dead = is_dead_end(card);
        let crystals = card.path_shape().map_or(0, |s| s.crystals);
        let door = card
            .path_shape()
            .and_then(|s| s.segments.iter().find_map(|g| g.door));
        match self.side {
            Side2::Digger => {
                let mut s = 6.0 * progress + 100.0 * p_gold - self.keep_value(card) * 0.2;
                if p_gold == 0.0 && progress <= 0.0 {
                    s -= 3.0;
                }
                if dead {
                    s -= 4.0;
                }
                if let (Some(d), Some(t)) = (door, self.team) {
                    s += if d == t { 1.5 } else { -6.0 };
                }
                if self.geologist {
                    s += 2.5 * f64::from(crystals);
                }
                // Revealing a stone goal with no gold still tells where the gold is.
                s
            }
            Side2::Saboteur => {
                let mut s = -6.0 * progress * self.urgency() - 100.0 * p_gold;
                if dead {
                    // Blocking only pays where it lengthens the way; elsewhere it shows.
                    s += if progress < 0.0 { 2.0 } else { -2.5 };
                } else if progress <= 0.0 {
                    // A harmless tunnel looks like digging.
                    s += 0.5;
                }
                s - self.keep_value(card) * 0.2
            }
        }
    }

    fn score_action(&self, card: Card, target: Option<Target>) -> f64 {
        let Some(action) = card.action() else {
            return -10.0;
        };
        let seat = match target {
            Some(Target::Seat(t)) => Some(t.seat),
            _ => None,
        };
        let cell = match target {
            Some(Target::Cell(c)) => Some(c),
            _ => None,
        };
        let keep = self.keep_value(card) * 0.3;
        let busy = |s: Seat| {
            self.view.in_front[s.index()]
                .iter()
                .any(|c| matches!(c.action(), Some(Action::Break(_)) | Some(Action::Trapped)))
        };
        let s = match action {
            Action::Break(_) | Action::Trapped => {
                let Some(t) = seat else { return -10.0 };
                if t == self.me {
                    return -20.0;
                }
                let enemy = -self.ally(t);
                let strength = if action == Action::Trapped { 1.2 } else { 1.0 };
                let already = if busy(t) { 0.4 } else { 1.0 };
                match self.side {
                    Side2::Digger if enemy >= 1.5 => (3.0 + 2.0 * enemy) * strength * already,
                    Side2::Digger => -2.0 + enemy,
                    Side2::Saboteur if enemy > -0.5 => {
                        let active =
                            f64::from(self.view.conduct.get(t.index()).map_or(0, |c| c.tunnels));
                        (3.0 + enemy + 0.5 * active.min(4.0)) * strength * already
                            + 0.5 * self.urgency()
                    }
                    Side2::Saboteur => -3.0,
                }
            }
            Action::Repair(..) | Action::FreeAtLast => {
                let Some(t) = seat else { return -10.0 };
                let ally = self.ally(t);
                if t == self.me {
                    match self.side {
                        Side2::Digger => 12.0,
                        Side2::Saboteur => 4.0 + self.urgency(),
                    }
                } else if ally > 0.0 {
                    4.0 + ally.min(4.0)
                } else {
                    -2.0 + ally
                }
            }
            Action::Rockfall => {
                let Some(at) = cell else { return -10.0 };
                let after = self.after_rockfall(at);
                let gain = after - self.distance;
                let removed = self.game.board.get(at).map(|t| t.card);
                let dead = removed.is_some_and(is_dead_end);
                match self.side {
                    Side2::Digger => {
                        if gain < 0.0 {
                            -6.0 * gain + if dead { 1.0 } else { -3.0 }
                        } else {
                            -5.0
                        }
                    }
                    Side2::Saboteur => {
                        if gain > 0.0 {
                            6.0 * gain * self.urgency() - if dead { 3.0 } else { 0.0 }
                        } else {
                            -3.0
                        }
                    }
                }
            }
            Action::Map => {
                let Some(at) = cell else { return -10.0 };
                let k = GOAL_CELLS.iter().position(|g| *g == at);
                let p = k.map_or(0.0, |k| self.gold_prob[k]);
                if !self.uncertain() || p == 0.0 {
                    -1.0
                } else {
                    // Look first at the goal the maze is nearest to; the middle goal otherwise.
                    let near = self
                        .open_ends
                        .iter()
                        .map(|e| manhattan(*e, at))
                        .min()
                        .unwrap_or(10);
                    let base = match self.side {
                        Side2::Digger => 6.5,
                        Side2::Saboteur => 4.0,
                    };
                    base - 0.05 * f64::from(near) + if at.y == 0 { 0.05 } else { 0.0 }
                }
            }
            Action::Theft => 6.0,
            Action::HandsOff => {
                let Some(t) = seat else { return -10.0 };
                if t == self.me {
                    -20.0
                } else {
                    0.5 - 0.5 * self.ally(t)
                }
            }
            Action::Inspection => {
                let Some(t) = seat else { return -10.0 };
                if self.view.inspected.iter().any(|(s, _)| *s == t) {
                    -3.0
                } else {
                    1.5 - 0.3 * self.suspicion[t.index()].abs()
                }
            }
            Action::SwapHats => {
                let Some(t) = seat else { return -10.0 };
                match self.side {
                    _ if t == self.me => -5.0,
                    Side2::Digger => -1.0 + self.suspicion[t.index()],
                    Side2::Saboteur => -2.0,
                }
            }
            Action::SwapHand => -2.5,
        };
        s - keep
    }
}

/// How much each seat looks like a saboteur to `me`, from public conduct and inspections: about
/// +2 per blocking act, −1 per helpful one. Known roles override.
fn beliefs(view: &View, me: Seat, team: Option<Team>) -> Vec<f64> {
    let n = view.players as usize;
    (0..n)
        .map(|i| {
            if i == me.index() {
                return -10.0;
            }
            if let Some((_, role)) = view.inspected.iter().rev().find(|(s, _)| s.index() == i) {
                return match role {
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
