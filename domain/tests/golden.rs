//! Golden event logs: complete recorded games, one event per line as
//! `{"schema_version":1,"event":{…}}`, with their expected final state. A change to the JSON of
//! events or of the state fails here instead of orphaning stored games. After a deliberate
//! change (and a schema version bump with an upcaster), regenerate with `UPDATE_GOLDEN=all`;
//! `UPDATE_GOLDEN=1` writes only the logs not yet recorded (a new case), leaving the stored
//! forms the test exists to pin as they are.

use std::path::{Path, PathBuf};

use saboteur_domain::bot::{bot_rng, random_command};
use saboteur_domain::cards::Action;
use saboteur_domain::random::below;
use saboteur_domain::{
    Audience, BotLevel, Command, EVENT_SCHEMA_VERSION, Event, Game, History, Options, Ruleset,
    Seat, Seed, Side, audit, create, legal_commands, view,
};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    schema_version: u16,
    event: serde_json::Value,
}

/// How a recorded game was played.
type Player = fn(Ruleset, Options, u8, Seed) -> Vec<Event>;

/// A game of bots, half heuristic, half random: its log pins the bots' records too, and its
/// audit chooses every bot move again, so changing a bot without bumping `BOT_VERSION` fails.
fn bots_game(ruleset: Ruleset, options: Options, players: u8, seed: Seed) -> Vec<Event> {
    alternating(
        ruleset,
        options,
        players,
        seed,
        [BotLevel::Heuristic, BotLevel::Random],
    )
}

/// A game in which every other seat is the expert bot and the rest heuristic (recorded by bot
/// version 1, or the version its name says): the audit chooses every expert move again with
/// the logic of the version that recorded it, so stored games of an older expert stay
/// checkable after the expert changes.
fn experts_game(ruleset: Ruleset, options: Options, players: u8, seed: Seed) -> Vec<Event> {
    alternating(
        ruleset,
        options,
        players,
        seed,
        [BotLevel::Expert, BotLevel::Heuristic],
    )
}

/// A bot game with even seats at one level and odd seats at another.
fn alternating(
    ruleset: Ruleset,
    options: Options,
    players: u8,
    seed: Seed,
    levels: [BotLevel; 2],
) -> Vec<Event> {
    saboteur_domain::bot::bot_game(ruleset, options, players, seed, |_, s| {
        levels[usize::from(s.0 % 2)]
    })
}

/// The recorded games: (file stem, ruleset, options, players, seed, how it was played).
fn cases() -> Vec<(&'static str, Ruleset, Options, u8, u64, Player)> {
    let diggers = Options {
        gold_cards_drawn: saboteur_domain::GoldCardsDrawn::Diggers,
        broken_tools_forfeit_gold: true,
        ..Options::default()
    };
    let base = Options::default();
    vec![
        ("base_3p_seed6", Ruleset::Base, base, 3, 6, eager_game),
        (
            "base_4p_cancelled_seed8",
            Ruleset::Base,
            base,
            4,
            8,
            cancelled_game,
        ),
        ("base_6p_seed4", Ruleset::Base, base, 6, 4, eager_game),
        (
            "base_10p_seed7_variants",
            Ruleset::Base,
            diggers,
            10,
            7,
            eager_game,
        ),
        (
            "saboteur2_4p_seed14",
            Ruleset::Saboteur2,
            base,
            4,
            14,
            eager_game,
        ),
        (
            "saboteur2_12p_seed23",
            Ruleset::Saboteur2,
            base,
            12,
            23,
            eager_game,
        ),
        ("base_5p_bots_seed3", Ruleset::Base, base, 5, 3, bots_game),
        (
            "saboteur2_6p_bots_seed9",
            Ruleset::Saboteur2,
            base,
            6,
            9,
            bots_game,
        ),
        (
            "base_4p_experts_seed11",
            Ruleset::Base,
            base,
            4,
            11,
            experts_game,
        ),
        (
            "saboteur2_5p_experts_seed12",
            Ruleset::Saboteur2,
            base,
            5,
            12,
            experts_game,
        ),
        (
            "base_5p_experts_v3_seed13",
            Ruleset::Base,
            base,
            5,
            13,
            experts_game,
        ),
        // Record version 2: every bot seat recorded right after the deal.
        (
            "base_5p_bots_record2_seed23",
            Ruleset::Base,
            base,
            5,
            23,
            bots_game,
        ),
        (
            "saboteur2_7p_bots_record2_seed19",
            Ruleset::Saboteur2,
            base,
            7,
            19,
            bots_game,
        ),
        (
            "base_4p_online_seed5",
            Ruleset::Base,
            Options {
                clock: Some(saboteur_domain::Clock::Bank {
                    seconds: 60,
                    increment_seconds: 10,
                }),
                abandon_after: Some(2),
                spectator_talk: true,
                ..Options::default()
            },
            4,
            5,
            online_game,
        ),
    ]
}

