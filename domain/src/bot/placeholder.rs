//! A seat's view turned back into a playable [`Game`], with placeholders for what the seat
//! cannot know: what bots list their legal moves on.

use crate::board::{Board, Tile};
use crate::cards::{self, Card, Role, Ruleset};
use crate::game::{Conduct, Game, Phase, PhaseName};
use crate::geometry::Cell;
use crate::random::Seed;
use crate::seat::Seat;
use crate::view::View;

/// The card standing for a card the view's audience cannot see (other hands, the draw pile,
/// the discard pile) in a [`rebuild`]t game. It is no card of any hand: [`Card::Start`].
pub const UNKNOWN_CARD: Card = Card::Start;

/// A playable [`Game`] built from a seat's view: what the seat knows is as in the real game;
/// what it cannot know is a placeholder — other seats' hands, the draw and discard piles hold
/// [`UNKNOWN_CARD`]s of the right counts, other seats' dwarf cards and the dwarf pile are
/// placeholder roles of the right counts, a face-down goal the seat has not looked at is one
/// of the goal cards not otherwise accounted for, gold cards of others are 1-nugget cards, the
/// seed is zero when hidden. For the awaited seat, [`legal_commands`] on the result equals
/// [`legal_commands`] on the real game.
///
/// [`legal_commands`]: crate::legal_commands
pub fn rebuild(view: &View) -> Game {
    let n = view.players as usize;
    let me = view.seat;
    let placeholder_role = match view.ruleset {
        Ruleset::Base => Role::GoldDigger,
        Ruleset::Saboteur2 => Role::Boss,
    };
    let mut game = Game::new(
        view.ruleset,
        view.options,
        view.players,
        Seat(0),
        view.seed.unwrap_or(Seed([0; 32])),
    );
    game.round = view.round;
    game.round_first_player = view.current_player;
    game.current = view.current_player;
    game.roles = match &view.roles {
        Some(r) => r.clone(),
        None if view.round == 0 => Vec::new(),
        None => (0..n)
            .map(|i| match (me, view.role) {
                (Some(s), Some(r)) if s.index() == i => r,
                _ => placeholder_role,
            })
            .collect(),
    };
    game.set_aside = vec![placeholder_role; view.dwarf_pile_size];
    // The maze: the face-up cards, and the goals still face down.
    let mut board = Board::default();
    for p in &view.board {
        board.place(
            Cell::new(p.x, p.y),
            Tile {
                card: p.card,
                rotated: p.rotated,
                face_down: false,
            },
        );
    }
    if !view.goals.is_empty() {
        let mut unseen: Vec<Card> = cards::GOALS
            .into_iter()
            .filter(|g| !view.goals.iter().any(|v| v.card == Some(*g)))
            .collect();
        for g in view.goals.iter().filter(|g| !g.revealed) {
            let card = g.card.or_else(|| unseen.pop()).unwrap_or(Card::GoalStoneNe);
            board.place(
                Cell::new(g.x, g.y),
                Tile {
                    card,
                    rotated: false,
                    face_down: true,
                },
            );
        }
    }
    game.board = board;
    game.hands = match &view.hands {
        Some(h) => h.clone(),
        None => (0..n)
            .map(|i| match (me, &view.hand) {
                (Some(s), Some(h)) if s.index() == i => h.clone(),
                _ => vec![UNKNOWN_CARD; view.hand_sizes.get(i).copied().unwrap_or(0)],
            })
            .collect(),
    };
    game.draw_pile = vec![UNKNOWN_CARD; view.draw_pile_size];
    game.discard_pile = vec![UNKNOWN_CARD; view.discard_pile_size];
    game.in_front = view.in_front.clone();
    game.gold_pile = vec![Card::Gold1; view.gold_pile_size];
    game.gold_cards = (0..n)
        .map(|i| match (me, &view.my_gold) {
            (Some(s), Some(mine)) if s.index() == i => mine.cards.clone(),
            _ => vec![Card::Gold1; view.gold_card_counts.get(i).copied().unwrap_or(0)],
        })
        .collect();
    game.gold = match &view.gold {
        Some(g) => g.clone(),
        None => (0..n)
            .map(|i| match (me, &view.my_gold) {
                (Some(s), Some(mine)) if s.index() == i => mine.total,
                _ => 0,
            })
            .collect(),
    };
    if let Some(s) = me {
        game.peeked[s.index()] = view
            .goals
            .iter()
            .filter(|g| !g.revealed)
            .filter_map(|g| g.card.map(|c| (Cell::new(g.x, g.y), c)))
            .collect();
        game.inspected[s.index()] = view.inspected.iter().map(|x| (x.seat, x.role)).collect();
    }
    game.removed = view.removed.clone().unwrap_or_default();
    game.thefts = view.thefts.clone();
    game.results = view.rounds.clone();
    game.winners = view.winners.clone();
    game.conduct = if view.conduct.len() == n {
        view.conduct.clone()
    } else {
        vec![Conduct::default(); n]
    };
    let awaited = view.phase.awaited.unwrap_or(view.current_player);
    game.phase = match view.phase.name {
        PhaseName::Playing => Phase::Playing,
        PhaseName::ChoosingGold => Phase::ChoosingGold {
            chooser: awaited,
            offered: view
                .phase
                .offered
                .clone()
                .unwrap_or_else(|| vec![Card::Gold1; view.phase.offered_count]),
        },
        PhaseName::Stealing => Phase::Stealing {
            order: vec![awaited],
        },
        PhaseName::RoundOver => Phase::RoundOver,
        PhaseName::GameOver => Phase::GameOver,
        PhaseName::NotStarted => Phase::NotStarted,
        PhaseName::Cancelled => Phase::Cancelled,
    };
    game
}
