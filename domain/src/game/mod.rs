//! The state of a game and the reducer that applies events to it.

use serde::{Deserialize, Serialize};

use crate::options::is_first_rules_version;
pub use crate::options::{FIRST_RULES_VERSION, GoldCardsDrawn, Options, RULES_VERSION};

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
    /// The host cancelled the game before its start.
    Cancelled,
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
            Phase::Cancelled => "cancelled",
        }
    }

    /// The phase's kind without its data, as views show it.
    pub fn kind(&self) -> PhaseName {
        match self {
            Phase::NotStarted => PhaseName::NotStarted,
            Phase::Playing => PhaseName::Playing,
            Phase::ChoosingGold { .. } => PhaseName::ChoosingGold,
            Phase::Stealing { .. } => PhaseName::Stealing,
            Phase::RoundOver => PhaseName::RoundOver,
            Phase::GameOver => PhaseName::GameOver,
            Phase::Cancelled => PhaseName::Cancelled,
        }
    }
}

/// The kind of a [`Phase`], without its data: what views name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PhaseName {
    /// Created, not dealt yet.
    NotStarted,
    /// Players take turns (§3).
    Playing,
    /// The finder chooses gold cards (§7.1).
    ChoosingGold,
    /// Thefts are resolved at a round's end (§9.4).
    Stealing,
    /// Between rounds.
    RoundOver,
    /// The game has ended (§8).
    GameOver,
    /// The host cancelled the game before its start.
    Cancelled,
}

/// What is known of a finished round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoundResult {
    /// Which round.
    pub round: u8,
    /// Who turned the gold, if anyone.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub gold_reached_by: Option<Seat>,
    /// The dwarf cards, revealed at the end of the round.
    pub roles: Vec<Role>,
    /// The seats that won it.
    pub winners: Vec<Seat>,
}

/// The whole state of a game: what the omniscient audience sees. Only [`Game::apply`] changes
/// it (besides the constructors [`Game::new`], the pinned
/// positions of [`crate::Setup::into_game`] and the bots' [`crate::bot::rebuild`]); others read
/// it through accessors named like its fields. Players see it through [`crate::view()`].
///
/// It serialises (the golden logs pin its JSON) but does not deserialise: a state comes only
/// from the checked ways in above, so no unchecked JSON becomes a game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Game {
    /// `base` or `saboteur2`.
    pub(crate) ruleset: Ruleset,
    /// The rules version it is played under (docs/rules.md §13).
    #[serde(skip_serializing_if = "is_first_rules_version")]
    pub(crate) rules_version: u8,
    /// Rule variants.
    pub(crate) options: Options,
    /// How many seats.
    pub(crate) players: u8,
    /// Who plays first in round 1.
    pub(crate) first_player: Seat,
    /// The seed of every shuffle.
    pub(crate) seed: Seed,
    /// The current round, 0 before the start.
    pub(crate) round: u8,
    /// Who started the current round.
    pub(crate) round_first_player: Seat,
    /// What the game waits for.
    pub(crate) phase: Phase,
    /// Whose turn it is while playing.
    pub(crate) current: Seat,
    /// Each seat's dwarf card this round.
    pub(crate) roles: Vec<Role>,
    /// The dwarf cards nobody holds (`saboteur2`: the dwarf pile, top first).
    pub(crate) set_aside: Vec<Role>,
    /// The maze.
    pub(crate) board: Board,
    /// Each seat's hand.
    pub(crate) hands: Vec<Vec<Card>>,
    /// The draw pile, top first.
    pub(crate) draw_pile: Vec<Card>,
    /// The discard pile, in the order cards went there.
    pub(crate) discard_pile: Vec<Card>,
    /// The action cards in front of each seat.
    pub(crate) in_front: Vec<Vec<Card>>,
    /// The gold pile, top first.
    pub(crate) gold_pile: Vec<Card>,
    /// The gold cards each seat has won.
    pub(crate) gold_cards: Vec<Vec<Card>>,
    /// Each seat's gold total.
    pub(crate) gold: Vec<u32>,
    /// The goals each seat has looked at with a map this round.
    pub(crate) peeked: Vec<Vec<(Cell, Card)>>,
    /// The cards removed unseen this round (`saboteur2`).
    pub(crate) removed: Vec<Card>,
    /// Dwarf cards discarded by Swap hats this round (`saboteur2`).
    pub(crate) dwarf_discard: Vec<Role>,
    /// The dwarf cards each seat has looked at with Inspection this round.
    pub(crate) inspected: Vec<Vec<(Seat, Role)>>,
    /// The seats with a Theft in front of them, in the order they played it.
    pub(crate) thefts: Vec<Seat>,
    /// Who took the last turn this round (automatic passes excluded, §6).
    pub(crate) last_turn: Option<Seat>,
    /// The finished rounds.
    pub(crate) results: Vec<RoundResult>,
    /// The seats sharing the win, once the game is over.
    pub(crate) winners: Vec<Seat>,
    /// What each seat has publicly done this round (public; reset at each round's start).
    pub(crate) conduct: Vec<Conduct>,
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
                ..
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