/// A game its host cancelled before the start.
fn cancelled_game(ruleset: Ruleset, options: Options, players: u8, seed: Seed) -> Vec<Event> {
    let created = saboteur_domain::create(ruleset, options, players, Seat(0), seed).unwrap();
    let h = saboteur_domain::History::new(created.clone()).unwrap();
    let mut log = vec![created];
    log.extend(h.cancel().unwrap());
    log
}

/// A clocked game played online, as the server records it: times in the log, table talk (one
/// message hidden by the host), seats that run out of time (one of them twice in a row, so it is
/// handed to the bot and then taken back), a host's hand-over and a token issued again.
fn online_game(ruleset: Ruleset, options: Options, players: u8, seed: Seed) -> Vec<Event> {
    const T0: u64 = 1_795_435_200_000;
    let mut history =
        History::new(create(ruleset, options, players, Seat(0), seed).unwrap()).unwrap();
    let mut rng = bot_rng(seed);
    let mut now = T0;
    let mut pending = history.start().unwrap();
    history.stamp(&mut pending, now);
    let mut decisions = 0u32;
    let mut absent = None;
    loop {
        for e in pending.drain(..) {
            history.push(e);
        }
        let Some(seat) = history.game().awaited() else {
            return history.log().to_vec();
        };
        decisions += 1;
        now += 3_000;
        pending = match decisions % 29 {
            3 => history
                .talk(Some(seat), None, "the east looks blocked", now)
                .unwrap(),
            4 => history.talk(None, Some("Kibitzer"), "nice", now).unwrap(),
            5 => {
                let message = history.version() - 1;
                history.hide_talk(message).unwrap()
            }
            _ if history.handed_to(seat).is_none()
                && (absent == Some(seat) || (absent.is_none() && decisions % 29 == 7)) =>
            {
                absent = Some(seat);
                now = history.deadline().unwrap().at;
                history.time_out(now).unwrap()
            }
            11 => history.reissue_token(seat).unwrap(),
            13 if history.handed_to(seat).is_none() => {
                history.hand_to_bot(seat, BotLevel::Random).unwrap()
            }
            _ if history.handed_to(seat).is_some() && decisions.is_multiple_of(5) => {
                absent = None;
                history.reclaim_seat(seat).unwrap()
            }
            _ => {
                let mut events = match history.handed_to(seat) {
                    Some(level) => history.execute_bot(seat, level).unwrap(),
                    None => {
                        let legal = legal_commands(history.game(), seat);
                        history
                            .execute(seat, &legal[below(&mut rng, legal.len())])
                            .unwrap()
                    }
                };
                history.stamp(&mut events, now);
                events
            }
        };
    }
}

