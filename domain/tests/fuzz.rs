//! Hostile input to the engine: arbitrary JSON decoded as a command, and arbitrary commands
//! decided at random positions of random games, by any seat, and by undo and rollback. Nothing
//! may panic; a refused command changes nothing; a decoded command survives a round trip.
//! A bounded run (`PROPTEST_CASES`, default 256 per property; 2,000 mangled commands).

use proptest::prelude::*;
use saboteur_domain::cards::CATALOGUE;
use saboteur_domain::{
    Command, Event, History, Options, Ruleset, Seat, Seed, bot::random_game, legal_commands,
};
use serde_json::{Value, json};

/// Random JSON shaped like commands often enough to reach the engine: the wire format's keys
/// with values of every kind, real and made-up card ids, cells far away and near.
fn command_json() -> impl Strategy<Value = Value> {
    let card = prop_oneof![
        (0..CATALOGUE.len()).prop_map(|i| json!(CATALOGUE[i].card)),
        "[a-z_]{0,12}".prop_map(Value::from),
        Just(Value::Null),
        any::<i64>().prop_map(Value::from),
    ];
    let cell = prop_oneof![
        (-3i64..12, -6i64..7).prop_map(|(x, y)| json!({"x": x, "y": y})),
        (any::<i64>(), any::<i64>()).prop_map(|(x, y)| json!({"x": x, "y": y})),
        any::<u8>().prop_map(|s| json!({"seat": s})),
        Just(json!({"seat": -1})),
        Just(json!({})),
    ];
    let kind = prop_oneof![
        Just("play_path"),
        Just("play_path"),
        Just("play_action"),
        Just("play_action"),
        Just("pass"),
        Just("discard_to_remove"),
        Just("choose_gold"),
        Just("steal"),
        Just("resign"),
    ];
    (
        kind,
        card.clone(),
        cell,
        any::<bool>(),
        proptest::collection::vec(card.clone(), 0..5),
        card,
        prop_oneof![
            Just(json!("pickaxe")),
            Just(json!("lantern")),
            Just(json!(7))
        ],
        prop_oneof![any::<u8>().prop_map(Value::from), Just(Value::Null)],
        prop_oneof![3 => Just(0u8), 1 => any::<u8>()],
    )
        .prop_map(
            |(kind, card, cell, rotated, discard, remove, tool, from, flips)| {
                // The keys the wire format gives the type, with now and then some flipped.
                let needed: u8 = match kind {
                    "play_path" => 0b0000_1011,
                    "play_action" => 0b0100_0101,
                    "pass" => 0b0001_0000,
                    "discard_to_remove" => 0b0011_0000,
                    "choose_gold" => 0b0000_0001,
                    "steal" => 0b1000_0000,
                    _ => 0,
                };
                let keys = needed ^ flips;
                let mut m = serde_json::Map::new();
                m.insert("type".into(), json!(kind));
                // Each key present or not, so missing and extra keys are both tried.
                let optional = [
                    ("card", card),
                    ("at", cell.clone()),
                    ("target", cell),
                    ("rotated", json!(rotated)),
                    ("discard", json!(discard)),
                    ("remove", remove),
                    ("tool", tool),
                    ("from", from),
                ];
                for (i, (k, v)) in optional.into_iter().enumerate() {
                    if keys & (1 << i) != 0 {
                        m.insert(k.into(), v);
                    }
                }
                Value::Object(m)
            },
        )
}

