//! Playing online: table talk, turn clocks, timeouts decided by the bot, abandoned seats and
//! reissued tokens — each recorded, replayed and audited from the log alone.

use rand_core::Rng;
use saboteur_domain::bot::{bot_rng, choose, decision_seed};
use saboteur_domain::random::below;
use saboteur_domain::{
    Audience, BotLevel, Clock, Event, HandOver, History, Options, Ruleset, Seat, Secret, Seed,
    TableError, audit, create, legal_commands, view,
};

/// Noon, 23 November 2026, in milliseconds since the Unix epoch: the tests' clock.
const T0: u64 = 1_795_435_200_000;

fn push_all(h: &mut History, events: Vec<Event>) {
    for e in events {
        h.push(e);
    }
}

fn table(options: Options, players: u8, seed: u64) -> History {
    let created = create(
        Ruleset::Base,
        options,
        players,
        Seat(0),
        Seed::from_u64(seed),
    )
    .unwrap();
    History::new(created).unwrap()
}

/// A started game whose start was recorded at `T0`.
fn started(options: Options, players: u8, seed: u64) -> History {
    let mut h = table(options, players, seed);
    let mut start = h.start().unwrap();
    h.stamp(&mut start, T0);
    push_all(&mut h, start);
    h
}

fn per_decision(seconds: u32) -> Options {
    Options {
        clock: Some(Clock::PerDecision { seconds }),
        ..Options::default()
    }
}

/// Plays the awaited seat's first legal command, as its player, at `now`.
fn play_first(h: &mut History, now: u64) -> Seat {
    let seat = h.game().awaited().unwrap();
    let command = legal_commands(h.game(), seat).remove(0);
    let mut events = h.execute(seat, &command).unwrap();
    h.stamp(&mut events, now);
    push_all(h, events);
    seat
}

#[test]
fn talk_is_recorded_public_limited_and_hidden_by_the_host_without_leaving_the_log() {
    let mut h = started(Options::default(), 3, 1);
    // A player talks; the message is public, carries its time, and shows nothing else.
    let posted = h
        .talk(Some(Seat(1)), None, "seat 0 is a saboteur", T0)
        .unwrap();
    assert!(matches!(
        &posted[..],
        [Event::TalkPosted { seat: Some(Seat(1)), name: None, text: Secret::Known(t), at: T0, signature: None }]
            if t == "seat 0 is a saboteur"
    ));
    push_all(&mut h, posted);
    let seq = h.version();
    for audience in [
        Audience::Spectator,
        Audience::Seat(Seat(0)),
        Audience::Seat(Seat(2)),
    ] {
        let shown = h.shown(seq, &h.log()[seq as usize - 1], audience);
        assert_eq!(&shown, &h.log()[seq as usize - 1]);
    }
    // Spectators may not talk unless the table allows it.
    assert_eq!(
        h.talk(None, Some("kibitzer"), "hello", T0),
        Err(TableError::SpectatorsMayNotTalk)
    );
    // Text is checked like names: not blank, not too long, no control characters.
    for bad in ["", "   ", "a\u{202e}b", "line\nbreak", &"x".repeat(281)] {
        assert!(
            matches!(
                h.talk(Some(Seat(1)), None, bad, T0),
                Err(TableError::BadText(_))
            ),
            "{bad:?}"
        );
    }
    assert!(h.talk(Some(Seat(1)), None, &"x".repeat(280), T0).is_ok());
    // Five messages in thirty seconds, then the seat waits; another seat may still talk.
    for i in 1..5 {
        let e = h.talk(Some(Seat(1)), None, "again", T0 + i).unwrap();
        push_all(&mut h, e);
    }
    assert_eq!(
        h.talk(Some(Seat(1)), None, "too fast", T0 + 10),
        Err(TableError::TooFast {
            retry_after_ms: 30_000 - 10
        })
    );
    assert!(h.talk(Some(Seat(2)), None, "calm down", T0 + 10).is_ok());
    assert!(h.talk(Some(Seat(1)), None, "now", T0 + 30_000).is_ok());
    // The host hides the first message: an event of its own; the text no longer shows, but
    // the omniscient record (the audit bundle) keeps it.
    let hide = h.hide_talk(seq).unwrap();
    assert_eq!(hide, vec![Event::TalkHidden { message: seq }]);
    push_all(&mut h, hide);
    assert_eq!(h.hide_talk(seq), Err(TableError::AlreadyHidden(seq)));
    assert_eq!(h.hide_talk(1), Err(TableError::NoSuchMessage(1)));
    let original = h.log()[seq as usize - 1].clone();
    assert!(matches!(
        h.shown(seq, &original, Audience::Seat(Seat(1))),
        Event::TalkPosted {
            text: Secret::Hidden,
            ..
        }
    ));
    assert_eq!(h.shown(seq, &original, Audience::Omniscient), original);
    assert_eq!(h.table_status().hidden_talk, vec![seq]);
    // Talk changes nothing in the game, and the whole log passes the audit.
    assert_eq!(History::replay(h.log().to_vec()).unwrap().game(), h.game());
    audit(h.log()).unwrap();
}

