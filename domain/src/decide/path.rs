//! Playing a path card (§3.1) and the goals it turns (§5).

use super::turn::{end_round, end_turn};
use super::tx::{Tx, in_hand, reject};
use crate::cards::Card;
use crate::event::Event;
use crate::game::Game;
use crate::geometry::Cell;
use crate::seat::Seat;
use crate::violation::{RuleViolation, Violation as V};

pub(super) fn play_path(
    game: &Game,
    seat: Seat,
    card: Card,
    at: Cell,
    rotated: bool,
) -> Result<Vec<Event>, RuleViolation> {
    in_hand(game, seat, card)?;
    let Some(shape) = card.path_shape() else {
        return reject(V::WrongCardKind, format!("{card} is not a path card"));
    };
    if let Some((tool, _)) = game.broken_tools(seat).next() {
        return reject(
            V::ToolsBroken,
            format!("{seat} has a broken {tool:?} and cannot play path cards").to_lowercase(),
        );
    }
    if game.is_trapped(seat) {
        return reject(
            V::Trapped,
            format!("{seat} is trapped and cannot play path cards"),
        );
    }
    if game.board.get(at).is_some() {
        return reject(V::CellOccupied, format!("the cell {at} is not empty"));
    }
    if !game.board.edges_match(at, shape, rotated) {
        return reject(
            V::EdgesMismatch,
            format!("{card} at {at} does not match the edges of its neighbours"),
        );
    }
    if shape.ladder {
        if !game.board.touches_card(at) || game.board.next_to_goal(at) {
            return reject(
                V::LadderPlacement,
                format!("a ladder must touch a card and must not lie next to a goal ({at})"),
            );
        }
    } else if !game
        .board
        .connects(&game.board.reached(), at, shape, rotated)
    {
        return reject(
            V::NotConnected,
            format!("{card} at {at} would not connect to the maze from the start"),
        );
    }
    let mut tx = Tx::new(game);
    tx.emit(Event::PathPlayed {
        seat,
        card,
        at,
        rotated,
    });
    let reach = tx.game.board.reached();
    let mut gold = false;
    for (cell, goal, rotated) in tx
        .game
        .board
        .goals_to_reveal(&reach, at, game.rules_version)
    {
        gold |= goal == Card::GoalGold;
        tx.emit(Event::GoalRevealed {
            at: cell,
            card: goal,
            rotated,
        });
    }
    if gold {
        end_round(&mut tx, Some(seat));
    } else {
        end_turn(&mut tx, seat, 1);
    }
    Ok(tx.events)
}
