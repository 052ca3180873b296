//! The reducer: [`Game::apply`] folds one event into the state. It holds no rules.

use crate::board::Board;
use crate::cards::Card;
use crate::event::Event;
use crate::secret::Pile;

use super::{Game, Phase, RoundResult, take};
use crate::conduct::Conduct;

impl Game {
    /// Applies one event: the reducer. It never fails and never validates; replaying a game is
    /// a fold of this function over its events.
    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::GameCreated { .. }
            | Event::SeedMixed { .. }
            | Event::RoundStarted { .. }
            | Event::RoundEnded { .. }
            | Event::GameEnded { .. }
            | Event::GameCancelled {} => self.apply_round(event),
            Event::Passed { .. }
            | Event::CardDrawn { .. }
            | Event::TurnSkipped { .. }
            | Event::DiscardedToRemove { .. } => self.apply_turn(event),
            Event::PathPlayed { .. }
            | Event::GoalRevealed { .. }
            | Event::PathRemoved { .. }
            | Event::MapUsed { .. } => self.apply_path(event),
            Event::ToolBroken { .. }
            | Event::ToolRepaired { .. }
            | Event::TheftPlayed { .. }
            | Event::PlayerTrapped { .. }
            | Event::ActionCancelled { .. }
            | Event::HatsSwapped { .. }
            | Event::Inspected { .. }
            | Event::HandsSwapped { .. } => self.apply_action(event),
            Event::GoldDrawn { .. }
            | Event::GoldOffered { .. }
            | Event::GoldKept { .. }
            | Event::SaboteursPaid { .. }
            | Event::CoinsPaid { .. }
            | Event::StealingStarted { .. }
            | Event::CoinStolen { .. } => self.apply_gold(event),
            // Log-level events: the history (crate::history) gives them their meaning.
            Event::CommandAccepted { .. }
            | Event::UndoRequested { .. }
            | Event::UndoApproved { .. }
            | Event::UndoDeclined { .. }
            | Event::Undone { .. }
            | Event::TalkPosted { .. }
            | Event::TalkHidden { .. }
            | Event::TurnTimedOut { .. }
            | Event::SeatHandedToBot { .. }
            | Event::SeatReclaimed { .. }
            | Event::SeatKeyRegistered { .. }
            | Event::TokenReissued { .. } => {}
        }
    }

    /// Applies the events that open and close a game and its rounds.
    fn apply_round(&mut self, event: &Event) {
        match event {
            Event::GameCreated { .. } => {
                if let Some(g) = Game::from_created(event) {
                    *self = g;
                }
            }
            Event::SeedMixed { contributions, .. } => {
                self.seed = self.seed.mixed(contributions);
            }
            Event::RoundStarted {
                round,
                first_player,
                roles,
                set_aside,
                goals,
                hands,
                draw_pile,
                gold_pile,
                removed,
                ..
            } => {
                let n = self.n();
                self.round = *round;
                self.round_first_player = *first_player;
                self.current = *first_player;
                self.phase = Phase::Playing;
                self.roles = roles.iter().filter_map(|r| r.known().copied()).collect();
                self.set_aside = set_aside.cards().to_vec();
                self.board = goals.known().map(|g| Board::new(*g)).unwrap_or_default();
                self.hands = hands.iter().map(|h| h.cards().to_vec()).collect();
                self.draw_pile = draw_pile.cards().to_vec();
                self.gold_pile = gold_pile.cards().to_vec();
                self.removed = removed.cards().to_vec();
                self.discard_pile.clear();
                self.in_front = vec![Vec::new(); n];
                self.peeked = vec![Vec::new(); n];
                self.inspected = vec![Vec::new(); n];
                self.dwarf_discard.clear();
                self.thefts.clear();
                self.last_turn = None;
                self.conduct = vec![Conduct::default(); n];
            }
            Event::RoundEnded {
                round,
                gold_reached_by,
                roles,
                winners,
            } => {
                self.phase = Phase::RoundOver;
                self.results.push(RoundResult {
                    round: *round,
                    gold_reached_by: *gold_reached_by,
                    roles: roles.clone(),
                    winners: winners.clone(),
                });
            }
            Event::GameEnded { winners, .. } => {
                self.phase = Phase::GameOver;
                self.winners = winners.clone();
            }
            Event::GameCancelled {} => self.phase = Phase::Cancelled,
            // The other events are not of this group: `apply` routes them elsewhere.
            _ => {}
        }
    }

    /// Applies the events that end a turn without a card on the table: a pass, a draw, a skipped
    /// turn, a discard to remove a card in front.
    fn apply_turn(&mut self, event: &Event) {
        match event {
            Event::Passed { seat, discarded } => {
                for c in discarded.cards() {
                    take(&mut self.hands[seat.index()], *c);
                    self.discard_pile.push(*c);
                }
                self.last_turn = Some(*seat);
                self.next_turn(*seat);
            }
            Event::CardDrawn { seat, card } if !self.draw_pile.is_empty() => {
                let top = self.draw_pile.remove(0);
                self.hands[seat.index()].push(card.known().copied().unwrap_or(top));
            }
            Event::TurnSkipped { seat } => self.next_turn(*seat),
            Event::DiscardedToRemove {
                seat,
                discarded,
                removed,
            } => {
                for c in discarded.cards() {
                    take(&mut self.hands[seat.index()], *c);
                    self.discard_pile.push(*c);
                }
                take(&mut self.in_front[seat.index()], *removed);
                self.discard_pile.push(*removed);
                if *removed == Card::Theft {
                    self.thefts.retain(|s| s != seat);
                }
                self.last_turn = Some(*seat);
                self.next_turn(*seat);
            }
            // The other events are not of this group: `apply` routes them elsewhere.
            _ => {}
        }
    }

    /// Applies the path cards and the cards played on the board: paths, rockfalls, maps, revealed
    /// goals.
    fn apply_path(&mut self, event: &Event) {
        match event {
            Event::PathPlayed {
                seat,
                card,
                at,
                rotated,
            } => {
                self.conduct_of(*seat).count_path(*card, *at, *rotated);
                self.board.place(
                    *at,
                    crate::board::Tile {
                        card: *card,
                        rotated: *rotated,
                        face_down: false,
                    },
                );
                self.played(*seat, *card);
            }
            Event::GoalRevealed { at, rotated, .. } => self.board.reveal(*at, *rotated),
            Event::PathRemoved { seat, at, removed } => {
                self.conduct_of(*seat).count_rockfall(*removed);
                self.board.remove(*at);
                self.discard_pile.extend([Card::Rockfall, *removed]);
                self.played(*seat, Card::Rockfall);
            }
            Event::MapUsed { seat, at, goal } => {
                if let Some(goal) = goal.known() {
                    self.peeked[seat.index()].push((*at, *goal));
                }
                self.discard_pile.push(Card::Map);
                self.played(*seat, Card::Map);
            }
            // The other events are not of this group: `apply` routes them elsewhere.
            _ => {}
        }
    }

    /// Applies the action cards played on players: tools, thefts, traps, cancellations, hats,
    /// inspections and hand swaps.
    fn apply_action(&mut self, event: &Event) {
        match event {
            Event::ToolBroken { seat, card, target } => {
                if seat != target {
                    self.conduct_of(*seat).tools_broken += 1;
                }
                self.in_front[target.index()].push(*card);
                self.played(*seat, *card);
            }
            Event::ToolRepaired {
                seat,
                card,
                target,
                broken,
                ..
            } => {
                if seat != target {
                    self.conduct_of(*seat).repairs += 1;
                }
                take(&mut self.in_front[target.index()], *broken);
                self.discard_pile.extend([*card, *broken]);
                self.played(*seat, *card);
            }
            Event::TheftPlayed { seat } => {
                self.in_front[seat.index()].push(Card::Theft);
                self.thefts.push(*seat);
                self.played(*seat, Card::Theft);
            }
            Event::PlayerTrapped { seat, target } => {
                if seat != target {
                    self.conduct_of(*seat).traps += 1;
                }
                self.in_front[target.index()].push(Card::Trapped);
                self.played(*seat, Card::Trapped);
            }
            Event::ActionCancelled {
                seat,
                card,
                target,
                removed,
            } => {
                if *removed == Card::Trapped && seat != target {
                    self.conduct_of(*seat).frees += 1;
                }
                take(&mut self.in_front[target.index()], *removed);
                self.discard_pile.extend([*card, *removed]);
                if *removed == Card::Theft {
                    self.thefts.retain(|s| s != target);
                }
                self.played(*seat, *card);
            }
            Event::HatsSwapped {
                seat,
                target,
                old,
                new,
            } => {
                let t = target.index();
                let old = old.known().copied().unwrap_or(self.roles[t]);
                let top = if self.set_aside.is_empty() {
                    None
                } else {
                    Some(self.set_aside.remove(0))
                };
                if let Some(new) = new.known().copied().or(top) {
                    self.roles[t] = new;
                }
                self.dwarf_discard.push(old);
                self.discard_pile.push(Card::SwapHats);
                self.played(*seat, Card::SwapHats);
            }
            Event::Inspected { seat, target, role } => {
                if let Some(role) = role.known() {
                    self.inspected[seat.index()].push((*target, *role));
                }
                self.discard_pile.push(Card::Inspection);
                self.played(*seat, Card::Inspection);
            }
            Event::HandsSwapped {
                seat,
                target,
                seat_hand,
                target_hand,
            } => {
                take(&mut self.hands[seat.index()], Card::SwapHand);
                self.discard_pile.push(Card::SwapHand);
                self.hands.swap(seat.index(), target.index());
                if let (Pile::Known(a), Pile::Known(b)) = (seat_hand, target_hand) {
                    self.hands[seat.index()] = a.clone();
                    self.hands[target.index()] = b.clone();
                }
                self.last_turn = Some(*seat);
                self.next_turn(*seat);
            }
            // The other events are not of this group: `apply` routes them elsewhere.
            _ => {}
        }
    }

    /// Applies the gold events: gold drawn, offered and kept, saboteurs paid, coins paid and
    /// stolen.
    fn apply_gold(&mut self, event: &Event) {
        match event {
            Event::GoldDrawn { seat, cards } => {
                let n = cards.len().min(self.gold_pile.len());
                let drawn: Vec<Card> = self.gold_pile.drain(..n).collect();
                self.phase = Phase::ChoosingGold {
                    chooser: *seat,
                    offered: drawn,
                };
            }
            Event::GoldOffered { seat, .. } => {
                if let Phase::ChoosingGold { chooser, .. } = &mut self.phase {
                    *chooser = *seat;
                }
            }
            Event::GoldKept { seat, card, .. } => {
                if let Phase::ChoosingGold { offered, .. } = &mut self.phase {
                    let card = card.known().copied().or_else(|| offered.first().copied());
                    if let Some(card) = card {
                        take(offered, card);
                        self.gold_cards[seat.index()].push(card);
                        self.gold[seat.index()] += u32::from(card.gold_value().unwrap_or(0));
                    }
                    if offered.is_empty() {
                        self.phase = Phase::RoundOver;
                    }
                }
            }
            Event::SaboteursPaid {
                payments,
                gold_pile,
            } => {
                for p in payments {
                    for c in p.cards.cards() {
                        self.gold_cards[p.seat.index()].push(*c);
                        self.gold[p.seat.index()] += u32::from(c.gold_value().unwrap_or(0));
                    }
                }
                self.gold_pile = gold_pile.cards().to_vec();
            }
            Event::CoinsPaid { coins } => {
                for (total, c) in self.gold.iter_mut().zip(coins) {
                    *total += c;
                }
            }
            Event::StealingStarted { order } => {
                self.phase = Phase::Stealing {
                    order: order.clone(),
                };
            }
            Event::CoinStolen { seat, from } => {
                if let Some(from) = from
                    && self.gold[from.index()] > 0
                {
                    self.gold[from.index()] -= 1;
                    self.gold[seat.index()] += 1;
                }
                if take(&mut self.in_front[seat.index()], Card::Theft) {
                    self.discard_pile.push(Card::Theft);
                }
                self.thefts.retain(|s| s != seat);
                if let Phase::Stealing { order } = &mut self.phase {
                    order.retain(|s| s != seat);
                    if order.is_empty() {
                        self.phase = Phase::RoundOver;
                    }
                }
            }
            // The other events are not of this group: `apply` routes them elsewhere.
            _ => {}
        }
    }
}