/// A random game's log, cut at a random point.
fn position() -> impl Strategy<Value = (Vec<Event>, usize)> {
    (
        any::<bool>(),
        2u8..13,
        any::<u64>(),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(expansion, players, seed, cut)| {
            let (ruleset, players) = if expansion {
                (Ruleset::Saboteur2, players)
            } else {
                (Ruleset::Base, players.clamp(3, 10))
            };
            let log = random_game(ruleset, Options::default(), players, Seed::from_u64(seed));
            let at = cut.index(log.len()).max(1);
            (log, at)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
    ))]

    /// Any JSON either decodes to a command that encodes back to the same command, or is
    /// refused with an error; decoding never panics.
    #[test]
    fn decoding_never_panics(v in command_json(), text in ".{0,200}") {
        if let Ok(c) = serde_json::from_value::<Command>(v) {
            let again: Command = serde_json::from_value(serde_json::to_value(&c).unwrap()).unwrap();
            prop_assert_eq!(again, c);
        }
        let _ = serde_json::from_str::<Command>(&text);
    }

    /// Whatever any seat sends at any point of any game, the engine answers without panicking:
    /// a command it refuses changes nothing and is never among the legal ones; one it accepts
    /// replays to the state it led to. Undo, votes and rollbacks to any version likewise.
    #[test]
    fn deciding_never_panics(
        (log, at) in position(),
        v in command_json(),
        seat in 0u8..14,
        to_version in any::<u64>(),
    ) {
        let history = History::replay(log[..at].iter().cloned()).unwrap();
        let before = history.game().clone();
        if let Ok(command) = serde_json::from_value::<Command>(v) {
            match history.execute(Seat(seat), &command) {
                Ok(events) => {
                    let mut after = history.clone();
                    for e in events {
                        after.push(e);
                    }
                    let replayed = History::replay(after.log().iter().cloned()).unwrap();
                    prop_assert_eq!(replayed.game(), after.game());
                }
                Err(_) => {
                    prop_assert_eq!(history.game(), &before);
                    if usize::from(seat) < before.n() {
                        prop_assert!(!legal_commands(&before, Seat(seat)).contains(&command));
                    }
                }
            }
        }
        let _ = history.request_undo(Seat(seat));
        let _ = history.vote_undo(Seat(seat), seat % 2 == 0);
        let _ = history.rollback(to_version, "a dispute");
        let _ = history.rollback(to_version % (at as u64 + 2), "a dispute");
        prop_assert_eq!(history.game(), &before);
    }
}

/// The generator reaches the engine: a good share of what it makes decodes as a command.
#[test]
fn the_generator_makes_commands() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = command_json();
    let decoded = (0..1000)
        .filter(|_| {
            let v = strategy.new_tree(&mut runner).unwrap().current();
            serde_json::from_value::<Command>(v).is_ok()
        })
        .count();
    assert!(decoded >= 100, "only {decoded} of 1000 decode");
    eprintln!("{decoded} of 1000 decode");
}

/// Valid commands with arbitrary bytes spliced in, and unknown fields and cards.
mod malformed {
    use proptest::prelude::*;
    use saboteur_domain::Command;

    fn valid() -> Vec<&'static str> {
        vec![
            r#"{"type":"play_path","card":"tunnel_ew","at":{"x":1,"y":0},"rotated":false}"#,
            r#"{"type":"play_action","card":"break_cart","target":{"seat":1}}"#,
            r#"{"type":"play_action","card":"repair_pickaxe_cart","target":{"seat":1},"tool":"cart"}"#,
            r#"{"type":"pass","discard":["map"]}"#,
            r#"{"type":"choose_gold","card":"gold_2"}"#,
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]
        /// Arbitrary bytes spliced into valid commands parse or fail cleanly, never panic, and
        /// anything that parses serialises back to a command that parses the same.
        #[test]
        fn mangled_commands_never_panic(i in 0usize..5, at in 0usize..80, junk in ".{0,6}") {
            let base = valid()[i];
            let at = at.min(base.len());
            let at = (0..=at).rev().find(|k| base.is_char_boundary(*k)).unwrap_or(0);
            let text = format!("{}{}{}", &base[..at], junk, &base[at..]);
            if let Ok(cmd) = serde_json::from_str::<Command>(&text) {
                let again: Command = serde_json::from_str(&serde_json::to_string(&cmd).unwrap()).unwrap();
                prop_assert_eq!(again, cmd);
            }
        }
    }

    #[test]
    fn unknown_fields_and_cards_are_rejected() {
        for bad in [
            r#"{"type":"pass","discard":["map"],"extra":1}"#,
            r#"{"type":"play_path","card":"tunnel_xx","at":{"x":1,"y":0}}"#,
            r#"{"type":"play_action","card":"map","target":{"x":8,"y":0,"z":1}}"#,
            r#"{"type":"fly"}"#,
        ] {
            assert!(serde_json::from_str::<Command>(bad).is_err(), "{bad}");
        }
        for good in valid() {
            serde_json::from_str::<Command>(good).unwrap();
        }
    }
}
