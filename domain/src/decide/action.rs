//! Playing an action card (§4, §9.4).

use super::turn::end_turn;
use super::tx::{Tx, in_hand, reject};
use crate::cards::{Action, Card, Tool};
use crate::command::Target;
use crate::event::Event;
use crate::game::{Game, take};
use crate::geometry::Cell;
use crate::seat::Seat;
use crate::secret::{Pile, Secret};
use crate::violation::{RuleViolation, Violation as V};

pub(super) fn target_seat(
    game: &Game,
    card: Card,
    target: Option<Target>,
) -> Result<Seat, RuleViolation> {
    match target {
        Some(Target::Seat(t)) if t.seat.index() < game.n() => Ok(t.seat),
        Some(Target::Seat(t)) => reject(V::InvalidTarget, format!("there is no seat {}", t.seat.0)),
        _ => reject(
            V::InvalidTarget,
            format!("{card} must target a seat: {{\"seat\": n}}"),
        ),
    }
}

pub(super) fn target_cell(card: Card, target: Option<Target>) -> Result<Cell, RuleViolation> {
    match target {
        Some(Target::Cell(c)) => Ok(c),
        _ => reject(
            V::InvalidTarget,
            format!("{card} must target a cell: {{\"x\": x, \"y\": y}}"),
        ),
    }
}

pub(super) fn play_action(
    game: &Game,
    seat: Seat,
    card: Card,
    target: Option<Target>,
    tool: Option<Tool>,
) -> Result<Vec<Event>, RuleViolation> {
    in_hand(game, seat, card)?;
    let Some(action) = card.action() else {
        return reject(V::WrongCardKind, format!("{card} is not an action card"));
    };
    if tool.is_some() && !matches!(action, Action::Repair(..)) {
        return reject(V::InvalidTarget, format!("{card} does not name a tool"));
    }
    let event = match action {
        Action::Break(broken) => {
            let target = target_seat(game, card, target)?;
            if game.broken_tools(target).any(|(t, _)| t == broken) {
                return reject(
                    V::ToolAlreadyBroken,
                    format!("{target} already has a broken {broken:?}").to_lowercase(),
                );
            }
            Event::ToolBroken { seat, card, target }
        }
        Action::Repair(a, b) => repair(game, seat, card, a, b, target, tool)?,
        Action::Rockfall => rockfall(game, seat, card, target)?,
        Action::Map => map(game, seat, card, target)?,
        Action::Theft => theft(game, seat, target)?,
        Action::HandsOff | Action::FreeAtLast => {
            let target = target_seat(game, card, target)?;
            let removed = if action == Action::HandsOff {
                Card::Theft
            } else {
                Card::Trapped
            };
            if !game.in_front[target.index()].contains(&removed) {
                return reject(
                    V::NothingToRemove,
                    format!("{target} has no {removed} in front of them"),
                );
            }
            Event::ActionCancelled {
                seat,
                card,
                target,
                removed,
            }
        }
        Action::Trapped => {
            let target = target_seat(game, card, target)?;
            if game.is_trapped(target) {
                return reject(V::AlreadyInFront, format!("{target} is already trapped"));
            }
            Event::PlayerTrapped { seat, target }
        }
        Action::SwapHats => {
            let target = target_seat(game, card, target)?;
            let Some(new) = game.set_aside.first() else {
                return reject(V::DwarfPileEmpty, "the dwarf pile is empty");
            };
            Event::HatsSwapped {
                seat,
                target,
                old: Secret::Known(game.roles[target.index()]),
                new: Secret::Known(*new),
            }
        }
        Action::Inspection | Action::SwapHand => look_or_swap(game, seat, card, action, target)?,
    };
    let mut tx = Tx::new(game);
    let compensate = match &event {
        Event::HandsSwapped { target, .. } => Some(*target),
        _ => None,
    };
    tx.emit(event);
    if let Some(target) = compensate
        && let Some(&card) = tx.game.draw_pile.first()
    {
        tx.emit(Event::CardDrawn {
            seat: target,
            card: Secret::Known(card),
        });
    }
    end_turn(&mut tx, seat, 1);
    Ok(tx.events)
}

