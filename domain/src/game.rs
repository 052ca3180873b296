//! The state of a game and the reducer that applies events to it.

use serde::{Deserialize, Serialize};

pub use crate::options::{GoldCardsDrawn, Options, RULES_VERSION};
use crate::options::{first_rules_version, is_first_rules_version};

use crate::board::{Board, GOAL_CELLS};
use crate::cards::{Action, Card, Role, Ruleset, Tool};
use crate::event::Event;
use crate::geometry::Cell;
use crate::random::Seed;
use crate::seat::Seat;
use crate::secret::Pile;

/// What the game is waiting for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// Created, not started yet.
    NotStarted,
    /// Players take turns (§3, §9.2).
    Playing,
    /// A gold-digger chooses a gold card (§7.1).
    ChoosingGold {
        /// Who chooses.
        chooser: Seat,
        /// The cards on offer.
        offered: Vec<Card>,
    },
    /// Thieves resolve their Theft cards, first of `order` first (`saboteur2` §9.4).
    Stealing {
        /// The thieves still to act.
        order: Vec<Seat>,
    },
    /// The round is over; gold is being handed out.
    RoundOver,
    /// The game has ended (§8).
    GameOver,
}

impl Phase {
    /// The phase's name as used in scenario checks.
    pub fn name(&self) -> &'static str {
        match self {
            Phase::NotStarted => "not_started",
            Phase::Playing => "playing",
            Phase::ChoosingGold { .. } => "choosing_gold",
            Phase::Stealing { .. } => "stealing",
            Phase::RoundOver => "round_over",
            Phase::GameOver => "game_over",
        }
    }
}

/// What is known of a finished round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoundResult {
    /// Which round.
    pub round: u8,
    /// Who turned the gold, if anyone.
    pub gold_reached_by: Option<Seat>,
    /// The dwarf cards, revealed at the end of the round.
    pub roles: Vec<Role>,
    /// The seats that won it.
    pub winners: Vec<Seat>,
}

/// What one seat has publicly done this round: counters the reducer keeps from public events
/// only, reset at each round's start. Bots turn them into trust and suspicion; any player could
/// keep the same tally by watching the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(default)]
pub struct Conduct {
    /// Path cards without a dead end that open towards the goals (east of the start's column
    /// side, or north/south between the goals).
    pub tunnels: u32,
    /// Path cards without a dead end that do not open towards the goals.
    pub detours: u32,
    /// Path cards with a dead-end segment (ladders excepted).
    pub dead_ends: u32,
    /// Rockfalls that removed a path card without a dead end.
    pub rockfalls: u32,
    /// Rockfalls that removed a dead-end card.
    pub cleared: u32,
    /// Tools broken in front of another seat.
    pub tools_broken: u32,
    /// Tools repaired in front of another seat.
    pub repairs: u32,
    /// Other seats trapped (`saboteur2`).
    pub traps: u32,
    /// Other seats freed from a trap (`saboteur2`).
    pub frees: u32,
    /// Green doors placed (`saboteur2`).
    pub green_doors: u32,
    /// Blue doors placed (`saboteur2`).
    pub blue_doors: u32,
}

/// Whether a path card has a dead-end segment (one opening only); ladders are roots, not dead
/// ends.
pub fn is_dead_end(card: Card) -> bool {
    card.path_shape()
        .is_some_and(|s| !s.ladder && s.segments.iter().any(|g| g.edges.0.count_ones() == 1))
}

/// Whether a path card lying at `at` in the given orientation opens towards the goals: east
/// west of the goals' column, west east of it, north or south in the goals' column.
pub fn opens_towards_goals(card: Card, at: Cell, rotated: bool) -> bool {
    use crate::geometry::Side;
    let Some(shape) = card.path_shape() else {
        return false;
    };
    let goal_x = GOAL_CELLS[0].x;
    match at.x.cmp(&goal_x) {
        std::cmp::Ordering::Less => shape.open(rotated, Side::E),
        std::cmp::Ordering::Greater => shape.open(rotated, Side::W),
        std::cmp::Ordering::Equal => shape.open(rotated, Side::N) || shape.open(rotated, Side::S),
    }
}

