//! How the heuristic bot scores a command: path cards by the distance they leave to the gold,
//! action cards by whom they help or hinder.

use crate::board::GOAL_CELLS;
use crate::cards::{Action, Card};
use crate::command::{Command, Target};
use crate::game::is_dead_end;
use crate::geometry::Cell;
use crate::seat::Seat;

use super::maze::manhattan;
use super::{Ctx, Side2};

impl Ctx<'_> {
    pub(super) fn score(&self, cmd: &Command) -> f64 {
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
                if self.view.inspected.iter().any(|x| x.seat == t) {
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
