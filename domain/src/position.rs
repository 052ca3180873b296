//! Pinned positions: a game state given card by card (the `setup` of a scenario file,
//! docs/scenarios.md). Used exactly as given: card counts are not checked against the catalogue.

use serde::{Deserialize, Serialize};

use crate::board::{Board, GOAL_CELLS, PlacedCard, Tile};
use crate::cards::{self, Card, Kind, Role, Ruleset};
use crate::game::{Game, Options, Phase};
use crate::geometry::Cell;
use crate::random::Seed;
use crate::seat::Seat;
use crate::violation::SetupError;

/// The goal cards by position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Goals {
    /// The goal at (8, -2).
    pub top: Card,
    /// The goal at (8, 0).
    pub middle: Card,
    /// The goal at (8, 2).
    pub bottom: Card,
}

impl Default for Goals {
    fn default() -> Self {
        Goals {
            top: Card::GoalStoneNe,
            middle: Card::GoalGold,
            bottom: Card::GoalStoneNw,
        }
    }
}

fn round_one() -> u8 {
    1
}

/// A pinned position (docs/scenarios.md `setup`). Absent keys take the defaults the format gives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// `base` or `saboteur2`.
    pub ruleset: Ruleset,
    /// Rule variants.
    #[serde(default)]
    pub options: Options,
    /// How many seats.
    pub players: u8,
    /// The round being played.
    #[serde(default = "round_one")]
    pub round: u8,
    /// Whose turn it is.
    #[serde(default)]
    pub first_player: Seat,
    /// Each seat's dwarf card.
    pub roles: Vec<Role>,
    /// The dwarf cards nobody holds (`saboteur2`: the dwarf pile, top first).
    #[serde(default)]
    pub set_aside_roles: Vec<Role>,
    /// The goal cards; by default the gold is in the middle.
    #[serde(default)]
    pub goals: Goals,
    /// Each seat's hand.
    pub hands: Vec<Vec<Card>>,
    /// The draw pile, top first.
    pub draw_pile: Vec<Card>,
    /// The gold pile, top first.
    #[serde(default)]
    pub gold_pile: Vec<Card>,
    /// Cards in the maze besides start and goals, placed without legality checks.
    #[serde(default)]
    pub board: Vec<PlacedCard>,
    /// The action cards in front of each seat.
    #[serde(default)]
    pub in_front: Option<Vec<Vec<Card>>>,
    /// Each seat's gold won so far.
    #[serde(default)]
    pub gold: Option<Vec<u32>>,
    /// The seed for the rounds after this one.
    #[serde(default)]
    pub seed: u64,
    /// The rules version the position is played under (docs/rules.md §13): the newest unless
    /// pinned, to test a game created under an older one.
    #[serde(default = "newest_rules")]
    pub rules_version: u8,
}

fn newest_rules() -> u8 {
    crate::game::RULES_VERSION
}

fn per_seat<T>(field: &'static str, v: &[T], players: usize) -> Result<(), SetupError> {
    if v.len() == players {
        Ok(())
    } else {
        Err(SetupError::PerSeat {
            field,
            players,
            len: v.len(),
        })
    }
}

fn check_cards(
    cards: &[Card],
    place: &'static str,
    ok: impl Fn(Kind) -> bool,
) -> Result<(), SetupError> {
    match cards.iter().find(|c| !ok(c.kind())) {
        Some(card) => Err(SetupError::WrongCard { card: *card, place }),
        None => Ok(()),
    }
}

impl Setup {
    /// The game in this position, with the round under way.
    pub fn into_game(self) -> Result<Game, SetupError> {
        let n = self.players as usize;
        if cards::role_set(self.ruleset, n).is_none() {
            crate::decide::create(
                self.ruleset,
                self.options,
                self.players,
                Seat(0),
                Seed::from_u64(0),
            )?;
        }
        if self.first_player.index() >= n {
            return Err(SetupError::FirstPlayer(self.first_player.0));
        }
        if !(1..=3).contains(&self.round) {
            return Err(SetupError::Round(self.round));
        }
        per_seat("roles", &self.roles, n)?;
        per_seat("hands", &self.hands, n)?;
        let playable = |k| matches!(k, Kind::Path(_) | Kind::Action(_));
        for hand in &self.hands {
            check_cards(hand, "a card in hand", playable)?;
        }
        check_cards(&self.draw_pile, "a card in the draw pile", playable)?;
        check_cards(&self.gold_pile, "a gold card", |k| {
            matches!(k, Kind::Gold(_))
        })?;
        let goals = [self.goals.top, self.goals.middle, self.goals.bottom];
        check_cards(&goals, "a goal", |k| matches!(k, Kind::Goal(..)))?;
        let mut board = Board::new(goals);
        for p in &self.board {
            let cell = Cell::new(p.x, p.y);
            let goal = GOAL_CELLS.contains(&cell) && matches!(p.card.kind(), Kind::Goal(..));
            if p.card.path_shape().is_none() && !goal {
                return Err(SetupError::WrongCard {
                    card: p.card,
                    place: "a card in the maze",
                });
            }
            board.place(
                cell,
                Tile {
                    card: p.card,
                    rotated: p.rotated,
                    face_down: false,
                },
            );
        }
        if !(1..=crate::game::RULES_VERSION).contains(&self.rules_version) {
            return Err(SetupError::RulesVersion(self.rules_version));
        }
        let in_front = self.in_front.unwrap_or_else(|| vec![Vec::new(); n]);
        per_seat("in_front", &in_front, n)?;
        for cards in &in_front {
            check_cards(cards, "a card in front of a player", |k| {
                matches!(k, Kind::Action(_))
            })?;
        }
        let gold = self.gold.unwrap_or_else(|| vec![0; n]);
        per_seat("gold", &gold, n)?;
        let mut game = Game::new(
            self.ruleset,
            self.options,
            self.players,
            self.first_player,
            Seed::from_u64(self.seed),
        );
        game.rules_version = self.rules_version;
        game.round = self.round;
        game.round_first_player = self.first_player;
        game.current = self.first_player;
        game.phase = Phase::Playing;
        game.roles = self.roles;
        game.set_aside = self.set_aside_roles;
        game.board = board;
        game.hands = self.hands;
        game.draw_pile = self.draw_pile;
        game.gold_pile = self.gold_pile;
        // Thefts pinned in front count as played in seat order from the first player.
        game.thefts = (0..n)
            .map(|k| self.first_player.left(n, k))
            .filter(|s| in_front[s.index()].contains(&Card::Theft))
            .collect();
        game.in_front = in_front;
        game.gold = gold;
        Ok(game)
    }
}
