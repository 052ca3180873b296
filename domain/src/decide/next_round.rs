//! After a round: the next round's deal (§6), or the end of the game (§8).

use super::setup::deal;
use super::tx::Tx;
use crate::event::Event;
use crate::seat::Seat;

/// After the gold is handed out: the next round (§6), or the end of the game (§8).
pub(super) fn next_round(tx: &mut Tx) {
    let g = &tx.game;
    if g.round >= 3 {
        let best = g.gold.iter().copied().max().unwrap_or(0);
        let winners = (0..g.players)
            .map(Seat)
            .filter(|s| g.gold[s.index()] == best)
            .collect();
        tx.emit(Event::GameEnded {
            gold: g.gold.clone(),
            winners,
        });
        return;
    }
    let first = g
        .last_turn
        .map(|s| s.left(g.n(), 1))
        .unwrap_or(g.round_first_player);
    let event = deal(g, g.round + 1, first);
    tx.emit(event);
    // A dealt round always has cards in hand, so no turn needs skipping here.
}