#[test]
fn spectators_talk_under_a_name_when_the_table_allows_it() {
    let h = started(
        Options {
            spectator_talk: true,
            ..Options::default()
        },
        3,
        2,
    );
    let e = h.talk(None, Some(" Kibitzer "), "nice move", T0).unwrap();
    assert!(
        matches!(&e[..], [Event::TalkPosted { seat: None, name: Some(n), .. }] if n == "Kibitzer")
    );
    assert!(matches!(
        h.talk(None, None, "who am I", T0),
        Err(TableError::BadText(_))
    ));
}

#[test]
fn a_per_decision_clock_times_out_and_the_heuristic_bot_decides_as_the_audit_checks() {
    let mut h = started(per_decision(30), 4, 3);
    let seat = h.game().awaited().unwrap();
    let deadline = h.deadline().unwrap();
    assert_eq!((deadline.seat, deadline.at), (seat, T0 + 30_000));
    // Before the deadline nothing times out; a decision in time moves the clock on.
    assert_eq!(
        h.time_out(T0 + 29_999),
        Err(TableError::NotYet(T0 + 30_000))
    );
    assert!(!h.overdue(T0 + 29_999));
    assert!(h.overdue(T0 + 30_000));
    play_first(&mut h, T0 + 10_000);
    let next = h.deadline().unwrap();
    assert_eq!(next.at, T0 + 40_000);
    // The next seat lets its time run out.
    let version = h.version();
    let view_before = view(h.game(), Audience::Seat(next.seat));
    let out = h.time_out(T0 + 45_000).unwrap();
    let Event::TurnTimedOut { seat, deadline, at } = out[0] else {
        panic!("{out:?}")
    };
    assert_eq!((seat, deadline, at), (next.seat, T0 + 40_000, T0 + 45_000));
    let Event::CommandAccepted {
        seat: by,
        command: Secret::Known(command),
        bot: Some(bot),
        at: Some(stamped),
        signature: None,
    } = &out[1]
    else {
        panic!("{out:?}")
    };
    // The decision is the heuristic bot's on the seat's own view, with the recorded seed.
    assert_eq!(
        (*by, *stamped, bot.level),
        (next.seat, T0 + 45_000, BotLevel::Heuristic)
    );
    let seed = decision_seed(&h.game().seed(), version);
    assert_eq!(bot.seed, Secret::Known(seed));
    assert_eq!(
        choose(BotLevel::Heuristic, &view_before, seed).as_ref(),
        Some(command)
    );
    push_all(&mut h, out);
    assert_eq!(h.table_status().seats[next.seat.index()].timeouts, 1);
    // The timeout is not the player's to take back.
    assert!(h.request_undo(next.seat).is_err());
    let report = audit(h.log()).unwrap();
    assert_eq!(report.timeouts_checked, 1);
}

#[test]
fn a_time_bank_is_spent_while_deciding_and_grows_by_its_increment() {
    let options = Options {
        clock: Some(Clock::Bank {
            seconds: 300,
            increment_seconds: 20,
        }),
        ..Options::default()
    };
    let mut h = started(options, 3, 4);
    let seat = play_first(&mut h, T0 + 100_000);
    // 300 s - 100 s + 20 s.
    assert_eq!(
        h.table_status().seats[seat.index()].remaining_ms,
        Some(220_000)
    );
    let next = h.deadline().unwrap();
    assert_eq!(next.at, T0 + 100_000 + 300_000);
    // A timeout empties the bank; the increment is all the seat has next time.
    let out = h.time_out(next.at).unwrap();
    push_all(&mut h, out);
    assert_eq!(
        h.table_status().seats[next.seat.index()].remaining_ms,
        Some(20_000)
    );
    audit(h.log()).unwrap();
}

#[test]
fn a_seat_that_times_out_too_often_is_handed_to_a_bot_until_its_player_takes_it_back() {
    // The table's timeout bot decides and takes the seat: the heuristic unless it names one.
    for (chosen, level) in [
        (None, BotLevel::Heuristic),
        (Some(BotLevel::Random), BotLevel::Random),
        (Some(BotLevel::Expert), BotLevel::Expert),
    ] {
        timeout_bot_takes_over(chosen, level);
    }
}

