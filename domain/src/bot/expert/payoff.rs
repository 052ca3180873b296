//! What a rollout cut short at the horizon is worth to the expert's seat: the chance that the
//! gold-diggers win from there, and the round's pay to the seat's dwarf card weighted by it.

use crate::board::GOAL_CELLS;
use crate::bot::heuristic;
use crate::cards::{Action, Card, Role, Ruleset, Team};
use crate::game::Game;
use crate::seat::Seat;

/// The chance that the gold-diggers win the round, guessed from a game cut short: the cards
/// still needed from the maze's open ends to the gold, the share of the seats on the diggers'
/// side free to build, and the cards left to play per seat.
fn gold_chance(game: &Game) -> f64 {
    let Some(gold) = GOAL_CELLS.iter().copied().find(|c| {
        game.board
            .get(*c)
            .is_some_and(|t| t.face_down && t.card == Card::GoalGold)
    }) else {
        return 0.0;
    };
    let reach = heuristic::reach_for(&game.board, None);
    let ends = heuristic::open_ends(&game.board, &reach);
    let distance = ends
        .iter()
        .map(|e| heuristic::manhattan(*e, gold))
        .min()
        .unwrap_or(14);
    let n = game.n();
    let builders = (0..n)
        .filter(|i| game.roles.get(*i).is_some_and(|r| *r != Role::Saboteur))
        .filter(|i| !game.has_broken_tool(Seat(*i as u8)) && !game.is_trapped(Seat(*i as u8)))
        .count();
    let diggers = (0..n)
        .filter(|i| game.roles.get(*i).is_some_and(|r| *r != Role::Saboteur))
        .count()
        .max(1);
    let cards_left = game.draw_pile.len() + game.hands.iter().map(Vec::len).sum::<usize>();
    let builders = builders as f64 / diggers as f64;
    let cards = (1.0 + cards_left as f64 / n.max(1) as f64).ln();
    // A logistic fit on positions of heuristic games (about 30,000 base, 20,000 Saboteur 2)
    // against whether the gold-diggers went on to win the round.
    let x = match game.ruleset {
        Ruleset::Base => -5.7 - 0.42 * f64::from(distance) + 2.94 * builders + 3.94 * cards,
        Ruleset::Saboteur2 => -0.85 - 0.51 * f64::from(distance) + 3.76 * builders + 0.5 * cards,
    };
    1.0 / (1.0 + (-x).exp())
}

/// The cards still needed from the open ends of `team`'s reach to `gold`.
fn team_distance(game: &Game, team: Team, gold: crate::geometry::Cell) -> i32 {
    let reach = heuristic::reach_for(&game.board, Some(team));
    heuristic::open_ends(&game.board, &reach)
        .iter()
        .map(|e| heuristic::manhattan(*e, gold))
        .min()
        .unwrap_or(14)
}

/// Saboteur 2: what the round is expected to pay `me` (in fifths of a coin) in a game cut
/// short, by the payment's own rules (§10.2) applied to the likely outcomes: the gold reached
/// (chance from [`gold_chance`]) by the team whose own route is nearer, or not reached.
fn estimate_s2(game: &Game, me: Seat) -> f64 {
    use crate::decide::saboteur2::share;
    if game.is_trapped(me) {
        return 0.0;
    }
    let n = game.n();
    let free = |role: Role| {
        (0..n)
            .filter(|i| game.roles.get(*i) == Some(&role) && !game.is_trapped(Seat(*i as u8)))
            .count()
    };
    let (green, blue, boss, profiteer, saboteurs, geologists) = (
        free(Role::GreenDigger),
        free(Role::BlueDigger),
        free(Role::Boss),
        free(Role::Profiteer),
        free(Role::Saboteur),
        free(Role::Geologist),
    );
    let p = gold_chance(game);
    let gold = GOAL_CELLS
        .iter()
        .copied()
        .find(|c| game.board.get(*c).is_some_and(|t| t.card == Card::GoalGold));
    let q_green = match (green, blue, gold) {
        (0, _, _) => 0.0,
        (_, 0, _) => 1.0,
        (_, _, None) => 0.5,
        (_, _, Some(gold)) => {
            let d = team_distance(game, Team::Blue, gold) - team_distance(game, Team::Green, gold);
            1.0 / (1.0 + (-0.8 * f64::from(d)).exp())
        }
    };
    let pay = |winners: usize, cut: u32| f64::from(share(winners).saturating_sub(cut)) / 5.0;
    let green_wins = green + boss + profiteer;
    let blue_wins = blue + boss + profiteer;
    let role = role_of(game, me);
    theft(game, me)
        + match role {
            Role::GreenDigger => p * q_green * pay(green_wins, 0),
            Role::BlueDigger => p * (1.0 - q_green) * pay(blue_wins, 0),
            Role::Boss => p * (q_green * pay(green_wins, 1) + (1.0 - q_green) * pay(blue_wins, 1)),
            Role::Profiteer => {
                p * (q_green * pay(green_wins, 2) + (1.0 - q_green) * pay(blue_wins, 2))
                    + (1.0 - p) * pay(saboteurs + profiteer, 2)
            }
            Role::Saboteur => (1.0 - p) * pay(saboteurs + profiteer, 0),
            Role::Geologist => f64::from(game.board.crystals()) / geologists.max(1) as f64 / 5.0,
            Role::GoldDigger => p * pay(green_wins.max(blue_wins), 0),
        }
}

/// `me`'s dwarf card in a sampled game.
fn role_of(game: &Game, me: Seat) -> Role {
    game.roles
        .get(me.index())
        .copied()
        .unwrap_or(Role::GoldDigger)
}

/// What a Theft in front of `me` is worth, in fifths of a coin: the coin it steals.
fn theft(game: &Game, me: Seat) -> f64 {
    let thief = game.in_front[me.index()]
        .iter()
        .any(|c| c.action() == Some(Action::Theft));
    if thief { 0.2 } else { 0.0 }
}

/// What the round is expected to pay `me` in a game cut short, on the scale of
/// [`super::rollout::apply_all`] (in Saboteur 2 by the payment's rules when `payout`, see
/// [`super::Tuning::payout_estimate`]).
pub(super) fn estimate(game: &Game, me: Seat, payout: bool) -> f64 {
    if game.ruleset == Ruleset::Saboteur2 && payout {
        return estimate_s2(game, me);
    }
    let p = gold_chance(game);
    let role = role_of(game, me);
    let trapped = game.is_trapped(me);
    match game.ruleset {
        Ruleset::Base => match role {
            Role::Saboteur => 1.0 - p,
            _ => p,
        },
        Ruleset::Saboteur2 => {
            if trapped {
                return 0.0;
            }
            theft(game, me)
                + match role {
                    Role::Saboteur => 0.6 * (1.0 - p),
                    Role::Profiteer => 0.2,
                    Role::Geologist => 0.1 * f64::from(game.board.crystals()),
                    Role::Boss => 0.3 * p,
                    _ => 0.4 * p,
                }
        }
    }
}
