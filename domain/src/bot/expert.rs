//! The `expert` bot: a determinized search over the real engine.
//!
//! From the seat's [`View`] it samples [`Budget::worlds`] complete games ("determinizations")
//! consistent with what the seat has seen — the cards it has not seen dealt at random into the
//! other hands and the piles, the goals it has not looked at shuffled, the other seats' dwarf
//! cards drawn from a belief built on their public conduct (see [`world`]) — and, in each,
//! plays every candidate command through [`decide`](crate::decide()) followed by a rollout in
//! which every seat plays the heuristic bot on its own view of the sampled game, for at most
//! [`Budget::horizon`] turns or to the end of the round. A rollout is worth what the round
//! pays the seat for its dwarf card (base: the round won; Saboteur 2: the coins earned, so the
//! geologist's crystals and the boss's and profiteer's shares count), or, when the horizon
//! cuts the rollout short, that pay weighted by the chance that the gold-diggers win from
//! there (a logistic fit on heuristic games); since version 2, in Saboteur 2, the payment's
//! own rules applied to the likely outcome (which team's route is nearer the gold, how many
//! share the win); since version 3, in the base game, 24 worlds and rollouts of 24 turns
//! ([`Budget::DEEP`]), so that more rollouts reach the end of the round. Values are summed per
//! command across the worlds — every candidate meets the same worlds and the same rollout
//! generators, so luck cancels between candidates — and the best sum is played, but the
//! heuristic's first choice keeps its place unless another command beats it by a margin (a few
//! worlds are noisy, and a world in which every card is known undervalues what a Map or an
//! Inspection teaches).
//!
//! The candidates are the heuristic's [`Budget::candidates`] best commands plus one drawn from
//! the rest. Everything random is drawn from the decision's generator, and the budget is a
//! count of worlds and turns, never a time: the same view and seed give the same command in
//! every process and in the audit. Each version of this logic is a [`Tuning`]; the older ones
//! stay, so that stored games keep their audit.
//!
//! [`appraise`] makes the same choice and also values a command played in its place on the same
//! worlds: what the post-game analysis ([`crate::analysis`]) reports.

use rand_core::Rng;

use crate::board::GOAL_CELLS;
use crate::cards::{self, Card, Role, Ruleset};
use crate::command::Command;
use crate::game::Game;
use crate::random::shuffle;
use crate::seat::Seat;
use crate::view::View;

use super::placeholder::rebuild;

mod payoff;
mod rollout;
mod search;
mod tuning;

pub use search::Appraisal;
pub use tuning::{Budget, Tuning};

/// The expert's command for the seat of `view` as [`crate::bot::BOT_VERSION`] `version` chose
/// it; `None` when this build does not have that version or it is not the seat's decision.
pub(super) fn command(version: u32, view: &View, rng: &mut impl Rng) -> Option<Command> {
    command_with(view, Tuning::of(version)?, rng)
}

/// The expert's command for the seat of `view` searched as `tuning` says, or `None` when it is
/// not the seat's decision.
pub fn command_with(view: &View, tuning: Tuning, rng: &mut impl Rng) -> Option<Command> {
    command_sampled(view, tuning, rng, world)
}

/// As [`command_with`], each world drawn by `sample(view, seat, belief, rng)` in place of
/// [`world`]: a measurement passes [`world`] followed by [`reveal`] to learn what knowing part
/// of the hidden state would be worth to the search. No level plays this way.
pub fn command_sampled<R: Rng>(
    view: &View,
    tuning: Tuning,
    rng: &mut R,
    sample: impl FnMut(&View, Seat, &[f64], &mut R) -> Game,
) -> Option<Command> {
    search::search(view, tuning, rng, sample, None).map(|a| a.chosen)
}

/// The expert's command for the seat of `view` (exactly [`command_with`]'s with the
/// same `tuning` and generator: the same draws in the same order), with its judgement of
/// `played`, the command the seat issued there: valued in every world the search samples,
/// with the rollout generator of that world, beside the candidates. `None` when it is not the
/// seat's decision. Outside the turn's play (choosing gold, stealing) the expert does not
/// search, and neither does a turn with a single legal command: the appraisal then has no
/// worlds and costs nothing (a command played that is not the one chosen there is not one the
/// engine lists, as every recorded command is).
pub fn appraise(
    view: &View,
    tuning: Tuning,
    rng: &mut impl Rng,
    played: &Command,
) -> Option<Appraisal> {
    search::search(view, tuning, rng, world, Some(played))
}