fn timeout_bot_takes_over(chosen: Option<BotLevel>, expected: BotLevel) {
    let options = Options {
        abandon_after: Some(2),
        timeout_bot: chosen,
        ..per_decision(10)
    };
    let players = 3;
    let mut h = started(options, players, 5);
    let absent = h.game().awaited().unwrap();
    let mut now = T0;
    let mut handed = false;
    // The absent seat lets every decision run out; the others play at once.
    for _ in 0..20 {
        let Some(d) = h.deadline() else { break };
        if d.seat == absent {
            now = d.at;
            let out = h.time_out(now).unwrap();
            // The decision is the timeout bot's, recorded with its level for the audit.
            assert!(out.iter().any(|e| {
                matches!(e, Event::CommandAccepted { seat, bot: Some(b), .. } if *seat == absent && b.level == expected)
            }), "{expected:?} decides for the seat out of time");
            handed = out.iter().any(|e| {
                matches!(e, Event::SeatHandedToBot { seat, level, reason: HandOver::Abandoned } if *seat == absent && *level == expected)
            });
            push_all(&mut h, out);
            if handed {
                break;
            }
        } else {
            now += 1_000;
            play_first(&mut h, now);
        }
    }
    assert!(handed, "the second timeout in a row hands the seat over");
    assert_eq!(h.handed_to(absent), Some(expected));
    assert_eq!(h.table_status().timeout_bot, expected);
    // While a bot plays the seat, its decisions have no deadline.
    while h.game().awaited() != Some(absent) {
        now += 1_000;
        play_first(&mut h, now);
    }
    assert_eq!(h.deadline(), None);
    // The player comes back.
    assert_eq!(
        h.reclaim_seat(Seat(absent.0 + 1)),
        Err(TableError::NotBot(Seat(absent.0 + 1)))
    );
    let back = h.reclaim_seat(absent).unwrap();
    push_all(&mut h, back);
    assert_eq!(h.handed_to(absent), None);
    assert_eq!(h.table_status().seats[absent.index()].timeouts, 0);
    assert_eq!(h.deadline().map(|d| d.seat), Some(absent));
    // The host hands it over again; a token is issued again (only that it happened).
    let host = h.hand_to_bot(absent, BotLevel::Random).unwrap();
    push_all(&mut h, host);
    assert_eq!(
        h.hand_to_bot(absent, BotLevel::Random),
        Err(TableError::AlreadyBot(absent))
    );
    let token = h.reissue_token(absent).unwrap();
    assert_eq!(token, vec![Event::TokenReissued { seat: absent }]);
    push_all(&mut h, token);
    assert_eq!(
        h.reissue_token(Seat(players)),
        Err(TableError::NoSuchSeat(Seat(players)))
    );
    audit(h.log()).unwrap();
}

#[test]
fn the_audit_refuses_a_timeout_before_its_deadline_and_a_decision_after_it() {
    let mut h = started(per_decision(30), 3, 6);
    let deadline = h.deadline().unwrap();
    // A dishonest timeout: recorded before the deadline.
    let mut early = h.time_out(deadline.at).unwrap();
    if let Event::TurnTimedOut { at, .. } = &mut early[0] {
        *at = deadline.at - 1;
    }
    let mut log = h.log().to_vec();
    log.extend(early);
    let found = audit(&log).unwrap_err();
    assert_eq!(found.seq, h.version() + 1);
    assert!(found.what.contains("has not passed"), "{found}");
    // A decision accepted after the deadline: the clock should have decided.
    let seat = h.game().awaited().unwrap();
    let command = legal_commands(h.game(), seat).remove(0);
    let mut late = h.execute(seat, &command).unwrap();
    h.stamp(&mut late, deadline.at);
    let mut log = h.log().to_vec();
    log.extend(late.clone());
    let found = audit(&log).unwrap_err();
    assert!(found.what.contains("deadline"), "{found}");
    // In time, the same decision passes.
    let mut in_time = h.execute(seat, &command).unwrap();
    h.stamp(&mut in_time, deadline.at - 1);
    push_all(&mut h, in_time);
    audit(h.log()).unwrap();
}