/// A game where every player digs east whenever they can, and otherwise passes or chooses gold
/// at random: its rounds reach goals, so the log holds gold handed out as well as saboteurs paid.
/// Recorded as the server records it: each command as `command_accepted` and its events.
fn eager_game(ruleset: Ruleset, options: Options, players: u8, seed: Seed) -> Vec<Event> {
    let mut history =
        History::new(create(ruleset, options, players, Seat(0), seed).unwrap()).unwrap();
    let mut rng = bot_rng(seed);
    let mut pending = history.start().unwrap();
    loop {
        for e in pending.drain(..) {
            history.push(e);
        }
        let game = history.game();
        let Some(seat) = game.awaited() else {
            return history.log().to_vec();
        };
        let legal = legal_commands(game, seat);
        let east = legal
            .iter()
            .cloned()
            .filter_map(|c| match c {
                Command::PlayPath { card, at, rotated } => {
                    let shape = card.path_shape()?;
                    let onward = shape.segments.len() == 1
                        && shape.openings().0.count_ones() > 1
                        && shape.open(rotated, Side::E);
                    Some(((onward, at.x, -at.y.abs()), c))
                }
                _ => None,
            })
            .max_by_key(|(key, _)| *key)
            .map(|(_, c)| c);
        // Otherwise, in the base game: pass or choose gold at random, never break anything; in
        // `saboteur2`: any legal command but tool-breaking and trapping, so the new actions
        // show up.
        let calm: Vec<Command> = legal
            .into_iter()
            .filter(|c| match c {
                Command::Pass { .. } | Command::ChooseGold { .. } => true,
                Command::PlayAction { card, .. } if ruleset == Ruleset::Saboteur2 => !matches!(
                    card.action(),
                    Some(Action::Break(_) | Action::Trapped | Action::Rockfall)
                ),
                Command::Steal { .. } | Command::DiscardToRemove { .. } => true,
                _ => false,
            })
            .collect();
        let command = east
            .or_else(|| calm.get(below(&mut rng, calm.len().max(1))).cloned())
            .or_else(|| random_command(&view(game, Audience::Seat(seat)), &mut rng))
            .unwrap();
        pending = history.execute(seat, &command).unwrap();
    }
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn write(stem: &str, events: &[Event]) {
    let lines: Vec<String> = events
        .iter()
        .map(|e| {
            let line = Line {
                schema_version: EVENT_SCHEMA_VERSION,
                event: serde_json::to_value(e).unwrap(),
            };
            serde_json::to_string(&line).unwrap()
        })
        .collect();
    std::fs::write(dir().join(format!("{stem}.jsonl")), lines.join("\n") + "\n").unwrap();
    let game = Game::replay(events).unwrap();
    let state = serde_json::to_string_pretty(&game).unwrap() + "\n";
    std::fs::write(dir().join(format!("{stem}.final.json")), state).unwrap();
}

/// A stored log: each line as stored and its event.
fn stored(stem: &str) -> Vec<(String, Event)> {
    let text = std::fs::read_to_string(dir().join(format!("{stem}.jsonl")))
        .unwrap_or_else(|e| panic!("{stem}.jsonl: {e} (UPDATE_GOLDEN=1 writes it)"));
    text.lines()
        .enumerate()
        .map(|(i, raw)| {
            let line: Line =
                serde_json::from_str(raw).unwrap_or_else(|e| panic!("{stem}:{}: {e}", i + 1));
            let event = Event::decode(line.schema_version, &line.event)
                .unwrap_or_else(|e| panic!("{stem}:{}: {e}", i + 1));
            (raw.to_string(), event)
        })
        .collect()
}

#[test]
fn golden_logs_replay_to_their_recorded_final_state() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for (stem, ruleset, options, players, seed, play) in cases() {
        let missing = !dir().join(format!("{stem}.jsonl")).exists();
        if (update && missing) || std::env::var("UPDATE_GOLDEN").as_deref() == Ok("all") {
            write(stem, &play(ruleset, options, players, Seed::from_u64(seed)));
        }
        let mut events = Vec::new();
        for (i, (raw, event)) in stored(stem).into_iter().enumerate() {
            // The event's JSON today is byte for byte the stored JSON.
            let again = serde_json::to_string(&Line {
                schema_version: EVENT_SCHEMA_VERSION,
                event: serde_json::to_value(&event).unwrap(),
            })
            .unwrap();
            assert_eq!(again, raw, "{stem}:{}: the event's JSON has changed", i + 1);
            events.push(event);
        }
        let game = Game::replay(&events).unwrap();
        let want: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir().join(format!("{stem}.final.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_value(&game).unwrap(),
            want,
            "{stem}: the final state differs"
        );
        if let Some(Event::GameCancelled {}) = events.last() {
            // A game its host cancelled: created, then cancelled, and audited so.
            assert_eq!(events.len(), 2, "{stem}");
            audit(&events).unwrap_or_else(|d| panic!("{stem}: {d}"));
            continue;
        }
        assert!(
            matches!(events.last(), Some(Event::GameEnded { .. })),
            "{stem}: a whole game"
        );
        let rich = |e: &Event| match ruleset {
            Ruleset::Base => matches!(e, Event::GoldKept { .. }),
            Ruleset::Saboteur2 => matches!(e, Event::CoinStolen { .. }),
        };
        assert!(
            events.iter().any(rich),
            "{stem}: gold handed out or coins stolen"
        );
        // Every command is decided again, every deal derived again, every bot move chosen
        // again.
        let report = audit(&events).unwrap_or_else(|d| panic!("{stem}: {d}"));
        assert!(
            report.commands_checked > 50 && report.deals_checked == 3,
            "{stem}"
        );
        let bots = events
            .iter()
            .filter(|e| matches!(e, Event::CommandAccepted { bot: Some(_), .. }))
            .count() as u64;
        assert_eq!(report.bot_moves_checked, bots, "{stem}");
    }
}

/// A stored online game whose bot moves (timeouts among them) claim a bot version newer than
/// this build: a timeout's move, made for the player who ran out of time, is one nobody can
/// check, and is named (a server records such a move only by a version its own verifier has);
/// a timeout's move claiming another level than the table's timeout bot is found out.
#[test]
fn bot_moves_of_a_newer_version_made_for_a_player_are_named() {
    use saboteur_domain::bot::BOT_VERSION;
    let events: Vec<Event> = stored("base_4p_online_seed5")
        .into_iter()
        .map(|(_, e)| e)
        .collect();
    let today = audit(&events).unwrap();
    assert!(today.timeouts_checked > 0 && today.bot_moves_of_other_versions == 0);
    let timeout = events
        .iter()
        .position(|e| matches!(e, Event::TurnTimedOut { .. }))
        .unwrap();
    let relabel = |log: &[Event], version| -> Vec<Event> {
        log.iter()
            .cloned()
            .map(|mut e| {
                if let Event::CommandAccepted { bot: Some(b), .. } = &mut e {
                    b.version = version;
                }
                e
            })
            .collect()
    };
    let found = audit(&relabel(&events, BOT_VERSION + 1)).expect_err("nobody can check it");
    assert_eq!(found.seq, timeout as u64 + 1, "{found}");
    assert!(
        found.to_string().contains("a move made for seat")
            && found.to_string().contains("that nobody can check"),
        "{found}"
    );
    // The first timeout's decision claimed by a random bot (the table's timeout bot is the
    // heuristic).
    let mut forged = events.clone();
    let decided = timeout
        + forged[timeout..]
            .iter()
            .position(|e| matches!(e, Event::CommandAccepted { bot: Some(_), .. }))
            .unwrap();
    let Event::CommandAccepted {
        bot: Some(claimed), ..
    } = &mut forged[decided]
    else {
        unreachable!()
    };
    assert_eq!(claimed.level, BotLevel::Heuristic);
    claimed.level = BotLevel::Random;
    let found = audit(&forged).expect_err("another level than the table's");
    assert_eq!(found.seq, decided as u64 + 1, "{found}");
}

#[test]
fn an_unknown_schema_version_is_refused() {
    let json = serde_json::json!({"type": "turn_skipped", "seat": 0});
    assert!(Event::decode(1, &json).is_ok());
    assert!(Event::decode(2, &json).is_err());
}

#[test]
fn the_first_deal_of_a_seed_is_pinned() {
    // Test vector: seed 0 → the deal of round 1 for 4 players. A change here breaks the
    // reproducibility of every stored game's shuffles.
    use saboteur_domain::{Event, Game, Options, Ruleset, Seat, Seed, create, start};
    let created = create(
        Ruleset::Base,
        Options::default(),
        4,
        Seat(0),
        Seed::from_u64(0),
    )
    .unwrap();
    let game = Game::replay([&created]).unwrap();
    let dealt = start(&game).unwrap();
    let Event::RoundStarted {
        roles,
        goals,
        hands,
        draw_pile,
        gold_pile,
        ..
    } = &dealt[0]
    else {
        panic!("round 1 is dealt")
    };
    let json = serde_json::json!({
        "roles": roles, "goals": goals, "hand_0": hands[0], "draw_top": &draw_pile.cards()[..3],
        "gold_top": &gold_pile.cards()[..3],
    });
    assert_eq!(
        json.to_string(),
        r#"{"draw_top":["deadend_ne","tunnel_ns","tunnel_ne"],"goals":["goal_stone_nw","goal_gold","goal_stone_ne"],"gold_top":["gold_1","gold_2","gold_2"],"hand_0":["tunnel_nesw","tunnel_new","break_lantern","break_lantern","map","repair_lantern"],"roles":["gold_digger","gold_digger","gold_digger","gold_digger"]}"#
    );
}
