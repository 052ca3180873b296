//! Saboteur 2's end of a round (§10): the door analysis over routes, winners, the payout
//! table, geologists' crystals, then the thefts of §9.4; and resolving a theft (§9.4). The
//! expansion's other command, discarding two to remove a card (§9.2), is a turn's: `pass.rs`.

use super::next_round::next_round;
use super::tx::{Tx, reject};
use crate::board::Reach;
use crate::cards::Team;
use crate::cards::{Card, Role};
use crate::event::Event;
use crate::game::{Game, Phase};
use crate::seat::Seat;
use crate::violation::{RuleViolation, Violation as V};

/// Which routes from a root to the gold exist (§10.1): avoiding all doors, avoiding blue
/// doors (green's route), avoiding green doors (blue's route).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Routes {
    /// R_none: a route through no door.
    pub none: bool,
    /// R_green: a route through no blue door.
    pub green: bool,
    /// R_blue: a route through no green door.
    pub blue: bool,
}

/// The routes to the gold goal in the maze.
pub fn routes(game: &Game) -> Routes {
    let Some((gold, _)) = game
        .board
        .tiles()
        .find(|(_, t)| t.card == Card::GoalGold && !t.face_down)
    else {
        return Routes {
            none: false,
            green: false,
            blue: false,
        };
    };
    let to_gold = |reach: Reach| reach.contains((gold, 0));
    Routes {
        none: to_gold(game.board.reached_through(|door| door.is_none())),
        green: to_gold(game.board.reached_through(|door| door != Some(Team::Blue))),
        blue: to_gold(game.board.reached_through(|door| door != Some(Team::Green))),
    }
}

/// Which teams win (green, blue) when `finder` turned the gold (§10.1).
pub fn winning_teams(game: &Game, finder: Option<Seat>) -> (bool, bool) {
    let Some(finder) = finder else {
        return (false, false);
    };
    let r = routes(game);
    match game.roles[finder.index()] {
        Role::GreenDigger => (r.green, !r.green),
        Role::BlueDigger => (!r.blue, r.blue),
        _ if r.none || (r.green && r.blue) => (true, true),
        _ => (r.green, r.blue),
    }
}

/// The seats that win the round (§10.1, §10.2): trapped players and geologists are not
/// counted.
pub fn winners(game: &Game, finder: Option<Seat>) -> Vec<Seat> {
    let (green, blue) = winning_teams(game, finder);
    let reached = green || blue;
    (0..game.players)
        .map(Seat)
        .filter(|s| !game.is_trapped(*s))
        .filter(|s| match game.roles[s.index()] {
            Role::GreenDigger => green,
            Role::BlueDigger => blue,
            Role::Boss => reached,
            Role::Profiteer => true,
            Role::Saboteur => !reached,
            Role::Geologist | Role::GoldDigger => false,
        })
        .collect()
}

/// Each winner's coins by the number of winners (§10.2).
pub fn share(winners: usize) -> u32 {
    match winners {
        0 => 0,
        1 => 5,
        2 => 4,
        3 => 3,
        4 => 2,
        _ => 1,
    }
}

/// The coins each seat gets this round (§10.2).
pub fn payout(game: &Game, winners: &[Seat]) -> Vec<u32> {
    let each = share(winners.len());
    let mut coins = vec![0; game.n()];
    for s in winners {
        coins[s.index()] = match game.roles[s.index()] {
            Role::Boss => each.saturating_sub(1),
            Role::Profiteer => each.saturating_sub(2),
            _ => each,
        };
    }
    let geologists: Vec<Seat> = (0..game.players)
        .map(Seat)
        .filter(|s| game.roles[s.index()] == Role::Geologist && !game.is_trapped(*s))
        .collect();
    if !geologists.is_empty() {
        let each = game.board.crystals() / geologists.len() as u32;
        for s in geologists {
            coins[s.index()] = each;
        }
    }
    coins
}

/// The thieves in the order they steal: the last to play a Theft first, then clockwise;
/// trapped players cannot use Theft (§9.4).
pub fn theft_order(game: &Game) -> Vec<Seat> {
    let Some(&last) = game.thefts.last() else {
        return Vec::new();
    };
    (0..game.n())
        .map(|k| last.left(game.n(), k))
        .filter(|s| game.thefts.contains(s) && !game.is_trapped(*s))
        .collect()
}

/// The end of a round in Saboteur 2 (§10): winners, coins, then the thefts (§9.4).
pub(super) fn end_round(tx: &mut Tx, finder: Option<Seat>) {
    let g = &tx.game;
    let winners = winners(g, finder);
    let coins = payout(g, &winners);
    tx.emit(Event::RoundEnded {
        round: g.round,
        gold_reached_by: finder,
        roles: g.roles.clone(),
        winners,
    });
    tx.emit(Event::CoinsPaid { coins });
    let order = theft_order(&tx.game);
    if order.is_empty() {
        next_round(tx);
    } else {
        tx.emit(Event::StealingStarted { order });
    }
}

pub(super) fn steal(
    game: &Game,
    seat: Seat,
    from: Option<Seat>,
) -> Result<Vec<Event>, RuleViolation> {
    if let Some(from) = from {
        if from.index() >= game.n() || from == seat {
            return reject(
                V::InvalidTarget,
                format!("{seat} cannot steal from seat {}", from.0),
            );
        }
        if game.gold[from.index()] == 0 {
            return reject(V::InvalidTarget, format!("{from} has no coin to steal"));
        }
    }
    let mut tx = Tx::new(game);
    tx.emit(Event::CoinStolen { seat, from });
    if tx.game.phase == Phase::RoundOver {
        next_round(&mut tx);
    }
    Ok(tx.events)
}
