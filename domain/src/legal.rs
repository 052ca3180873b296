//! Legal-move listing: every command a seat may issue now. Each listed command is accepted by
//! [`crate::decide()`], and every accepted command is listed (in its canonical form,
//! [`Command::canonical`]). Identical cards are listed once.

use crate::cards::{Action, Card, Ruleset};
use crate::command::{Command, Target};
use crate::game::{Game, Phase};
use crate::seat::Seat;

fn distinct(cards: &[Card]) -> Vec<Card> {
    let mut v = cards.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// Every command `seat` may issue now; empty when it is not their decision.
pub fn legal_commands(game: &Game, seat: Seat) -> Vec<Command> {
    if game.awaited() != Some(seat) {
        return Vec::new();
    }
    match &game.phase {
        Phase::Playing => playing(game, seat),
        Phase::ChoosingGold { offered, .. } => distinct(offered)
            .into_iter()
            .map(|card| Command::ChooseGold { card })
            .collect(),
        Phase::Stealing { .. } => std::iter::once(None)
            .chain(
                (0..game.players)
                    .map(Seat)
                    .filter(|s| *s != seat && game.gold[s.index()] > 0)
                    .map(Some),
            )
            .map(|from| Command::Steal { from })
            .collect(),
        _ => Vec::new(),
    }
}

fn playing(game: &Game, seat: Seat) -> Vec<Command> {
    let hand = distinct(&game.hands[seat.index()]);
    let mut out = Vec::new();
    let seats = || (0..game.players).map(Seat);
    let path_allowed = !game.has_broken_tool(seat) && !game.is_trapped(seat);
    let mut frontier = None;
    let mut reach = None;
    for &card in &hand {
        if let Some(shape) = card.path_shape() {
            if !path_allowed {
                continue;
            }
            let reach = reach.get_or_insert_with(|| game.board.reached());
            // Each empty cell next to the maze, with what its neighbours ask, read once.
            let frontier = frontier.get_or_insert_with(|| {
                let board = &game.board;
                let cells = board.frontier().into_iter();
                cells
                    .map(|at| (at, board.fit(at, Some(reach))))
                    .collect::<Vec<_>>()
            });
            for &(at, fit) in frontier.iter() {
                if shape.ladder && game.board.next_to_goal(at) {
                    continue;
                }
                for rotated in [false, true] {
                    if fit.edges_match(shape, rotated)
                        && (shape.ladder || fit.connects(shape, rotated))
                    {
                        out.push(Command::PlayPath { card, at, rotated });
                    }
                }
            }
            continue;
        }
        let Some(action) = card.action() else {
            continue;
        };
        let on_seat = |target: Seat, tool| Command::PlayAction {
            card,
            target: Some(Target::seat(target)),
            tool,
        };
        match action {
            Action::Break(tool) => out.extend(
                seats()
                    .filter(|s| !game.broken_tools(*s).any(|(t, _)| t == tool))
                    .map(|s| on_seat(s, None)),
            ),
            Action::Repair(a, b) => {
                for s in seats() {
                    for (tool, named) in [(Some(a), b.map(|_| a)), (b, b)] {
                        let Some(tool) = tool else { continue };
                        if game.broken_tools(s).any(|(t, _)| t == tool) {
                            out.push(on_seat(s, named));
                        }
                    }
                }
            }
            Action::Rockfall => out.extend(
                game.board
                    .tiles()
                    .filter(|(_, t)| t.card.path_shape().is_some())
                    .map(|(at, _)| Command::PlayAction {
                        card,
                        target: Some(Target::Cell(at)),
                        tool: None,
                    }),
            ),
            Action::Map => out.extend(game.board.tiles().filter(|(_, t)| t.face_down).map(
                |(at, _)| Command::PlayAction {
                    card,
                    target: Some(Target::Cell(at)),
                    tool: None,
                },
            )),
            Action::Theft => {
                if !game.is_trapped(seat) && !game.in_front[seat.index()].contains(&Card::Theft) {
                    out.push(Command::PlayAction {
                        card,
                        target: None,
                        tool: None,
                    });
                }
            }
            Action::HandsOff | Action::FreeAtLast => {
                let removed = if action == Action::HandsOff {
                    Card::Theft
                } else {
                    Card::Trapped
                };
                out.extend(
                    seats()
                        .filter(|s| game.in_front[s.index()].contains(&removed))
                        .map(|s| on_seat(s, None)),
                );
            }
            Action::Trapped => out.extend(
                seats()
                    .filter(|s| !game.is_trapped(*s))
                    .map(|s| on_seat(s, None)),
            ),
            Action::SwapHats => {
                if !game.set_aside.is_empty() {
                    out.extend(seats().map(|s| on_seat(s, None)));
                }
            }
            Action::Inspection | Action::SwapHand => {
                out.extend(seats().filter(|s| *s != seat).map(|s| on_seat(s, None)))
            }
        }
    }
    let full = &game.hands[seat.index()];
    match game.ruleset {
        Ruleset::Base if full.is_empty() => out.push(Command::Pass {
            discard: Vec::new(),
        }),
        Ruleset::Base => out.extend(hand.iter().map(|c| Command::Pass { discard: vec![*c] })),
        Ruleset::Saboteur2 => {
            if full.is_empty() {
                out.push(Command::Pass {
                    discard: Vec::new(),
                });
            }
            for size in 1..=3 {
                for discard in sub_multisets(full, size) {
                    out.push(Command::Pass { discard });
                }
            }
            let removable = distinct(&game.in_front[seat.index()]);
            for discard in sub_multisets(full, 2) {
                for &remove in &removable {
                    out.push(Command::DiscardToRemove {
                        discard: discard.clone(),
                        remove,
                    });
                }
            }
        }
    }
    out
}

/// Every distinct sub-multiset of `cards` with `size` cards, each sorted.
fn sub_multisets(cards: &[Card], size: usize) -> Vec<Vec<Card>> {
    fn rec(
        cards: &[Card],
        size: usize,
        start: usize,
        pick: &mut Vec<Card>,
        out: &mut Vec<Vec<Card>>,
    ) {
        if pick.len() == size {
            out.push(pick.clone());
            return;
        }
        let mut i = start;
        while i < cards.len() {
            pick.push(cards[i]);
            rec(cards, size, i + 1, pick, out);
            pick.pop();
            // Skip the other copies of this card: identical cards are listed once.
            let c = cards[i];
            while i < cards.len() && cards[i] == c {
                i += 1;
            }
        }
    }
    let mut sorted = cards.to_vec();
    sorted.sort_unstable();
    let mut out = Vec::new();
    rec(&sorted, size, 0, &mut Vec::with_capacity(size), &mut out);
    out
}
