//! Passing (§3.3, §9.2) and Saboteur 2's discarding two cards to remove one in front (§9.2).

use super::turn::end_turn;
use super::tx::{Tx, holds_all, reject};
use crate::cards::{Card, Ruleset};
use crate::event::Event;
use crate::game::Game;
use crate::seat::Seat;
use crate::secret::Pile;
use crate::violation::{RuleViolation, Violation as V};

pub(super) fn pass(game: &Game, seat: Seat, discard: &[Card]) -> Result<Vec<Event>, RuleViolation> {
    let hand = &game.hands[seat.index()];
    if let Some(c) = holds_all(hand, discard) {
        return reject(
            V::CardNotInHand,
            format!("{seat} does not hold {c} to discard"),
        );
    }
    let (min, max) = match (game.ruleset, hand.is_empty()) {
        (_, true) => (0, 0),
        (Ruleset::Base, false) => (1, 1),
        (Ruleset::Saboteur2, false) => (1, 3),
    };
    if discard.len() < min || discard.len() > max {
        let want = if min == max {
            format!("exactly {min}")
        } else {
            format!("{min} to {max}")
        };
        return reject(
            V::InvalidDiscard,
            format!("a pass discards {want} card(s) now, not {}", discard.len()),
        );
    }
    let mut tx = Tx::new(game);
    tx.emit(Event::Passed {
        seat,
        discarded: Pile::Known(discard.to_vec()),
    });
    let draws = match game.ruleset {
        Ruleset::Base => 1,
        Ruleset::Saboteur2 => discard.len(),
    };
    end_turn(&mut tx, seat, draws);
    Ok(tx.events)
}

pub(super) fn discard_to_remove(
    game: &Game,
    seat: Seat,
    discard: &[Card],
    remove: Card,
) -> Result<Vec<Event>, RuleViolation> {
    if let Some(c) = holds_all(&game.hands[seat.index()], discard) {
        return reject(
            V::CardNotInHand,
            format!("{seat} does not hold {c} to discard"),
        );
    }
    if !game.in_front[seat.index()].contains(&remove) {
        return reject(
            V::NothingToRemove,
            format!("{seat} has no {remove} in front of them"),
        );
    }
    if discard.len() != 2 {
        return reject(
            V::InvalidDiscard,
            format!("discard exactly 2 cards, not {}", discard.len()),
        );
    }
    let mut tx = Tx::new(game);
    tx.emit(Event::DiscardedToRemove {
        seat,
        discarded: Pile::Known(discard.to_vec()),
        removed: remove,
    });
    end_turn(&mut tx, seat, 1);
    Ok(tx.events)
}
