//! The decision function: which check a command goes to, by the phase and the command.

use super::action::play_action;
use super::pass::{discard_to_remove, pass};
use super::path::play_path;
use super::round_end::choose_gold;
use super::saboteur2::steal;
use super::tx::reject;
use crate::cards::Ruleset;
use crate::command::Command;
use crate::event::Event;
use crate::game::{Game, Phase};
use crate::seat::Seat;
use crate::violation::{RuleViolation, Violation as V};

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
