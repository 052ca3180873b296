//! The transaction every decision is built in, and the checks decisions share.

use crate::cards::Card;
use crate::event::Event;
use crate::game::{Game, take};
use crate::seat::Seat;
use crate::violation::{RuleViolation, Violation as V};

/// The events of a command being decided: each is applied to a scratch copy of the state as
/// it is emitted, so that follow-ups (draws, skipped turns, the end of a round) see its effect.
pub(crate) struct Tx {
    pub(crate) game: Game,
    pub(crate) events: Vec<Event>,
}

impl Tx {
    pub(super) fn new(game: &Game) -> Tx {
        Tx {
            game: game.clone(),
            events: Vec::with_capacity(4),
        }
    }

    pub(crate) fn emit(&mut self, event: Event) {
        self.game.apply(&event);
        self.events.push(event);
    }
}

pub(super) fn reject<T>(v: V, detail: impl Into<String>) -> Result<T, RuleViolation> {
    Err(RuleViolation::new(v, detail))
}

pub(super) fn in_hand(game: &Game, seat: Seat, card: Card) -> Result<(), RuleViolation> {
    if game.hands[seat.index()].contains(&card) {
        Ok(())
    } else {
        reject(V::CardNotInHand, format!("{seat} does not hold {card}"))
    }
}

/// Whether `discard` is a sub-multiset of `hand`.
pub(super) fn holds_all(hand: &[Card], discard: &[Card]) -> Option<Card> {
    let mut rest = hand.to_vec();
    discard.iter().copied().find(|c| !take(&mut rest, *c))
}
