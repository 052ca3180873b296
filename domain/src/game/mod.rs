//! The state of a game and the reducer that applies events to it.

use serde::{Deserialize, Serialize};

pub use crate::options::{FIRST_RULES_VERSION, GoldCardsDrawn, Options, RULES_VERSION};
use crate::options::{first_rules_version, is_first_rules_version};

pub use crate::conduct::{Conduct, is_dead_end, opens_towards_goals};

mod reducer;

use crate::board::{Board, GOAL_CELLS};
use crate::cards::{Action, Card, Role, Ruleset, Tool};
use crate::event::Event;
use crate::geometry::Cell;
use crate::random::Seed;
use crate::seat::Seat;

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
    /// The state right after [`Event::GameCreated`], under the newest rules version
    /// ([`RULES_VERSION`]).
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

    /// The state a [`Event::GameCreated`] describes; `None` for any other event, a hidden
    /// seed, or a rules version this build does not know (docs/rules.md §13).
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
                if !(FIRST_RULES_VERSION..=RULES_VERSION).contains(rules_version) {
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
}
