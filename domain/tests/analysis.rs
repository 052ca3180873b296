//! The post-game analysis (`saboteur_domain::analysis`): every suggestion is the command the
//! expert seated there would have chosen (`History::bot_turn` at the decision's version,
//! thought over), costs are never negative and nothing when the move played is the suggestion,
//! the analysis is a function of the record, it lists exactly the seat's moves while playing
//! that stand in the final record (an undone move is not one), it marks the moves bots made for
//! the seat (the timeout bot's among them), and it is refused during play.
//!
//! `cargo test -p saboteur-domain --test analysis` (30 s to a minute and a half in the test
//! profile, whose engine is optimised, on a 2-core machine).

use saboteur_domain::bot::{BotLevel, bot_game, choose, played_game};
use saboteur_domain::{
    Analysis, AnalysisError, Audience, Command, Event, History, Options, Phase, Ruleset, Seat,
    Seed, analyse, legal_commands, view,
};

/// Levels by seat and game: experts, heuristic and random bots mixed.
fn mixed(seed: u64, seat: Seat) -> BotLevel {
    match (seed + u64::from(seat.0)) % 3 {
        0 => BotLevel::Expert,
        1 => BotLevel::Heuristic,
        _ => BotLevel::Random,
    }
}

/// The log index (= the version before it) of every command of `seat` while playing that
/// stands in the final record, worked out from the log alone: the commands standing after each
/// version, an undo going back to those of the version it names.
fn standing_moves(log: &[Event], seat: Seat) -> Vec<u64> {
    let mut after: Vec<Vec<u64>> = vec![Vec::new()];
    let mut standing: Vec<u64> = Vec::new();
    for (i, e) in log.iter().enumerate() {
        match e {
            Event::CommandAccepted { .. } => standing.push(i as u64),
            Event::Undone { to_version, .. } => standing = after[*to_version as usize].clone(),
            _ => {}
        }
        after.push(standing.clone());
    }
    let history = History::replay(log.iter().cloned()).unwrap();
    standing
        .into_iter()
        .filter(
            |&v| matches!(&log[v as usize], Event::CommandAccepted { seat: s, .. } if *s == seat),
        )
        .filter(|&v| *history.at(v).unwrap().game().phase() == Phase::Playing)
        .collect()
}

/// Checks every decision of `analysis` against the record: the suggestion chosen again by the
/// expert from the history at the decision's version, the cost's bounds, the bot marks, and
/// the moves listed. Returns how many moves differed from the suggestion.
fn check(log: &[Event], analysis: &Analysis, what: &str) -> usize {
    let history = History::replay(log.iter().cloned()).unwrap();
    let seat = analysis.seat;
    let versions: Vec<u64> = analysis.decisions.iter().map(|d| d.version).collect();
    assert_eq!(
        versions,
        standing_moves(log, seat),
        "{what}: the moves listed"
    );
    let mut differed = 0;
    for d in &analysis.decisions {
        let Event::CommandAccepted {
            seat: s,
            command,
            bot,
            ..
        } = &log[d.version as usize]
        else {
            panic!("{what}: version {} is not before a command", d.version);
        };
        assert_eq!(*s, seat);
        assert_eq!(Some(&d.played), command.known(), "{what}: the move played");
        assert_eq!(d.by_bot, bot.map(|b| b.level), "{what}: the bot's mark");
        let before = history.at(d.version).unwrap();
        assert_eq!(before.game().round(), d.round);
        let again = before.bot_turn(seat, BotLevel::Expert).think();
        assert_eq!(
            Some(&d.suggested),
            again.as_ref(),
            "{what}, version {}: the expert seated there chooses otherwise",
            d.version
        );
        assert!(
            d.cost.is_finite() && d.cost >= 0.0,
            "{what}: cost {}",
            d.cost
        );
        if d.played.canonical() == d.suggested.canonical() {
            assert_eq!(d.cost, 0.0, "{what}, version {}", d.version);
        } else {
            differed += 1;
            // A move the expert would not have made is weighed on its worlds.
            assert!(d.worlds > 0, "{what}, version {}: not weighed", d.version);
            let (s, p) = (d.suggested_value.unwrap(), d.played_value.unwrap());
            assert!(
                (d.cost - (s - p).max(0.0)).abs() < 1e-12,
                "{what}: cost {} of values {s} and {p}",
                d.cost
            );
        }
        // An expert bot of this build, playing the seat, played the suggestion itself.
        if bot.is_some_and(|b| b.level == BotLevel::Expert && b.version == analysis.bot_version) {
            assert_eq!(d.played.canonical(), d.suggested.canonical(), "{what}");
            assert_eq!(d.cost, 0.0);
        }
    }
    differed
}

