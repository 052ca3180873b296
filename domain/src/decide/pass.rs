//! Passing (§3.3, §9.2) and the end of a turn: the draw, skipped turns (§3.3 ruling).

use super::round_end::end_round;
use super::{Tx, holds_all, reject};
use crate::cards::{Card, Ruleset};
use crate::event::Event;
use crate::game::Game;
use crate::seat::Seat;
use crate::secret::{Pile, Secret};
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

/// After a turn: the player draws, play moves on, empty-handed players are passed over with
/// an empty draw pile (§3.3 ruling), and the round ends when nobody holds a card (§6).
pub(super) fn end_turn(tx: &mut Tx, seat: Seat, draws: usize) {
    for _ in 0..draws {
        let Some(&card) = tx.game.draw_pile.first() else {
            break;
        };
        tx.emit(Event::CardDrawn {
            seat,
            card: Secret::Known(card),
        });
    }
    loop {
        let g = &tx.game;
        if g.draw_pile.is_empty() && g.hands.iter().all(Vec::is_empty) {
            end_round(tx, None);
            return;
        }
        if g.draw_pile.is_empty() && g.hands[g.current.index()].is_empty() {
            let seat = g.current;
            tx.emit(Event::TurnSkipped { seat });
            continue;
        }
        return;
    }
}