/// The whole state of a game: what the omniscient audience sees. Only [`Game::apply`] changes
/// it; players see it through [`crate::view`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    /// `base` or `saboteur2`.
    pub ruleset: Ruleset,
    /// The rules version it is played under (docs/rules.md §13).
    #[serde(
        default = "first_rules_version",
        skip_serializing_if = "is_first_rules_version"
    )]
    pub rules_version: u8,
    /// Rule variants.
    pub options: Options,
    /// How many seats.
    pub players: u8,
    /// Who plays first in round 1.
    pub first_player: Seat,
    /// The seed of every shuffle.
    pub seed: Seed,
    /// The current round, 0 before the start.
    pub round: u8,
    /// Who started the current round.
    pub round_first_player: Seat,
    /// What the game waits for.
    pub phase: Phase,
    /// Whose turn it is while playing.
    pub current: Seat,
    /// Each seat's dwarf card this round.
    pub roles: Vec<Role>,
    /// The dwarf cards nobody holds (`saboteur2`: the dwarf pile, top first).
    pub set_aside: Vec<Role>,
    /// The maze.
    pub board: Board,
    /// Each seat's hand.
    pub hands: Vec<Vec<Card>>,
    /// The draw pile, top first.
    pub draw_pile: Vec<Card>,
    /// The discard pile, in the order cards went there.
    pub discard_pile: Vec<Card>,
    /// The action cards in front of each seat.
    pub in_front: Vec<Vec<Card>>,
    /// The gold pile, top first.
    pub gold_pile: Vec<Card>,
    /// The gold cards each seat has won.
    pub gold_cards: Vec<Vec<Card>>,
    /// Each seat's gold total.
    pub gold: Vec<u32>,
    /// The goals each seat has looked at with a map this round.
    pub peeked: Vec<Vec<(Cell, Card)>>,
    /// The cards removed unseen this round (`saboteur2`).
    pub removed: Vec<Card>,
    /// Dwarf cards discarded by Swap hats this round (`saboteur2`).
    pub dwarf_discard: Vec<Role>,
    /// The dwarf cards each seat has looked at with Inspection this round.
    pub inspected: Vec<Vec<(Seat, Role)>>,
    /// The seats with a Theft in front of them, in the order they played it.
    pub thefts: Vec<Seat>,
    /// Who took the last turn this round (automatic passes excluded, §6).
    pub last_turn: Option<Seat>,
    /// The finished rounds.
    pub results: Vec<RoundResult>,
    /// The seats sharing the win, once the game is over.
    pub winners: Vec<Seat>,
    /// What each seat has publicly done this round (public; reset at each round's start).
    #[serde(default)]
    pub conduct: Vec<Conduct>,
}

/// Removes one copy of `card` from `cards`; false when absent.
pub(crate) fn take(cards: &mut Vec<Card>, card: Card) -> bool {
    match cards.iter().position(|c| *c == card) {
        Some(i) => {
            cards.remove(i);
            true
        }
        None => false,
    }
}

impl Game {
    /// The state right after [`Event::GameCreated`].
    pub fn new(
        ruleset: Ruleset,
        options: Options,
        players: u8,
        first_player: Seat,
        seed: Seed,
    ) -> Game {
        let n = players as usize;
        Game {
            ruleset,
            rules_version: RULES_VERSION,
            options,
            players,
            first_player,
            seed,
            round: 0,
            round_first_player: first_player,
            phase: Phase::NotStarted,
            current: first_player,
            roles: Vec::new(),
            set_aside: Vec::new(),
            board: Board::default(),
            hands: vec![Vec::new(); n],
            draw_pile: Vec::new(),
            discard_pile: Vec::new(),
            in_front: vec![Vec::new(); n],
            gold_pile: crate::cards::gold_cards(),
            gold_cards: vec![Vec::new(); n],
            gold: vec![0; n],
            peeked: vec![Vec::new(); n],
            removed: Vec::new(),
            dwarf_discard: Vec::new(),
            inspected: vec![Vec::new(); n],
            thefts: Vec::new(),
            last_turn: None,
            results: Vec::new(),
            winners: Vec::new(),
            conduct: vec![Conduct::default(); n],
        }
    }