#[test]
fn settings_are_checked_when_the_game_is_created() {
    let seed = Seed::from_u64(1);
    for bad in [
        per_decision(1),
        Options {
            abandon_after: Some(2),
            ..Options::default()
        },
        Options {
            abandon_after: Some(0),
            ..per_decision(30)
        },
    ] {
        assert!(
            create(Ruleset::Base, bad, 3, Seat(0), seed).is_err(),
            "{bad:?}"
        );
    }
    // Games without a clock record no times, so their logs read as before.
    let mut h = started(Options::default(), 3, 7);
    play_first(&mut h, T0 + 5);
    assert!(
        h.log()
            .iter()
            .all(|e| saboteur_domain::online::recorded_time(e).is_none())
    );
    assert_eq!(h.deadline(), None);
}

/// Random clocked games with talk, slow players and seats abandoned and taken back: the
/// replayed log gives the live state and table, and the audit passes every log.
#[test]
fn random_clocked_games_replay_and_pass_the_audit() {
    for seed in 0..120u64 {
        let players = 3 + (seed % 5) as u8;
        let options = Options {
            clock: Some(if seed.is_multiple_of(2) {
                Clock::PerDecision { seconds: 20 }
            } else {
                Clock::Bank {
                    seconds: 60,
                    increment_seconds: 5,
                }
            }),
            abandon_after: (seed % 3 != 0).then_some(2),
            spectator_talk: seed.is_multiple_of(4),
            ..Options::default()
        };
        let mut h = started(options, players, seed);
        let mut rng = bot_rng(Seed::from_u64(seed));
        let mut now = T0;
        let mut steps = 0;
        while let Some(seat) = h.game().awaited() {
            steps += 1;
            assert!(steps < 5_000, "seed {seed}");
            now += 1 + rng.next_u64() % 5_000;
            match rng.next_u64() % 20 {
                0 => {
                    let speaker = if rng.next_u64().is_multiple_of(2) {
                        Some(seat)
                    } else {
                        None
                    };
                    if let Ok(e) = h.talk(speaker, Some("guest"), "hm", now) {
                        push_all(&mut h, e);
                    }
                }
                1..=3 => {
                    if let Some(d) = h.deadline() {
                        now = now.max(d.at);
                        let out = h.time_out(now).unwrap();
                        push_all(&mut h, out);
                    }
                }
                4 => {
                    if let Ok(e) = h.reclaim_seat(seat) {
                        push_all(&mut h, e);
                    }
                }
                _ => {
                    if h.overdue(now) {
                        let out = h.time_out(now).unwrap();
                        push_all(&mut h, out);
                        continue;
                    }
                    let events = match h.handed_to(seat) {
                        Some(level) => h.execute_bot(seat, level).unwrap(),
                        None => {
                            let legal = legal_commands(h.game(), seat);
                            let command = &legal[below(&mut rng, legal.len())];
                            h.execute(seat, command).unwrap()
                        }
                    };
                    let mut events = events;
                    h.stamp(&mut events, now);
                    push_all(&mut h, events);
                }
            }
        }
        let again = History::replay(h.log().to_vec()).unwrap();
        assert_eq!(again.game(), h.game(), "seed {seed}");
        assert_eq!(again.table_status(), h.table_status(), "seed {seed}");
        if let Err(d) = audit(h.log()) {
            panic!("seed {seed}: {d}");
        }
    }
}

/// The host cancels a game nobody started (recorded as `game_cancelled`, audited like any act):
/// it can neither start nor be cancelled again, nobody may act in it; a started game cannot be
/// cancelled.
#[test]
fn a_lobby_is_cancelled_once_and_never_after_the_start() {
    let mut h = table(Options::default(), 4, 8);
    let cancelled = h.cancel().unwrap();
    assert_eq!(cancelled, vec![Event::GameCancelled {}]);
    push_all(&mut h, cancelled);
    assert_eq!(h.game().phase().name(), "cancelled");
    assert_eq!(h.cancel(), Err(TableError::Cancelled));
    assert_eq!(TableError::Cancelled.code(), "cancelled");
    assert!(h.start().is_err(), "a cancelled game does not start");
    assert!(h.game().awaited().is_none());
    assert!(legal_commands(h.game(), Seat(0)).is_empty());
    assert!(
        audit(h.log()).is_ok(),
        "the cancellation is audited as decided"
    );
    let spectator = view(h.game(), Audience::Spectator);
    assert_eq!(
        serde_json::to_value(spectator.phase.name).unwrap(),
        "cancelled"
    );
    // Once dealt, it is no longer the host's to cancel.
    let started = started(Options::default(), 4, 8);
    assert_eq!(started.cancel(), Err(TableError::AlreadyStarted));
    assert_eq!(TableError::AlreadyStarted.code(), "already_started");
}
