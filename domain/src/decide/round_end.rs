//! The end of a round in the base game (§6, §7): winners, gold handed out, saboteurs paid,
//! and the next round or the end of the game (§8).

use super::next_round::next_round;
use super::tx::{Tx, reject};
use crate::cards::{Card, Role};
use crate::event::{Event, Payment};
use crate::game::{Game, GoldCardsDrawn, Phase};
use crate::seat::Seat;
use crate::secret::{Pile, Secret};
use crate::violation::{RuleViolation, Violation as V};
use std::collections::VecDeque;

pub(super) fn is_digger(role: Role) -> bool {
    matches!(role, Role::GoldDigger)
}

/// Whether a seat takes part in handing out gold (§7.1, with the forfeit variant).
pub(super) fn shares_gold(game: &Game, seat: Seat) -> bool {
    is_digger(game.roles[seat.index()])
        && !(game.options.broken_tools_forfeit_gold && game.has_broken_tool(seat))
}

/// The next seat counter-clockwise from `from` (exclusive; `from` itself last) that shares gold.
pub(super) fn next_sharer(game: &Game, from: Seat) -> Option<Seat> {
    (1..=game.n())
        .map(|k| from.right(game.n(), k))
        .find(|s| shares_gold(game, *s))
}

/// The end of a round in the base game (§6): roles revealed, winners named, gold handed out.
pub(super) fn end_round(tx: &mut Tx, finder: Option<Seat>) {
    let g = &tx.game;
    let winners: Vec<Seat> = (0..g.players)
        .map(Seat)
        .filter(|s| match finder {
            Some(_) => is_digger(g.roles[s.index()]),
            None => g.roles[s.index()] == Role::Saboteur,
        })
        .collect();
    tx.emit(Event::RoundEnded {
        round: g.round,
        gold_reached_by: finder,
        roles: g.roles.clone(),
        winners,
    });
    match finder {
        Some(finder) => {
            let g = &tx.game;
            let first = if shares_gold(g, finder) {
                Some(finder)
            } else {
                next_sharer(g, finder)
            };
            let count = match g.options.gold_cards_drawn {
                GoldCardsDrawn::Players => g.n().min(9),
                GoldCardsDrawn::Diggers => g.roles.iter().filter(|r| is_digger(**r)).count(),
            }
            .min(g.gold_pile.len());
            if let Some(first) = first
                && count > 0
            {
                let cards = g.gold_pile[..count].to_vec();
                tx.emit(Event::GoldDrawn {
                    seat: first,
                    cards: Pile::Known(cards),
                });
                hand_on_last_card(tx, first);
                if tx.game.phase != Phase::RoundOver {
                    return; // a gold-digger must choose
                }
            }
        }
        None => pay_saboteurs(tx),
    }
    next_round(tx);
}

/// §7.1 ruling: a single card left goes to the next gold-digger in turn without a command.
pub(super) fn hand_on_last_card(tx: &mut Tx, seat: Seat) {
    if let Phase::ChoosingGold { offered, .. } = &tx.game.phase
        && offered.len() == 1
    {
        let card = offered[0];
        tx.emit(Event::GoldKept {
            seat,
            card: Secret::Known(card),
            automatic: true,
        });
    }
}

pub(super) fn choose_gold(
    game: &Game,
    seat: Seat,
    offered: &[Card],
    card: Card,
) -> Result<Vec<Event>, RuleViolation> {
    if !offered.contains(&card) {
        return reject(
            V::NotOffered,
            format!("{card} is not among the gold cards offered"),
        );
    }
    let mut tx = Tx::new(game);
    tx.emit(Event::GoldKept {
        seat,
        card: Secret::Known(card),
        automatic: false,
    });
    if let Phase::ChoosingGold { offered, .. } = &tx.game.phase {
        let next = next_sharer(&tx.game, seat).unwrap_or(seat);
        let rest = offered.clone();
        if rest.len() == 1 {
            hand_on_last_card(&mut tx, next);
        } else {
            tx.emit(Event::GoldOffered {
                seat: next,
                cards: Pile::Known(rest),
            });
        }
    }
    if tx.game.phase == Phase::RoundOver {
        next_round(&mut tx);
    }
    Ok(tx.events)
}

/// The nuggets each saboteur takes when `count` saboteurs win (§7.2).
pub fn saboteur_share(count: usize) -> u32 {
    match count {
        0 => 0,
        1 => 4,
        2 | 3 => 3,
        _ => 2,
    }
}

/// Whether `amount` nuggets can be made from some of `pile`'s gold cards.
pub(super) fn can_make(amount: u32, pile: &VecDeque<Card>) -> bool {
    let count = |v| pile.iter().filter(|c| c.gold_value() == Some(v)).count() as u32;
    let (ones, twos, threes) = (count(1), count(2), count(3));
    (0..=threes.min(amount / 3))
        .any(|c| (0..=twos.min((amount - 3 * c) / 2)).any(|b| amount - 3 * c - 2 * b <= ones))
}

/// §7.2: saboteurs are paid clockwise from the left of the last player to take a turn. Each
/// saboteur's amount is their share, or, when the pile cannot make it exactly, the largest
/// total not above it. They take cards from the top one at a time; a card that would exceed
/// the amount, or leave the rest of the amount impossible to make from the pile, goes under
/// the pile.
pub(super) fn pay_saboteurs(tx: &mut Tx) {
    let g = &tx.game;
    let n = g.n();
    let from = g.last_turn.unwrap_or(g.round_first_player.right(n, 1));
    let saboteurs: Vec<Seat> = (1..=n)
        .map(|k| from.left(n, k))
        .filter(|s| g.roles[s.index()] == Role::Saboteur)
        .collect();
    if saboteurs.is_empty() {
        return;
    }
    let share = saboteur_share(saboteurs.len());
    let mut pile: VecDeque<Card> = g.gold_pile.iter().copied().collect();
    let mut payments = Vec::with_capacity(saboteurs.len());
    for seat in saboteurs {
        let amount = (0..=share).rev().find(|a| can_make(*a, &pile)).unwrap_or(0);
        let mut total = 0u32;
        let mut taken = Vec::new();
        while total < amount {
            let Some(card) = pile.pop_front() else { break };
            let value = u32::from(card.gold_value().unwrap_or(0));
            if total + value <= amount && can_make(amount - total - value, &pile) {
                total += value;
                taken.push(card);
            } else {
                pile.push_back(card);
            }
        }
        payments.push(Payment {
            seat,
            cards: Pile::Known(taken),
        });
    }
    tx.emit(Event::SaboteursPaid {
        payments,
        gold_pile: Pile::Known(pile.into()),
    });
}
