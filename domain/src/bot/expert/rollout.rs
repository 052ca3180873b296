//! A candidate played out in a sampled world: the command, then turns of the heuristic for
//! every seat, then the round's pay to the expert's seat or its estimate.

use rand_core::Rng;

use crate::bot::heuristic;
use crate::cards::Ruleset;
use crate::command::Command;
use crate::decide::decide;
use crate::event::Event;
use crate::game::{Game, Phase};
use crate::seat::Seat;
use crate::view::{Audience, view as view_of};

use super::payoff;
use super::tuning::Tuning;

/// What `cmd` is worth to `me` in `world`: the command, then up to the horizon of `tuning`'s
/// budget in turns of the heuristic for every seat, then the round's pay to `me` or its
/// estimate.
pub(super) fn rollout(
    world: &Game,
    me: Seat,
    cmd: &Command,
    tuning: &Tuning,
    root_gold: u32,
    rng: &mut impl Rng,
) -> f64 {
    let mut game = world.clone();
    let Ok(events) = decide(&game, me, cmd) else {
        return f64::NEG_INFINITY;
    };
    if let Some(v) = apply_all(&mut game, &events, me, root_gold) {
        return v;
    }
    for _ in 0..tuning.budget(world.ruleset).horizon {
        let Some(seat) = game.awaited() else { break };
        if game.phase != Phase::Playing {
            break;
        }
        let v = view_of(&game, Audience::Seat(seat));
        let Some(next) = heuristic::command(&v, rng) else {
            break;
        };
        let Ok(events) = decide(&game, seat, &next) else {
            break;
        };
        if let Some(v) = apply_all(&mut game, &events, me, root_gold) {
            return v;
        }
    }
    payoff::estimate(&game, me, tuning.payout_estimate)
}

/// Applies `events`; when they end the round, what it paid `me`.
pub(super) fn apply_all(
    game: &mut Game,
    events: &[Event],
    me: Seat,
    root_gold: u32,
) -> Option<f64> {
    let mut ended = None;
    for e in events {
        game.apply(e);
        if let Event::RoundEnded { winners, .. } = e {
            ended = Some(winners.contains(&me));
        }
    }
    let won = ended?;
    Some(match game.ruleset {
        // Base gold comes as cards shared among the winners: a won round is what counts.
        Ruleset::Base => f64::from(u8::from(won)),
        // Saboteur 2 pays coins by dwarf card (§10.2): geologists' crystals, the boss's and
        // the profiteer's smaller shares.
        Ruleset::Saboteur2 => f64::from(game.gold[me.index()].saturating_sub(root_gold)) / 5.0,
    })
}
