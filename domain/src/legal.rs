//! Legal-move listing: every command a seat may issue now. Each listed command is accepted by
//! [`crate::decide`], and every accepted command is listed (in its canonical form,
//! [`Command::canonical`]). Identical cards are listed once.

use crate::cards::{Action, Card};
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
        _ => Vec::new(),
    }
}

fn playing(game: &Game, seat: Seat) -> Vec<Command> {
    let hand = distinct(&game.hands[seat.index()]);
    let mut out = Vec::new();
    let seats = || (0..game.players).map(Seat);
    let path_allowed = !game.has_broken_tool(seat);
    let mut frontier = None;
    let mut reach = None;
    for &card in &hand {
        if let Some(shape) = card.path_shape() {
            if !path_allowed {
                continue;
            }
            let reach = reach.get_or_insert_with(|| game.board.reached());
            let frontier = frontier.get_or_insert_with(|| game.board.frontier());
            for &at in frontier.iter() {
                for rotated in [false, true] {
                    if game.board.edges_match(at, shape, rotated)
                        && game.board.connects(reach, at, shape, rotated)
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
            _ => {}
        }
    }
    if hand.is_empty() {
        out.push(Command::Pass {
            discard: Vec::new(),
        });
    } else {
        out.extend(hand.iter().map(|c| Command::Pass { discard: vec![*c] }));
    }
    out
}