/// One complete game consistent with `view`: what the seat knows as it is; the cards it has
/// not seen (the catalogue less its hand, the maze and the cards in front of seats) shuffled
/// into the other hands, the cards removed unseen, the draw and the discard piles, each of
/// its size; goals it has not looked at shuffled among the goal cards left; other seats'
/// dwarf cards drawn seat by seat from those left, a saboteur card weighted by the seat's
/// odds in `belief` (Inspections fix a seat's card); the rest to the dwarf pile.
pub fn world(view: &View, me: Seat, belief: &[f64], rng: &mut impl Rng) -> Game {
    let mut game = rebuild(view);
    let n = view.players as usize;
    // Cards.
    let mut unseen = cards::deck(view.ruleset);
    for c in view.hand.iter().flatten() {
        take_one(&mut unseen, *c);
    }
    for p in &view.board {
        if p.card.path_shape().is_some() {
            take_one(&mut unseen, p.card);
        }
    }
    for c in view.in_front.iter().flatten() {
        take_one(&mut unseen, *c);
    }
    shuffle(rng, &mut unseen);
    let mut deal = |count: usize| -> Vec<Card> {
        let k = count.min(unseen.len());
        let mut out: Vec<Card> = unseen.drain(..k).collect();
        out.resize(count, super::placeholder::UNKNOWN_CARD);
        out
    };
    for i in 0..n {
        if i != me.index() {
            game.hands[i] = deal(view.hand_sizes.get(i).copied().unwrap_or(0));
        }
    }
    game.draw_pile = deal(view.draw_pile_size);
    if view.ruleset == Ruleset::Saboteur2 {
        game.removed = deal(10);
    }
    game.discard_pile = std::mem::take(&mut unseen);
    // Goals not looked at.
    let known: Vec<Card> = view.goals.iter().filter_map(|g| g.card).collect();
    let mut goals: Vec<Card> = cards::GOALS
        .into_iter()
        .filter(|g| !known.contains(g))
        .collect();
    shuffle(rng, &mut goals);
    for g in view
        .goals
        .iter()
        .filter(|g| !g.revealed && g.card.is_none())
    {
        if let Some(card) = goals.pop() {
            let cell = crate::geometry::Cell::new(g.x, g.y);
            if let Some(t) = game.board.get(cell).copied() {
                game.board.place(cell, crate::board::Tile { card, ..t });
            }
        }
    }
    // Dwarf cards.
    if game.roles.len() == n
        && let Some(mut pool) = cards::role_set(view.ruleset, n)
    {
        let mine = view.role.unwrap_or(game.roles[me.index()]);
        take_one(&mut pool, mine);
        let mut fixed = vec![None; n];
        fixed[me.index()] = Some(mine);
        for x in &view.inspected {
            if x.seat != me && fixed[x.seat.index()].is_none() && take_one(&mut pool, x.role) {
                fixed[x.seat.index()] = Some(x.role);
            }
        }
        let mut order: Vec<usize> = (0..n).filter(|i| fixed[*i].is_none()).collect();
        shuffle(rng, &mut order);
        for i in order {
            let odds = belief.get(i).copied().unwrap_or(1.0);
            let weight = |r: &Role| if *r == Role::Saboteur { odds } else { 1.0 };
            let total: f64 = pool.iter().map(weight).sum();
            if pool.is_empty() || total <= 0.0 {
                break;
            }
            let mut x = unit(rng) * total;
            let mut pick = pool.len() - 1;
            for (j, r) in pool.iter().enumerate() {
                x -= weight(r);
                if x < 0.0 {
                    pick = j;
                    break;
                }
            }
            fixed[i] = Some(pool.swap_remove(pick));
        }
        for (i, r) in fixed.into_iter().enumerate() {
            if let Some(r) = r {
                game.roles[i] = r;
            }
        }
        shuffle(rng, &mut pool);
        let aside = match view.ruleset {
            Ruleset::Base => pool.len(),
            Ruleset::Saboteur2 => view.dwarf_pile_size.min(pool.len()),
        };
        game.dwarf_discard = pool.split_off(aside);
        game.set_aside = pool;
    }
    game
}

/// Parts of the hidden state that [`reveal`] copies from the true game into a sampled world.
/// No level uses it: the strength bench tells the search one part or another to measure what
/// knowing it is worth (and so how much better inference could gain).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reveal {
    /// The goal cards' faces.
    pub goals: bool,
    /// Every seat's dwarf card and the dwarf cards nobody holds.
    pub roles: bool,
    /// Every hand. The piles (draw, removed unseen, discard) then hold the world's other
    /// unseen cards, in the order the world drew them, unless `piles` is told too.
    pub hands: bool,
    /// With `hands`: the draw pile's order, the cards removed unseen and the discard pile.
    pub piles: bool,
}

/// Copies into `world` (a game sampled by [`world`]) the parts of `truth` that `what` names.
pub fn reveal(world: &mut Game, truth: &Game, what: Reveal) {
    if what.goals {
        for cell in GOAL_CELLS {
            if let Some(tile) = truth.board.get(cell).copied() {
                world.board.place(cell, tile);
            }
        }
    }
    if what.roles {
        world.roles.clone_from(&truth.roles);
        world.set_aside.clone_from(&truth.set_aside);
        world.dwarf_discard.clone_from(&truth.dwarf_discard);
    }
    if !what.hands {
        return;
    }
    if what.piles {
        world.draw_pile.clone_from(&truth.draw_pile);
        world.removed.clone_from(&truth.removed);
        world.discard_pile.clone_from(&truth.discard_pile);
    } else {
        // The cards the world dealt to hands and piles, less the true hands, in the world's
        // order: the piles, each of its size.
        let mut rest: Vec<Card> = world.hands.concat();
        rest.extend(
            world
                .draw_pile
                .iter()
                .chain(&world.removed)
                .chain(&world.discard_pile),
        );
        for card in truth.hands.concat() {
            if let Some(i) = rest.iter().position(|c| *c == card) {
                rest.remove(i);
            }
        }
        let mut rest = rest.into_iter();
        for pile in [
            &mut world.draw_pile,
            &mut world.removed,
            &mut world.discard_pile,
        ] {
            let size = pile.len();
            *pile = rest.by_ref().take(size).collect();
        }
    }
    world.hands.clone_from(&truth.hands);
}

/// Removes one copy of `item` from `items`; false when absent.
fn take_one<T: PartialEq>(items: &mut Vec<T>, item: T) -> bool {
    match items.iter().position(|x| *x == item) {
        Some(i) => {
            items.swap_remove(i);
            true
        }
        None => false,
    }
}

/// A uniform draw in [0, 1).
fn unit(rng: &mut impl Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}
