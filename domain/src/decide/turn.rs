//! The end of a turn: the draw, skipped turns (§3.3 ruling), and the end of the round when
//! nobody holds a card (§6), by the ruleset's rules.

use super::tx::Tx;
use super::{round_end, saboteur2};
use crate::cards::Ruleset;
use crate::event::Event;
use crate::seat::Seat;
use crate::secret::Secret;

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

/// The end of a round (§6): roles revealed, winners named, gold handed out (§7, or §10 in
/// Saboteur 2).
pub(super) fn end_round(tx: &mut Tx, finder: Option<Seat>) {
    if tx.game.ruleset == Ruleset::Saboteur2 {
        saboteur2::end_round(tx, finder);
        return;
    }
    round_end::end_round(tx, finder);
}
