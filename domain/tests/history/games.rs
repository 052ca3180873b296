//! The games the tests play: the players' shares in the seed, a random game full of undos and
//! rollbacks, bots seated and playing, and the search for a position where a player's command
//! and a bot's after it may be taken back.

use rand_core::Rng;
use saboteur_domain::bot::bot_rng;
use saboteur_domain::random::below;
use saboteur_domain::{
    Contribution, Event, History, Options, Ruleset, Seat, Seed, UndoError, create, legal_commands,
};

/// The players' shares in the seed for a test game: every seat's, every other seat's or none,
/// by `seed`.
pub(crate) fn shares(seed: u64, players: u8) -> Vec<Contribution> {
    (0..players)
        .filter(|s| match seed % 3 {
            0 => true,
            1 => s % 2 == 0,
            _ => false,
        })
        .map(|s| Contribution {
            seat: Seat(s),
            entropy: Seed::from_u64(seed * 100 + u64::from(s) + 1),
        })
        .collect()
}

/// Appends `events` to `h`, in order.
pub(crate) fn push_all(h: &mut History, events: Vec<Event>) {
    for e in events {
        h.push(e);
    }
}

/// Plays a random game in which players often take their command back: at once when it
/// revealed nothing, otherwise by asking everyone, who sometimes decline; the host sometimes
/// rolls the game back. Checks that every undo returns exactly to the state before the command.
pub(crate) fn game_with_undos(ruleset: Ruleset, players: u8, seed: u64) -> History {
    let shares = shares(seed, players);
    let seed = Seed::from_u64(seed);
    let mut h =
        History::new(create(ruleset, Options::default(), players, Seat(0), seed).unwrap()).unwrap();
    let start = h.start_with(&shares).unwrap();
    push_all(&mut h, start);
    let mut rng = bot_rng(seed);
    let mut steps = 0;
    while let Some(seat) = h.game().awaited() {
        steps += 1;
        assert!(steps < 5_000);
        let legal = legal_commands(h.game(), seat);
        let command = legal[below(&mut rng, legal.len())].clone();
        let before = h.game().clone();
        let version_before = h.version();
        let events = h.execute(seat, &command).unwrap();
        push_all(&mut h, events);
        if *h.game().phase() == saboteur_domain::Phase::GameOver {
            assert_eq!(h.request_undo(seat), Err(UndoError::GameOver));
            break;
        }
        match rng.next_u64() % 50 {
            0..=9 => {
                // Someone else cannot take it back.
                let other = seat.left(h.game().n(), 1);
                assert!(matches!(
                    h.request_undo(other),
                    Err(UndoError::NothingToUndo(_))
                ));
                let undo = h.request_undo(seat).unwrap();
                match &undo[..] {
                    [
                        Event::Undone {
                            to_version,
                            by: Some(s),
                            ..
                        },
                    ] => {
                        assert_eq!((*to_version, *s), (version_before, seat));
                    }
                    [Event::UndoRequested { to_version, .. }] => {
                        assert_eq!(*to_version, version_before);
                    }
                    other => panic!("unexpected undo events {other:?}"),
                }
                let free = matches!(undo[0], Event::Undone { .. });
                push_all(&mut h, undo);
                if !free {
                    assert_eq!(h.request_undo(seat), Err(UndoError::AlreadyPending));
                    assert!(matches!(
                        h.vote_undo(seat, true),
                        Err(UndoError::CannotVote(_))
                    ));
                    let decline = rng.next_u64().is_multiple_of(3);
                    for k in 1..h.game().n() {
                        let voter = seat.left(h.game().n(), k);
                        let votes = h.vote_undo(voter, !decline).unwrap();
                        push_all(&mut h, votes);
                        if decline {
                            break;
                        }
                    }
                    if decline {
                        assert!(h.pending_undo().is_none());
                        continue;
                    }
                }
                assert_eq!(
                    h.game(),
                    &before,
                    "the undo returns to the state before the command"
                );
                assert!(h.version() > version_before, "the log only grows");
            }
            10 if h.version() > 30 => {
                let to = h.version() - 1 - rng.next_u64() % 20;
                match h.rollback(to, "a dispute") {
                    Ok(events) => {
                        let expected = h.at(to).unwrap().game().clone();
                        push_all(&mut h, events);
                        assert_eq!(h.game(), &expected);
                    }
                    Err(e) => assert_eq!(e, UndoError::BadVersion(to)),
                }
                assert_eq!(h.rollback(1, " "), Err(UndoError::NoReason));
            }
            _ => {}
        }
    }
    h
}

/// Records every seat but `humans` as a bot of `level` from the lobby on, right after the deal
/// (as the server does: a bot's command for a seat the record does not give to a bot is a
/// discrepancy).
pub(crate) fn seat_bots(h: &mut History, humans: &[Seat], level: saboteur_domain::BotLevel) {
    let bots: Vec<_> = (0..h.game().players())
        .map(Seat)
        .filter(|s| !humans.contains(s))
        .map(|s| (s, level))
        .collect();
    let events = h.seat_lobby_bots(&bots).unwrap();
    push_all(h, events);
}

/// Lets the bots (every seat but `humans`) play until a human's turn or the end.
pub(crate) fn bots_play(h: &mut History, humans: &[Seat]) {
    while let Some(seat) = h.game().awaited() {
        if humans.contains(&seat) {
            return;
        }
        let events = h
            .execute_bot(seat, saboteur_domain::BotLevel::Heuristic)
            .expect("a bot's move");
        push_all(h, events);
    }
}

/// Plays random games (seeds from `from`) until `found` accepts a position reached right after
/// `seat`'s command and the next seat's command, a bot's; returns that history and the seat.
pub(crate) fn find_request(
    from: u64,
    mut found: impl FnMut(&History, &[Event], &[Event]) -> bool,
) -> (History, Seat) {
    for seed in from..from + 400 {
        let seed = Seed::from_u64(seed);
        let mut h =
            History::new(create(Ruleset::Base, Options::default(), 4, Seat(0), seed).unwrap())
                .unwrap();
        let start = h.start().unwrap();
        push_all(&mut h, start);
        // Seat 0 is a player's, the others bots'.
        seat_bots(&mut h, &[Seat(0)], saboteur_domain::BotLevel::Random);
        let mut rng = bot_rng(seed);
        while let Some(seat) = h.game().awaited() {
            if seat != Seat(0) {
                let theirs = h.execute_bot(seat, saboteur_domain::BotLevel::Random);
                push_all(&mut h, theirs.unwrap());
                continue;
            }
            let legal = legal_commands(h.game(), seat);
            let mine = h
                .execute(seat, &legal[below(&mut rng, legal.len())])
                .unwrap();
            let mut after = h.clone();
            push_all(&mut after, mine.clone());
            if let Some(next) = after.game().awaited()
                && next != seat
            {
                // The next seat is a bot: a player takes back their command with the bot moves
                // after it.
                let Some(theirs) = after.execute_bot(next, saboteur_domain::BotLevel::Random)
                else {
                    h = after;
                    continue;
                };
                let mut both = after.clone();
                push_all(&mut both, theirs.clone());
                if found(&both, &mine, &theirs) {
                    return (both, seat);
                }
            }
            h = after;
        }
    }
    panic!("no such position in 400 games");
}
