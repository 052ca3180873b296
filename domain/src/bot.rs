//! The `random` bot: a uniformly random legal command. It reads only what the seat may know:
//! [`legal_commands`] depends on the seat's own hand, the public maze and the cards in front
//! of the players.

use rand_core::Rng;

use crate::cards::Ruleset;
use crate::command::Command;
use crate::decide::{create, decide, start};
use crate::event::Event;
use crate::game::{Game, Options};
use crate::legal::legal_commands;
use crate::random::{Seed, below};
use crate::seat::Seat;

/// A legal command for `seat` drawn uniformly, or `None` when it is not their decision.
pub fn random_command(game: &Game, seat: Seat, rng: &mut impl Rng) -> Option<Command> {
    let mut moves = legal_commands(game, seat);
    if moves.is_empty() {
        return None;
    }
    Some(moves.swap_remove(below(rng, moves.len())))
}

/// A whole game played by random bots: the complete event log. The deal comes from `seed`, the
/// bots' choices from a generator keyed by the same seed on stream 1000.
pub fn random_game(ruleset: Ruleset, options: Options, players: u8, seed: Seed) -> Vec<Event> {
    let first = Seat(seed.0[0] % players.max(1));
    let Ok(created) = create(ruleset, options, players, first, seed) else {
        return Vec::new();
    };
    let mut events = vec![created];
    let mut game = Game::replay(&events).expect("a created game");
    let mut rng = bot_rng(seed);
    let Ok(dealt) = start(&game) else {
        return events;
    };
    for e in dealt {
        game.apply(&e);
        events.push(e);
    }
    while let Some(seat) = game.awaited() {
        let Some(command) = random_command(&game, seat, &mut rng) else {
            break;
        };
        let Ok(new) = decide(&game, seat, &command) else {
            break;
        };
        for e in new {
            game.apply(&e);
            events.push(e);
        }
    }
    events
}

/// The generator random bots draw from in [`random_game`].
pub fn bot_rng(seed: Seed) -> rand_chacha::ChaCha20Rng {
    let mut rng = seed.round_rng(0);
    rng.set_stream(1000);
    rng
}