#[test]
fn every_suggestion_is_the_experts_own_choice_and_costs_are_never_negative() {
    let mut differed = 0;
    let mut decisions = 0;
    for (ruleset, players, seed) in [
        (Ruleset::Base, 3, 1),
        (Ruleset::Base, 3, 2),
        (Ruleset::Saboteur2, 3, 3),
        (Ruleset::Saboteur2, 4, 4),
    ] {
        let log = bot_game(
            ruleset,
            Options::default(),
            players,
            Seed::from_u64(seed),
            |_, s| mixed(seed, s),
        );
        assert!(matches!(log.last(), Some(Event::GameEnded { .. })));
        let history = History::replay(log.iter().cloned()).unwrap();
        // One seat a game, of a random, a heuristic or an expert bot by the seed.
        let seat = Seat((seed % u64::from(players)) as u8);
        let what = format!("{ruleset:?}, seed {seed}, {seat} ({})", mixed(seed, seat));
        let analysis = analyse(&history, seat).unwrap();
        assert!(!analysis.decisions.is_empty(), "{what}: no move");
        differed += check(&log, &analysis, &what);
        decisions += analysis.decisions.len();
        let json = serde_json::to_string(&analysis).unwrap();
        let read: Analysis = serde_json::from_str(&json).unwrap();
        assert_eq!(read, analysis, "{what}: through JSON");
        if seed == 1 {
            // A function of the record: the same analysis from the log read again.
            let again = History::replay(log.iter().cloned()).unwrap();
            assert_eq!(analyse(&again, seat).unwrap(), analysis, "{what}");
        }
    }
    // Random and heuristic bots often play otherwise than the expert: the costs were weighed.
    assert!(
        differed * 5 > decisions,
        "{differed} of {decisions} differed"
    );
}

#[test]
fn a_game_not_over_and_a_seat_not_at_the_table_are_refused() {
    let log = bot_game(
        Ruleset::Base,
        Options::default(),
        3,
        Seed::from_u64(5),
        |_, _| BotLevel::Heuristic,
    );
    let history = History::replay(log.iter().cloned()).unwrap();
    assert!(analyse(&history, Seat(0)).is_ok());
    assert_eq!(
        analyse(&history, Seat(3)),
        Err(AnalysisError::NoSuchSeat(Seat(3)))
    );
    // At every version before the end (the lobby, each round, the gold chosen): refused.
    for version in [1, 2, log.len() as u64 / 3, log.len() as u64 - 1] {
        let during = history.at(version).unwrap();
        assert_ne!(*during.game().phase(), Phase::GameOver);
        let refused = analyse(&during, Seat(0)).unwrap_err();
        assert_eq!(refused, AnalysisError::NotOver, "version {version}");
        assert_eq!(refused.code(), "game_not_over");
    }
    assert_eq!(AnalysisError::CODES.len(), 4);
    assert!(AnalysisError::CODES.contains(&AnalysisError::NoSuchSeat(Seat(3)).code()));
}

/// A game in which seat 0 plays its own commands (chosen by a random bot, recorded as the
/// player's, a pass's discards in reverse order) and takes some back, by a free undo or a
/// request the others approve, to play another instead; the other seats are bots. Returns the
/// log and the undone commands' log indices.
fn game_with_undone_moves(ruleset: Ruleset, players: u8, seed: u64) -> (Vec<Event>, Vec<u64>) {
    let mut undone = Vec::new();
    let mut turns = 0;
    let log = played_game(
        ruleset,
        Options::default(),
        players,
        Seed::from_u64(seed),
        |h, seat| {
            if seat != Seat(0) {
                return h.execute_bot(seat, mixed(seed, seat));
            }
            let seen = view(h.game(), Audience::Seat(seat));
            let mut mine = choose(BotLevel::Random, &seen, seed + h.version())?;
            // Discards in another order than the engine lists them: the same move.
            if let Command::Pass { discard } = &mut mine {
                discard.reverse();
            }
            turns += 1;
            let legal = legal_commands(h.game(), seat);
            if *h.game().phase() != Phase::Playing || turns % 3 != 1 || legal.len() < 2 {
                return h.execute(seat, &mine).ok();
            }
            // Another command first, taken back, then the player's.
            let first = legal.iter().find(|c| **c != mine.canonical())?.clone();
            let mut after = h.clone();
            let played = h.execute(seat, &first).ok()?;
            played.into_iter().for_each(|e| after.push(e));
            undone.push(h.version());
            let asked = after.request_undo(seat).ok()?;
            let free = matches!(asked[..], [Event::Undone { .. }]);
            asked.into_iter().for_each(|e| after.push(e));
            if !free {
                for voter in (1..players).map(Seat) {
                    let votes = after.vote_undo(voter, true).ok()?;
                    votes.into_iter().for_each(|e| after.push(e));
                }
            }
            assert_eq!(after.game(), h.game(), "back before the command");
            let events = after.execute(seat, &mine).ok()?;
            events.into_iter().for_each(|e| after.push(e));
            Some(after.log()[h.log().len()..].to_vec())
        },
    );
    (log, undone)
}