/// Read access to every part of the state, one accessor per field.
impl Game {
    /// `base` or `saboteur2`.
    pub fn ruleset(&self) -> Ruleset {
        self.ruleset
    }

    /// Rule variants.
    pub fn options(&self) -> Options {
        self.options
    }

    /// How many seats.
    pub fn players(&self) -> u8 {
        self.players
    }

    /// Who plays first in round 1.
    pub fn first_player(&self) -> Seat {
        self.first_player
    }

    /// The seed of every shuffle.
    pub fn seed(&self) -> Seed {
        self.seed
    }

    /// The current round, 0 before the start.
    pub fn round(&self) -> u8 {
        self.round
    }

    /// Who started the current round.
    pub fn round_first_player(&self) -> Seat {
        self.round_first_player
    }

    /// What the game waits for.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// Whose turn it is while playing.
    pub fn current(&self) -> Seat {
        self.current
    }

    /// Each seat's dwarf card this round.
    pub fn roles(&self) -> &[Role] {
        &self.roles
    }

    /// The dwarf cards nobody holds (`saboteur2`: the dwarf pile, top first).
    pub fn set_aside(&self) -> &[Role] {
        &self.set_aside
    }

    /// The maze.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Each seat's hand.
    pub fn hands(&self) -> &[Vec<Card>] {
        &self.hands
    }

    /// The draw pile, top first.
    pub fn draw_pile(&self) -> &[Card] {
        &self.draw_pile
    }

    /// The discard pile, in the order cards went there.
    pub fn discard_pile(&self) -> &[Card] {
        &self.discard_pile
    }

    /// The action cards in front of each seat.
    pub fn in_front(&self) -> &[Vec<Card>] {
        &self.in_front
    }

    /// The gold pile, top first.
    pub fn gold_pile(&self) -> &[Card] {
        &self.gold_pile
    }

    /// The gold cards each seat has won.
    pub fn gold_cards(&self) -> &[Vec<Card>] {
        &self.gold_cards
    }

    /// Each seat's gold total.
    pub fn gold(&self) -> &[u32] {
        &self.gold
    }

    /// The goals each seat has looked at with a map this round.
    pub fn peeked(&self) -> &[Vec<(Cell, Card)>] {
        &self.peeked
    }

    /// The cards removed unseen this round (`saboteur2`).
    pub fn removed(&self) -> &[Card] {
        &self.removed
    }

    /// Dwarf cards discarded by Swap hats this round (`saboteur2`).
    pub fn dwarf_discard(&self) -> &[Role] {
        &self.dwarf_discard
    }

    /// The dwarf cards each seat has looked at with Inspection this round.
    pub fn inspected(&self) -> &[Vec<(Seat, Role)>] {
        &self.inspected
    }

    /// The seats with a Theft in front of them, in the order they played it.
    pub fn thefts(&self) -> &[Seat] {
        &self.thefts
    }

    /// Who took the last turn this round (automatic passes excluded, §6).
    pub fn last_turn(&self) -> Option<Seat> {
        self.last_turn
    }

    /// The finished rounds.
    pub fn results(&self) -> &[RoundResult] {
        &self.results
    }

    /// The seats sharing the win, once the game is over.
    pub fn winners(&self) -> &[Seat] {
        &self.winners
    }

    /// What each seat has publicly done this round (public; reset at each round's start).
    pub fn conduct(&self) -> &[Conduct] {
        &self.conduct
    }

    /// The rules version the game is played under (docs/rules.md §13); 1 when absent.
    pub fn rules_version(&self) -> u8 {
        self.rules_version
    }
}
