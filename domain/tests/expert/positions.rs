//! Pinned positions for the expert: a base position built card by card, and the moves that
//! bring it where a test wants it (the others passing, seat 0 looking at a goal).

use saboteur_domain::{
    Card, Cell, Command, Game, Goals, Options, PlacedCard, Role, Ruleset, Seat, Setup, Target,
    decide, legal_commands,
};

/// A base position: `players` seats, seat 0 to move holding `hand`, every other seat holding
/// `others`, the maze a straight tunnel from the start to `(reach, 0)`, the gold in the middle.
pub(crate) fn position(
    players: u8,
    roles: Vec<Role>,
    hand: Vec<Card>,
    others: Vec<Card>,
    reach: i32,
) -> Game {
    let n = players as usize;
    let mut hands = vec![others; n];
    hands[0] = hand;
    Setup {
        ruleset: Ruleset::Base,
        options: Options::default(),
        players,
        round: 1,
        first_player: Seat(0),
        roles,
        set_aside_roles: Vec::new(),
        goals: Goals {
            top: Card::GoalStoneNe,
            middle: Card::GoalGold,
            bottom: Card::GoalStoneNw,
        },
        hands,
        draw_pile: vec![
            Card::TunnelNs,
            Card::DeadendE,
            Card::TunnelNe,
            Card::RepairCart,
            Card::TunnelEw,
            Card::DeadendNs,
            Card::TunnelNesw,
            Card::BreakCart,
            Card::TunnelNw,
            Card::DeadendN,
            Card::TunnelNes,
            Card::Rockfall,
        ],
        gold_pile: Vec::new(),
        board: (1..=reach)
            .map(|x| PlacedCard {
                x,
                y: 0,
                card: Card::TunnelEw,
                rotated: false,
            })
            .collect(),
        in_front: None,
        gold: None,
        seed: 0,
        rules_version: saboteur_domain::RULES_VERSION,
    }
    .into_game()
    .expect("a valid position")
}

/// Applies `seat`'s command.
pub(crate) fn play(game: &mut Game, seat: Seat, cmd: &Command) {
    for e in decide(game, seat, cmd).unwrap_or_else(|e| panic!("{cmd:?} refused: {e}")) {
        game.apply(&e);
    }
}

/// Every other seat passes (discarding its first card) until seat 0 is to move again.
pub(crate) fn others_pass(game: &mut Game) {
    while let Some(seat) = game.awaited() {
        if seat == Seat(0) {
            return;
        }
        let pass = legal_commands(game, seat)
            .into_iter()
            .find(|c| matches!(c, Command::Pass { .. }))
            .expect("a pass");
        play(game, seat, &pass);
    }
}

/// Seat 0 looks at the goal at `cell` with its Map, then the others pass.
pub(crate) fn peek(game: &mut Game, cell: Cell) {
    play(
        game,
        Seat(0),
        &Command::PlayAction {
            card: Card::Map,
            target: Some(Target::Cell(cell)),
            tool: None,
        },
    );
    others_pass(game);
}

/// The roles of `players` seats: gold-diggers all, but a saboteur at seat `saboteur`.
pub(crate) fn digger_roles(players: u8, saboteur: usize) -> Vec<Role> {
    (0..players as usize)
        .map(|i| {
            if i == saboteur {
                Role::Saboteur
            } else {
                Role::GoldDigger
            }
        })
        .collect()
}
