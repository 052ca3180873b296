//! The decision function: checks a command against the state and returns the events it
//! causes, or the rule it breaks. Every random outcome is drawn here and recorded in events.

pub mod saboteur2;

use std::collections::VecDeque;

use crate::cards::{self, Action, Card, Role, Ruleset, Tool};
use crate::command::{Command, Target};
use crate::event::{Event, Payment};
use crate::game::{Game, GoldCardsDrawn, Options, Phase, take};
use crate::geometry::Cell;
use crate::random::{Seed, shuffle};
use crate::seat::Seat;
use crate::secret::{Pile, Secret};
use crate::violation::{RuleViolation, SetupError, Violation as V};

/// The events of a command being decided: each is applied to a scratch copy of the state as
/// it is emitted, so that follow-ups (draws, skipped turns, the end of a round) see its effect.
pub(crate) struct Tx {
    pub(crate) game: Game,
    pub(crate) events: Vec<Event>,
}

impl Tx {
    fn new(game: &Game) -> Tx {
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

fn reject<T>(v: V, detail: impl Into<String>) -> Result<T, RuleViolation> {
    Err(RuleViolation::new(v, detail))
}

/// The first event of a game. Checks the player count against the ruleset.
pub fn create(
    ruleset: Ruleset,
    options: Options,
    players: u8,
    first_player: Seat,
    seed: Seed,
) -> Result<Event, SetupError> {
    let n = players as usize;
    if cards::role_set(ruleset, n).is_none() {
        let (name, min, max) = match ruleset {
            Ruleset::Base => ("base", 3, 10),
            Ruleset::Saboteur2 => ("saboteur2", 2, 12),
        };
        return Err(SetupError::PlayerCount {
            ruleset: name,
            players: n,
            min,
            max,
        });
    }
    if first_player.index() >= n {
        return Err(SetupError::FirstPlayer(first_player.0));
    }
    Ok(Event::GameCreated {
        ruleset,
        options,
        players,
        first_player,
        seed: Secret::Known(seed),
        rules_version: crate::game::RULES_VERSION,
    })
}

/// Starts a created game: deals round 1.
pub fn start(game: &Game) -> Result<Vec<Event>, RuleViolation> {
    match game.phase {
        Phase::NotStarted => Ok(vec![deal(game, 1, game.first_player)]),
        Phase::GameOver => reject(V::GameOver, "the game has ended"),
        _ => reject(V::WrongPhase, "the game has already started"),
    }
}

/// Lays out and deals a round (§2, §6) from the seed's stream for that round.
pub fn deal(game: &Game, round: u8, first_player: Seat) -> Event {
    let n = game.n();
    let mut rng = game.seed.round_rng(round);
    let mut roles: Vec<Role> = if game.roles.is_empty() {
        cards::role_set(game.ruleset, n).unwrap_or_default()
    } else {
        game.roles
            .iter()
            .chain(&game.set_aside)
            .chain(&game.dwarf_discard)
            .copied()
            .collect()
    };
    roles.sort();
    shuffle(&mut rng, &mut roles);
    let mut goals = cards::GOALS;
    shuffle(&mut rng, &mut goals);
    let mut deck = cards::deck(game.ruleset);
    shuffle(&mut rng, &mut deck);
    let removed: Vec<Card> = match game.ruleset {
        Ruleset::Base => Vec::new(),
        Ruleset::Saboteur2 => deck.drain(..10.min(deck.len())).collect(),
    };
    let size = cards::hand_size(game.ruleset, n);
    let hands: Vec<Pile<Card>> = (0..n)
        .map(|_| Pile::Known(deck.drain(..size.min(deck.len())).collect()))
        .collect();
    let mut gold_pile = match game.ruleset {
        Ruleset::Base => game.gold_pile.clone(),
        Ruleset::Saboteur2 => Vec::new(),
    };
    gold_pile.sort();
    shuffle(&mut rng, &mut gold_pile);
    let set_aside = roles.split_off(n);
    Event::RoundStarted {
        round,
        first_player,
        roles: roles.into_iter().map(Secret::Known).collect(),
        set_aside: Pile::Known(set_aside),
        goals: Secret::Known(goals),
        hands,
        draw_pile: Pile::Known(deck),
        gold_pile: Pile::Known(gold_pile),
        removed: Pile::Known(removed),
    }
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

fn in_hand(game: &Game, seat: Seat, card: Card) -> Result<(), RuleViolation> {
    if game.hands[seat.index()].contains(&card) {
        Ok(())
    } else {
        reject(V::CardNotInHand, format!("{seat} does not hold {card}"))
    }
}

fn play_path(
    game: &Game,
    seat: Seat,
    card: Card,
    at: Cell,
    rotated: bool,
) -> Result<Vec<Event>, RuleViolation> {
    in_hand(game, seat, card)?;
    let Some(shape) = card.path_shape() else {
        return reject(V::WrongCardKind, format!("{card} is not a path card"));
    };
    if let Some((tool, _)) = game.broken_tools(seat).next() {
        return reject(
            V::ToolsBroken,
            format!("{seat} has a broken {tool:?} and cannot play path cards").to_lowercase(),
        );
    }
    if game.is_trapped(seat) {
        return reject(
            V::Trapped,
            format!("{seat} is trapped and cannot play path cards"),
        );
    }
    if game.board.get(at).is_some() {
        return reject(V::CellOccupied, format!("the cell {at} is not empty"));
    }
    if !game.board.edges_match(at, shape, rotated) {
        return reject(
            V::EdgesMismatch,
            format!("{card} at {at} does not match the edges of its neighbours"),
        );
    }
    if shape.ladder {
        if !game.board.touches_card(at) || game.board.next_to_goal(at) {
            return reject(
                V::LadderPlacement,
                format!("a ladder must touch a card and must not lie next to a goal ({at})"),
            );
        }
    } else if !game
        .board
        .connects(&game.board.reached(), at, shape, rotated)
    {
        return reject(
            V::NotConnected,
            format!("{card} at {at} would not connect to the maze from the start"),
        );
    }
    let mut tx = Tx::new(game);
    tx.emit(Event::PathPlayed {
        seat,
        card,
        at,
        rotated,
    });
    let reach = tx.game.board.reached();
    let mut gold = false;
    let rules = tx.game.rules_version;
    for (cell, goal, rotated) in tx.game.board.goals_to_reveal(&reach, at, rules) {
        gold |= goal == Card::GoalGold;
        tx.emit(Event::GoalRevealed {
            at: cell,
            card: goal,
            rotated,
        });
    }
    if gold {
        end_round(&mut tx, Some(seat));
    } else {
        end_turn(&mut tx, seat, 1);
    }
    Ok(tx.events)
}

fn target_seat(game: &Game, card: Card, target: Option<Target>) -> Result<Seat, RuleViolation> {
    match target {
        Some(Target::Seat(t)) if t.seat.index() < game.n() => Ok(t.seat),
        Some(Target::Seat(t)) => reject(V::InvalidTarget, format!("there is no seat {}", t.seat.0)),
        _ => reject(
            V::InvalidTarget,
            format!("{card} must target a seat: {{\"seat\": n}}"),
        ),
    }
}

fn target_cell(card: Card, target: Option<Target>) -> Result<Cell, RuleViolation> {
    match target {
        Some(Target::Cell(c)) => Ok(c),
        _ => reject(
            V::InvalidTarget,
            format!("{card} must target a cell: {{\"x\": x, \"y\": y}}"),
        ),
    }
}

fn play_action(
    game: &Game,
    seat: Seat,
    card: Card,
    target: Option<Target>,
    tool: Option<Tool>,
) -> Result<Vec<Event>, RuleViolation> {
    in_hand(game, seat, card)?;
    let Some(action) = card.action() else {
        return reject(V::WrongCardKind, format!("{card} is not an action card"));
    };
    if tool.is_some() && !matches!(action, Action::Repair(..)) {
        return reject(V::InvalidTarget, format!("{card} does not name a tool"));
    }
    let event = match action {
        Action::Break(broken) => {
            let target = target_seat(game, card, target)?;
            if game.broken_tools(target).any(|(t, _)| t == broken) {
                return reject(
                    V::ToolAlreadyBroken,
                    format!("{target} already has a broken {broken:?}").to_lowercase(),
                );
            }
            Event::ToolBroken { seat, card, target }
        }
        Action::Repair(a, b) => {
            let target = target_seat(game, card, target)?;
            let tool = match (b, tool) {
                (None, None) => a,
                (None, Some(t)) if t == a => a,
                (Some(b), Some(t)) if t == a || t == b => t,
                (Some(_), None) => {
                    return reject(
                        V::InvalidTarget,
                        format!("{card} repairs one of two tools: name it with \"tool\""),
                    );
                }
                (_, Some(t)) => {
                    return reject(
                        V::InvalidTarget,
                        format!("{card} cannot repair the {t:?}").to_lowercase(),
                    );
                }
            };
            let Some((_, broken)) = game.broken_tools(target).find(|(t, _)| *t == tool) else {
                return reject(
                    V::NothingToRepair,
                    format!("{target} has no broken {tool:?} to repair").to_lowercase(),
                );
            };
            Event::ToolRepaired {
                seat,
                card,
                target,
                tool,
                broken,
            }
        }
        Action::Rockfall => {
            let at = target_cell(card, target)?;
            match game.board.get(at) {
                Some(t) if t.card.path_shape().is_some() => Event::PathRemoved {
                    seat,
                    at,
                    removed: t.card,
                },
                _ => {
                    return reject(
                        V::NotATunnel,
                        format!(
                            "there is no path card at {at} (the start and goals cannot be removed)"
                        ),
                    );
                }
            }
        }
        Action::Map => {
            let at = target_cell(card, target)?;
            match game.board.get(at) {
                Some(t) if t.face_down => Event::MapUsed {
                    seat,
                    at,
                    goal: Secret::Known(t.card),
                },
                _ => {
                    return reject(
                        V::NotAHiddenGoal,
                        format!("there is no face-down goal at {at}"),
                    );
                }
            }
        }
        Action::Theft => {
            if game.is_trapped(seat) {
                return reject(
                    V::Trapped,
                    format!("{seat} is trapped and cannot use Theft"),
                );
            }
            if target.is_some() {
                return reject(
                    V::InvalidTarget,
                    "theft is played in front of oneself, with no target",
                );
            }
            if game.in_front[seat.index()].contains(&Card::Theft) {
                return reject(
                    V::AlreadyInFront,
                    format!("{seat} already has a theft in front of them"),
                );
            }
            Event::TheftPlayed { seat }
        }
        Action::HandsOff | Action::FreeAtLast => {
            let target = target_seat(game, card, target)?;
            let removed = if action == Action::HandsOff {
                Card::Theft
            } else {
                Card::Trapped
            };
            if !game.in_front[target.index()].contains(&removed) {
                return reject(
                    V::NothingToRemove,
                    format!("{target} has no {removed} in front of them"),
                );
            }
            Event::ActionCancelled {
                seat,
                card,
                target,
                removed,
            }
        }
        Action::Trapped => {
            let target = target_seat(game, card, target)?;
            if game.is_trapped(target) {
                return reject(V::AlreadyInFront, format!("{target} is already trapped"));
            }
            Event::PlayerTrapped { seat, target }
        }
        Action::SwapHats => {
            let target = target_seat(game, card, target)?;
            let Some(new) = game.set_aside.first() else {
                return reject(V::DwarfPileEmpty, "the dwarf pile is empty");
            };
            Event::HatsSwapped {
                seat,
                target,
                old: Secret::Known(game.roles[target.index()]),
                new: Secret::Known(*new),
            }
        }
        Action::Inspection | Action::SwapHand => {
            let target = target_seat(game, card, target)?;
            if target == seat {
                return reject(
                    V::InvalidTarget,
                    format!("{card} must target another player"),
                );
            }
            if action == Action::Inspection {
                Event::Inspected {
                    seat,
                    target,
                    role: Secret::Known(game.roles[target.index()]),
                }
            } else {
                let mut mine = game.hands[seat.index()].clone();
                take(&mut mine, card);
                Event::HandsSwapped {
                    seat,
                    target,
                    seat_hand: Pile::Known(game.hands[target.index()].clone()),
                    target_hand: Pile::Known(mine),
                }
            }
        }
    };
    let mut tx = Tx::new(game);
    let compensate = match &event {
        Event::HandsSwapped { target, .. } => Some(*target),
        _ => None,
    };
    tx.emit(event);
    if let Some(target) = compensate
        && let Some(&card) = tx.game.draw_pile.first()
    {
        tx.emit(Event::CardDrawn {
            seat: target,
            card: Secret::Known(card),
        });
    }
    end_turn(&mut tx, seat, 1);
    Ok(tx.events)
}

fn discard_to_remove(
    game: &Game,
    seat: Seat,
    discard: &[Card],
    remove: Card,
) -> Result<Vec<Event>, RuleViolation> {
    if let Some(c) = holds_all(&game.hands[seat.index()], discard) {
        return reject(
            V::CardNotInHand,
            format!("{seat} does not hold {c} to discard"),
        );
    }
    if !game.in_front[seat.index()].contains(&remove) {
        return reject(
            V::NothingToRemove,
            format!("{seat} has no {remove} in front of them"),
        );
    }
    if discard.len() != 2 {
        return reject(
            V::InvalidDiscard,
            format!("discard exactly 2 cards, not {}", discard.len()),
        );
    }
    let mut tx = Tx::new(game);
    tx.emit(Event::DiscardedToRemove {
        seat,
        discarded: Pile::Known(discard.to_vec()),
        removed: remove,
    });
    end_turn(&mut tx, seat, 1);
    Ok(tx.events)
}

fn steal(game: &Game, seat: Seat, from: Option<Seat>) -> Result<Vec<Event>, RuleViolation> {
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

/// Whether `discard` is a sub-multiset of `hand`.
fn holds_all(hand: &[Card], discard: &[Card]) -> Option<Card> {
    let mut rest = hand.to_vec();
    discard.iter().copied().find(|c| !take(&mut rest, *c))
}

fn pass(game: &Game, seat: Seat, discard: &[Card]) -> Result<Vec<Event>, RuleViolation> {
    let hand = &game.hands[seat.index()];
    if let Some(c) = holds_all(hand, discard) {
        return reject(
            V::CardNotInHand,
            format!("{seat} does not hold {c} to discard"),
        );
    }
    let (min, max) = match (game.ruleset, hand.is_empty()) {
        (_, true) => (0, 0),
        (Ruleset::Base, false) => (1, 1),
        (Ruleset::Saboteur2, false) => (1, 3),
    };
    if discard.len() < min || discard.len() > max {
        let want = if min == max {
            format!("exactly {min}")
        } else {
            format!("{min} to {max}")
        };
        return reject(
            V::InvalidDiscard,
            format!("a pass discards {want} card(s) now, not {}", discard.len()),
        );
    }
    let mut tx = Tx::new(game);
    tx.emit(Event::Passed {
        seat,
        discarded: Pile::Known(discard.to_vec()),
    });
    let draws = match game.ruleset {
        Ruleset::Base => 1,
        Ruleset::Saboteur2 => discard.len(),
    };
    end_turn(&mut tx, seat, draws);
    Ok(tx.events)
}

/// After a turn: the player draws, play moves on, empty-handed players are passed over with
/// an empty draw pile (§3.3 ruling), and the round ends when nobody holds a card (§6).
fn end_turn(tx: &mut Tx, seat: Seat, draws: usize) {
    for _ in 0..draws {
        let Some(&card) = tx.game.draw_pile.first() else {
            break;
        };
        tx.emit(Event::CardDrawn {
            seat,
            card: Secret::Known(card),
        });
    }
    loop {
        let g = &tx.game;
        if g.draw_pile.is_empty() && g.hands.iter().all(Vec::is_empty) {
            end_round(tx, None);
            return;
        }
        if g.draw_pile.is_empty() && g.hands[g.current.index()].is_empty() {
            let seat = g.current;
            tx.emit(Event::TurnSkipped { seat });
            continue;
        }
        return;
    }
}

fn is_digger(role: Role) -> bool {
    matches!(role, Role::GoldDigger)
}

/// Whether a seat takes part in handing out gold (§7.1, with the forfeit variant).
fn shares_gold(game: &Game, seat: Seat) -> bool {
    is_digger(game.roles[seat.index()])
        && !(game.options.broken_tools_forfeit_gold && game.has_broken_tool(seat))
}

/// The next seat counter-clockwise from `from` (exclusive; `from` itself last) that shares gold.
fn next_sharer(game: &Game, from: Seat) -> Option<Seat> {
    (1..=game.n())
        .map(|k| from.right(game.n(), k))
        .find(|s| shares_gold(game, *s))
}

/// The end of a round (§6): roles revealed, winners named, gold handed out.
fn end_round(tx: &mut Tx, finder: Option<Seat>) {
    if tx.game.ruleset == Ruleset::Saboteur2 {
        saboteur2::end_round(tx, finder);
        return;
    }
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
fn hand_on_last_card(tx: &mut Tx, seat: Seat) {
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

fn choose_gold(
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
fn can_make(amount: u32, pile: &VecDeque<Card>) -> bool {
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
fn pay_saboteurs(tx: &mut Tx) {
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

/// After the gold is handed out: the next round (§6), or the end of the game (§8).
pub(crate) fn next_round(tx: &mut Tx) {
    let g = &tx.game;
    if g.round >= 3 {
        let best = g.gold.iter().copied().max().unwrap_or(0);
        let winners = (0..g.players)
            .map(Seat)
            .filter(|s| g.gold[s.index()] == best)
            .collect();
        tx.emit(Event::GameEnded {
            gold: g.gold.clone(),
            winners,
        });
        return;
    }
    let first = g
        .last_turn
        .map(|s| s.left(g.n(), 1))
        .unwrap_or(g.round_first_player);
    let event = deal(g, g.round + 1, first);
    tx.emit(event);
    // A dealt round always has cards in hand, so no turn needs skipping here.
}
