//! The decision function: checks a command against the state and returns the events it
//! causes, or the rule it breaks. Every random outcome is drawn here and recorded in events.

mod action;
mod pass;
mod path;
mod round_end;
pub mod saboteur2;
mod setup;

pub use round_end::saboteur_share;
pub use setup::{create, deal, start};

use crate::cards::{Card, Ruleset};
use crate::command::Command;
use crate::event::Event;
use crate::game::{Game, Phase, take};
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

/// Decides a player's command: the events it causes, or the first rule it breaks (in the
/// order of docs/scenarios.md's code table). Never changes `game`.
pub fn decide(game: &Game, seat: Seat, command: &Command) -> Result<Vec<Event>, RuleViolation> {
    match game.phase {
        Phase::GameOver => return reject(V::GameOver, "the game has ended"),
        Phase::NotStarted => return reject(V::WrongPhase, "the game has not started yet"),
        _ => {}
    }
    match game.awaited() {
        Some(s) if s == seat => {}
        Some(s) => {
            return reject(
                V::NotYourTurn,
                format!("it is {s}'s turn to act, not {seat}'s"),
            );
        }
        None => return reject(V::WrongPhase, "no player is to act now"),
    }
    match (&game.phase, command) {
        (Phase::Playing, Command::PlayPath { card, at, rotated }) => {
            play_path(game, seat, *card, *at, *rotated)
        }
        (Phase::Playing, Command::PlayAction { card, target, tool }) => {
            play_action(game, seat, *card, *target, *tool)
        }
        (Phase::Playing, Command::Pass { discard }) => pass(game, seat, discard),
        (Phase::Playing, Command::DiscardToRemove { discard, remove })
            if game.ruleset == Ruleset::Saboteur2 =>
        {
            discard_to_remove(game, seat, discard, *remove)
        }
        (Phase::Stealing { .. }, Command::Steal { from }) => steal(game, seat, *from),
        (Phase::ChoosingGold { offered, .. }, Command::ChooseGold { card }) => {
            choose_gold(game, seat, offered, *card)
        }
        (phase, _) => reject(
            V::WrongPhase,
            format!("that command does not fit the phase `{}`", phase.name()),
        ),
    }
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

use action::play_action;
use pass::pass;
use path::play_path;
use round_end::choose_gold;
use saboteur2::{discard_to_remove, steal};
