//! The expert's search for one decision, and what it thinks of another command: the choice
//! [`super::command_sampled`] makes, and, for a command played instead, its value on the same
//! sampled worlds and rollout generators (what the post-game analysis reports).
//!
//! One search serves both: the command appraised is scored as one more candidate, after the
//! others, with a generator of its own seeded like theirs, and takes no part in the choice; so
//! the generator's draws, the candidates and the margin rule are those of the plain choice, and
//! the command chosen is the same.

use rand_core::Rng;

use crate::bot::{decision_rng, heuristic};
use crate::command::Command;
use crate::game::{Game, PhaseName};
use crate::random::below;
use crate::seat::Seat;
use crate::view::View;

use super::rollout::rollout;
use super::tuning::Tuning;

/// The expert's choice for one decision and its judgement of a command played there
/// ([`super::appraise`]). Values are per sampled world on the search's own scale: in the base game
/// the round won (from 0 to 1), in Saboteur 2 the round's coins divided by 5.
#[derive(Debug, Clone, PartialEq)]
pub struct Appraisal {
    /// The command the expert chooses: the one [`super::command_with`] chooses from the same
    /// view, tuning and generator.
    pub chosen: Command,
    /// The worlds both commands were valued in (the search's worlds, less any where the engine
    /// refused the command played); 0 when there was no search (a decision outside the turn's
    /// play, a single legal command) or no command to judge.
    pub worlds: usize,
    /// The chosen command's mean value over those worlds; `None` with no worlds.
    pub chosen_value: Option<f64>,
    /// The command played's mean value over the same worlds; `None` with no worlds.
    pub played_value: Option<f64>,
    /// How much less the command played is worth than the chosen one, per world: the chosen
    /// command's value less the played one's, never below 0; 0 when the command played is
    /// the chosen one (in canonical form), and 0 with no worlds.
    pub cost: f64,
}

/// The search behind [`super::command_sampled`] and [`super::appraise`]: with `played`, that
/// command is valued too, as a candidate that cannot be chosen unless it is one already.
pub(super) fn search<R: Rng>(
    view: &View,
    tuning: Tuning,
    rng: &mut R,
    mut sample: impl FnMut(&View, Seat, &[f64], &mut R) -> Game,
    played: Option<&Command>,
) -> Option<Appraisal> {
    let budget = tuning.budget(view.ruleset);
    let me = view.seat?;
    if view.phase.awaited != Some(me) {
        return None;
    }
    // Choosing gold and stealing are decided on what the seat sees; nothing to search.
    if view.phase.name != PhaseName::Playing {
        return heuristic::command(view, rng).map(unsearched);
    }
    let mut ranked = heuristic::ranked(view);
    if ranked.len() <= 1 || budget.worlds == 0 {
        return ranked.into_iter().next().map(|(_, c)| unsearched(c));
    }
    let keep = budget.candidates.max(1).min(ranked.len());
    let mut candidates: Vec<Command> = ranked.drain(..keep).map(|(_, c)| c).collect();
    if !ranked.is_empty() {
        let extra = below(rng, ranked.len());
        candidates.push(ranked.swap_remove(extra).1);
    }
    // The command played: one of the candidates, or scored after them and never chosen.
    let choosable = candidates.len();
    let played_at = played.map(|p| {
        let canonical = p.canonical();
        candidates
            .iter()
            .position(|c| c.canonical() == canonical)
            .unwrap_or_else(|| {
                candidates.push(p.clone());
                choosable
            })
    });
    let belief = saboteur_odds(view, me);
    let root_gold = view
        .gold
        .as_ref()
        .and_then(|g| g.get(me.index()).copied())
        .or_else(|| view.my_gold.as_ref().map(|g| g.total))
        .unwrap_or(0);
    let mut totals = vec![0.0; candidates.len()];
    let mut values: Vec<Vec<f64>> = vec![Vec::with_capacity(budget.worlds); candidates.len()];
    for _ in 0..budget.worlds {
        let world = sample(view, me, &belief, rng);
        let rollout_seed = rng.next_u64();
        for (k, cmd) in candidates.iter().enumerate() {
            let mut rollout_rng = decision_rng(rollout_seed);
            let v = rollout(&world, me, cmd, &tuning, root_gold, &mut rollout_rng);
            totals[k] += v;
            values[k].push(v);
        }
    }
    // The heuristic's first choice keeps its place unless another command does clearly
    // better: a few sampled worlds are noisy, and a sampled world, where every card is known,
    // undervalues what a move teaches (a Map, an Inspection).
    let margin = tuning.margin * budget.worlds as f64;
    let mut best = 0;
    for k in 1..choosable {
        let bar = if best == 0 { margin } else { 1e-9 };
        if totals[k] > totals[best] + bar {
            best = k;
        }
    }
    let chosen = candidates.swap_remove(best);
    Some(match played_at {
        Some(p) => judged(chosen, &values[best], &values[p], p == best),
        None => unsearched(chosen),
    })
}

/// A choice made without a search, or without a command to judge: no worlds, no cost.
fn unsearched(chosen: Command) -> Appraisal {
    Appraisal {
        chosen,
        worlds: 0,
        chosen_value: None,
        played_value: None,
        cost: 0.0,
    }
}

/// `chosen` with the means of its values and the played command's over the worlds where both
/// are finite (a command the engine refuses in a sampled world is worth −∞ there; the expert's
/// candidates never are), and the cost between them.
fn judged(chosen: Command, values: &[f64], played: &[f64], same: bool) -> Appraisal {
    let pairs: Vec<(f64, f64)> = values
        .iter()
        .zip(played)
        .map(|(c, p)| (*c, *p))
        .filter(|(c, p)| c.is_finite() && p.is_finite())
        .collect();
    let worlds = pairs.len();
    if worlds == 0 {
        return unsearched(chosen);
    }
    let mean = |f: fn(&(f64, f64)) -> f64| pairs.iter().map(f).sum::<f64>() / worlds as f64;
    let chosen_value = mean(|x| x.0);
    let played_value = if same { chosen_value } else { mean(|x| x.1) };
    Appraisal {
        chosen,
        worlds,
        chosen_value: Some(chosen_value),
        played_value: Some(played_value),
        cost: (chosen_value - played_value).max(0.0),
    }
}

/// For every seat, the odds (relative to the other dwarf cards) that it holds a saboteur card,
/// as `me` believes from the public record: its conduct counters (blocking acts raise the
/// odds, digging and repairs lower them) through the heuristic's suspicion, and Inspections
/// `me` made, which settle it.
pub(crate) fn saboteur_odds(view: &View, me: Seat) -> Vec<f64> {
    let team = view.role.and_then(heuristic::team_of);
    heuristic::beliefs(view, me, team)
        .into_iter()
        .map(|s| (0.8 * s.clamp(-6.0, 6.0)).exp())
        .collect()
}