    /// Rebuilds a game from its log: the fold of [`Game::apply`] over the events after the
    /// first, which must be [`Event::GameCreated`]. `None` for an empty log or one that starts
    /// otherwise.
    pub fn replay<'a>(events: impl IntoIterator<Item = &'a Event>) -> Option<Game> {
        let mut events = events.into_iter();
        let mut game = Game::from_created(events.next()?)?;
        for e in events {
            game.apply(e);
        }
        Some(game)
    }

    /// The state a [`Event::GameCreated`] describes; `None` for any other event or a hidden
    /// seed.
    pub fn from_created(event: &Event) -> Option<Game> {
        match event {
            Event::GameCreated {
                ruleset,
                options,
                players,
                first_player,
                seed,
                rules_version,
            } => {
                if !(1..=RULES_VERSION).contains(rules_version) {
                    return None;
                }
                let mut game =
                    Game::new(*ruleset, *options, *players, *first_player, *seed.known()?);
                game.rules_version = *rules_version;
                Some(game)
            }
            _ => None,
        }
    }

    /// How many seats, as a count.
    pub fn n(&self) -> usize {
        self.players as usize
    }

    /// The seat whose decision the game waits for, if any.
    pub fn awaited(&self) -> Option<Seat> {
        match &self.phase {
            Phase::Playing => Some(self.current),
            Phase::ChoosingGold { chooser, .. } => Some(*chooser),
            Phase::Stealing { order } => order.first().copied(),
            _ => None,
        }
    }

    /// The broken tools in front of a seat.
    pub fn broken_tools(&self, seat: Seat) -> impl Iterator<Item = (Tool, Card)> + '_ {
        self.in_front[seat.index()]
            .iter()
            .filter_map(|c| match c.action() {
                Some(Action::Break(t)) => Some((t, *c)),
                _ => None,
            })
    }

    /// Whether a seat has any broken tool in front of them (§4.1).
    pub fn has_broken_tool(&self, seat: Seat) -> bool {
        self.broken_tools(seat).next().is_some()
    }

    /// Whether a Trapped card lies in front of a seat (§9.4).
    pub fn is_trapped(&self, seat: Seat) -> bool {
        self.in_front[seat.index()].contains(&Card::Trapped)
    }

    /// Whether the cell holds a face-down goal.
    pub fn is_hidden_goal(&self, cell: Cell) -> bool {
        GOAL_CELLS.contains(&cell) && self.board.get(cell).is_some_and(|t| t.face_down)
    }

    /// The conduct counters of a seat, grown to size when a state was stored without them.
    fn conduct_of(&mut self, seat: Seat) -> &mut Conduct {
        let n = self.n().max(seat.index() + 1);
        if self.conduct.len() < n {
            self.conduct.resize(n, Conduct::default());
        }
        &mut self.conduct[seat.index()]
    }

    fn next_turn(&mut self, seat: Seat) {
        self.current = seat.left(self.n(), 1);
    }

    fn played(&mut self, seat: Seat, card: Card) {
        take(&mut self.hands[seat.index()], card);
        self.last_turn = Some(seat);
        self.next_turn(seat);
    }

    /// Applies one event: the reducer. It never fails and never validates; replaying a game is
    /// a fold of this function over its events.
    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::GameCreated { .. } => {
                if let Some(g) = Game::from_created(event) {
                    *self = g;
                }
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
            Event::PathPlayed {
                seat,
                card,
                at,
                rotated,
            } => {
                let door = card
                    .path_shape()
                    .and_then(|s| s.segments.iter().find_map(|g| g.door));
                let towards = opens_towards_goals(*card, *at, *rotated);
                let c = self.conduct_of(*seat);
                match door {
                    Some(crate::cards::Team::Green) => c.green_doors += 1,
                    Some(crate::cards::Team::Blue) => c.blue_doors += 1,
                    None => {}
                }
                if is_dead_end(*card) {
                    c.dead_ends += 1;
                } else if towards {
                    c.tunnels += 1;
                } else {
                    c.detours += 1;
                }
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
            Event::PathRemoved { seat, at, removed } => {
                let c = self.conduct_of(*seat);
                if is_dead_end(*removed) {
                    c.cleared += 1;
                } else {
                    c.rockfalls += 1;
                }
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
            Event::Passed { seat, discarded } => {
                for c in discarded.cards() {
                    take(&mut self.hands[seat.index()], *c);
                    self.discard_pile.push(*c);
                }
                self.last_turn = Some(*seat);
                self.next_turn(*seat);
            }
            Event::CardDrawn { seat, card } => {
                if !self.draw_pile.is_empty() {
                    let top = self.draw_pile.remove(0);
                    self.hands[seat.index()].push(card.known().copied().unwrap_or(top));
                }
            }
            Event::TurnSkipped { seat } => self.next_turn(*seat),
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
            // Log-level events: the history (crate::history) gives them their meaning.
            Event::CommandAccepted { .. }
            | Event::UndoRequested { .. }
            | Event::UndoApproved { .. }
            | Event::UndoDeclined { .. }
            | Event::Undone { .. } => {}
            Event::GameEnded { winners, .. } => {
                self.phase = Phase::GameOver;
                self.winners = winners.clone();
            }
        }
    }
}