#[test]
fn a_move_taken_back_is_not_one_of_the_games_moves() {
    for (ruleset, players, seed) in [(Ruleset::Base, 3, 21), (Ruleset::Saboteur2, 3, 22)] {
        let (log, undone) = game_with_undone_moves(ruleset, players, seed);
        let what = format!("{ruleset:?}, seed {seed}");
        assert!(
            matches!(log.last(), Some(Event::GameEnded { .. })),
            "{what}"
        );
        assert!(undone.len() >= 2, "{what}: {} moves undone", undone.len());
        let requested = log
            .iter()
            .filter(|e| matches!(e, Event::UndoRequested { .. }))
            .count();
        assert!(requested > 0, "{what}: every undo was free");
        let history = History::replay(log.iter().cloned()).unwrap();
        let analysis = analyse(&history, Seat(0)).unwrap();
        check(&log, &analysis, &what);
        for v in &undone {
            assert!(
                matches!(
                    &log[*v as usize],
                    Event::CommandAccepted { seat: Seat(0), .. }
                ),
                "{what}: the undone command is in the log"
            );
            assert!(
                analysis.decisions.iter().all(|d| d.version != *v),
                "{what}: the move undone at {v} is listed"
            );
        }
        // The player's own moves are not marked as a bot's; the others' are.
        assert!(analysis.decisions.iter().all(|d| d.by_bot.is_none()));
        let other = analyse(&history, Seat(1)).unwrap();
        assert!(other.decisions.iter().all(|d| d.by_bot.is_some()));
        // Counted with every command, the undone ones would be more.
        let all = log
            .iter()
            .enumerate()
            .filter(|(i, e)| {
                matches!(e, Event::CommandAccepted { seat: Seat(0), .. })
                    && *history.at(*i as u64).unwrap().game().phase() == Phase::Playing
            })
            .count();
        assert_eq!(analysis.decisions.len() + undone.len(), all, "{what}");
    }
}

/// Noon, 23 November 2026, in milliseconds since the Unix epoch: the clocked game's start.
const T0: u64 = 1_795_435_200_000;

/// A clocked game in which seat 0 sometimes runs out of time (the timeout bot plays for it, and
/// after two in a row the seat is the bot's until taken back) and players talk between moves:
/// the moves the timeout bot made are marked so, and talk (which moves the version, not the
/// game) changes nothing but the decisions' versions.
#[test]
fn a_move_made_by_the_timeout_bot_is_marked() {
    use rand_core::Rng;
    use saboteur_domain::bot::bot_rng;
    use saboteur_domain::random::below;
    let options = Options {
        clock: Some(saboteur_domain::Clock::PerDecision { seconds: 20 }),
        abandon_after: Some(2),
        ..Options::default()
    };
    let seed = Seed::from_u64(31);
    let created = saboteur_domain::create(Ruleset::Base, options, 3, Seat(0), seed).unwrap();
    let mut h = History::new(created).unwrap();
    let mut start = h.start().unwrap();
    h.stamp(&mut start, T0);
    start.into_iter().for_each(|e| h.push(e));
    let mut rng = bot_rng(seed);
    let mut now = T0;
    let mut timed_out = Vec::new();
    while let Some(seat) = h.game().awaited() {
        now += 1 + rng.next_u64() % 5_000;
        let roll = rng.next_u64() % 10;
        let events = if roll == 0 {
            h.talk(Some(seat), None, "hm", now).unwrap()
        } else if roll <= 2 && seat == Seat(0) {
            if roll == 1 && h.handed_to(seat).is_some() {
                h.reclaim_seat(seat).unwrap()
            } else {
                now = now.max(h.deadline().unwrap().at);
                let out = h.time_out(now).unwrap();
                let at = out
                    .iter()
                    .position(|e| matches!(e, Event::CommandAccepted { .. }))
                    .unwrap();
                timed_out.push(h.version() + at as u64);
                out
            }
        } else {
            let mut events = match h.handed_to(seat) {
                Some(level) => h.execute_bot(seat, level).unwrap(),
                None => {
                    let legal = legal_commands(h.game(), seat);
                    h.execute(seat, &legal[below(&mut rng, legal.len())])
                        .unwrap()
                }
            };
            h.stamp(&mut events, now);
            events
        };
        events.into_iter().for_each(|e| h.push(e));
    }
    let log = h.log().to_vec();
    let analysis = analyse(&h, Seat(0)).unwrap();
    check(&log, &analysis, "clocked game");
    let marked: Vec<u64> = analysis
        .decisions
        .iter()
        .filter(|d| d.timed_out)
        .map(|d| d.version)
        .collect();
    let playing: Vec<u64> = timed_out
        .into_iter()
        .filter(|v| *h.at(*v).unwrap().game().phase() == Phase::Playing)
        .collect();
    assert!(
        playing.len() >= 2,
        "{} timeouts while playing",
        playing.len()
    );
    assert_eq!(marked, playing, "the timeout bot's moves");
    assert!(
        analysis
            .decisions
            .iter()
            .any(|d| d.by_bot.is_some() && !d.timed_out),
        "a move of the bot the seat was handed to"
    );
    assert!(analysis.decisions.iter().any(|d| d.by_bot.is_none()));
}