/// The repair of a broken tool of the target seat: one the card can repair, named with `tool`
/// when it can repair two.
fn repair(
    game: &Game,
    seat: Seat,
    card: Card,
    a: Tool,
    b: Option<Tool>,
    target: Option<Target>,
    tool: Option<Tool>,
) -> Result<Event, RuleViolation> {
    let target = target_seat(game, card, target)?;
    let tool = match (b, tool) {
        (None, None) => a,
        (None, Some(t)) if t == a => a,
        (Some(b), Some(t)) if t == a || t == b => t,
        (Some(_), None) => {
            return reject(
                V::InvalidTarget,
                format!("{card} repairs one of two tools: name it with \"tool\""),
            );
        }
        (_, Some(t)) => {
            return reject(
                V::InvalidTarget,
                format!("{card} cannot repair the {t:?}").to_lowercase(),
            );
        }
    };
    let Some((_, broken)) = game.broken_tools(target).find(|(t, _)| *t == tool) else {
        return reject(
            V::NothingToRepair,
            format!("{target} has no broken {tool:?} to repair").to_lowercase(),
        );
    };
    Ok(Event::ToolRepaired {
        seat,
        card,
        target,
        tool,
        broken,
    })
}

/// A rockfall on a path card of the board (never the start or a goal).
fn rockfall(
    game: &Game,
    seat: Seat,
    card: Card,
    target: Option<Target>,
) -> Result<Event, RuleViolation> {
    let at = target_cell(card, target)?;
    Ok(match game.board.get(at) {
        Some(t) if t.card.path_shape().is_some() => Event::PathRemoved {
            seat,
            at,
            removed: t.card,
        },
        _ => {
            return reject(
                V::NotATunnel,
                format!("there is no path card at {at} (the start and goals cannot be removed)"),
            );
        }
    })
}

/// A map on a face-down goal.
fn map(
    game: &Game,
    seat: Seat,
    card: Card,
    target: Option<Target>,
) -> Result<Event, RuleViolation> {
    let at = target_cell(card, target)?;
    Ok(match game.board.get(at) {
        Some(t) if t.face_down => Event::MapUsed {
            seat,
            at,
            goal: Secret::Known(t.card),
        },
        _ => {
            return reject(
                V::NotAHiddenGoal,
                format!("there is no face-down goal at {at}"),
            );
        }
    })
}

/// A theft in front of oneself: not when trapped, with no target, and only one at a time.
fn theft(game: &Game, seat: Seat, target: Option<Target>) -> Result<Event, RuleViolation> {
    if game.is_trapped(seat) {
        return reject(
            V::Trapped,
            format!("{seat} is trapped and cannot use Theft"),
        );
    }
    if target.is_some() {
        return reject(
            V::InvalidTarget,
            "theft is played in front of oneself, with no target",
        );
    }
    if game.in_front[seat.index()].contains(&Card::Theft) {
        return reject(
            V::AlreadyInFront,
            format!("{seat} already has a theft in front of them"),
        );
    }
    Ok(Event::TheftPlayed { seat })
}

/// An inspection of another player's role, or a swap of hands with another player.
fn look_or_swap(
    game: &Game,
    seat: Seat,
    card: Card,
    action: Action,
    target: Option<Target>,
) -> Result<Event, RuleViolation> {
    let target = target_seat(game, card, target)?;
    if target == seat {
        return reject(
            V::InvalidTarget,
            format!("{card} must target another player"),
        );
    }
    Ok(if action == Action::Inspection {
        Event::Inspected {
            seat,
            target,
            role: Secret::Known(game.roles[target.index()]),
        }
    } else {
        let mut mine = game.hands[seat.index()].clone();
        take(&mut mine, card);
        Event::HandsSwapped {
            seat,
            target,
            seat_hand: Pile::Known(game.hands[target.index()].clone()),
            target_hand: Pile::Known(mine),
        }
    })
}
